// The OpenCL program cache through its load and store: no device needed, the
// binaries are bytes. The planted attacks of planted_cache_test.cpp, and the
// damage its SHA-256 content check catches.
#include "device/program_cache.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "device/opencl_runtime.hpp"
#include "planted_cache.hpp"

namespace switchyard::test {
namespace {

opencl::DeviceInfo sample_device() {
  opencl::DeviceInfo d;
  d.platform = "Portable Computing Language";
  d.name = "cpu-haswell-test";
  d.driver = "6.0";
  return d;
}

const std::string kSource = "kernel void k(global float* x) { x[0] = 1; }";
const std::string kOptions = "-cl-std=CL1.2";

std::string sample_key() { return program_cache::key(sample_device(), kSource, kOptions); }

std::vector<unsigned char> sample_binary() {
  std::vector<unsigned char> b(5000);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>(i * 131 + 7);
  return b;
}

bool loads_sample(const std::string& directory, const std::string& key) {
  std::vector<unsigned char> loaded;
  return program_cache::load(directory, key, loaded) && loaded == sample_binary();
}

const CacheUser kProgramCache{
    "ProgramCache", sample_key(),
    [](const std::string& dir) { program_cache::store(dir, sample_key(), sample_binary()); },
    [](const std::string& dir) { return loads_sample(dir, sample_key()); }};

INSTANTIATE_TEST_SUITE_P(ProgramCache, PlantedCache, ::testing::Values(kProgramCache),
                         [](const auto& info) { return info.param.name; });

TEST(ProgramCache, KeyIsTheSha256OfEveryField) {
  const std::string key = sample_key();
  EXPECT_TRUE(std::regex_match(key, std::regex("cl-[0-9a-f]{64}\\.bin"))) << key;
  opencl::DeviceInfo d = sample_device();
  d.driver = "6.1";
  EXPECT_NE(program_cache::key(d, kSource, kOptions), key) << "a driver update";
  EXPECT_NE(program_cache::key(sample_device(), kSource + " ", kOptions), key);
  EXPECT_NE(program_cache::key(sample_device(), kSource, kOptions + " -O0"), key);
  // Fields are separated: moving text from one field to the next changes the key.
  opencl::DeviceInfo a = sample_device(), b = sample_device();
  a.platform = "ab", a.name = "c";
  b.platform = "a", b.name = "bc";
  EXPECT_NE(program_cache::key(a, kSource, kOptions), program_cache::key(b, kSource, kOptions));
}

// One bit flipped in the binary, in the stored length or in the stored digest.
TEST(ProgramCache, BitFlippedEntryIsRebuilt) {
  ScratchDir scratch;
  const std::string cache = scratch / "cache", entry = cache + "/" + sample_key();
  program_cache::store(cache, sample_key(), sample_binary());
  const std::string whole = file_contents(entry);
  for (std::size_t at : {whole.size() - 100, std::size_t(8), std::size_t(20)}) {
    std::string flipped = whole;
    flipped[at] = char(flipped[at] ^ 0x10);
    write_file(entry, flipped);
    EXPECT_FALSE(loads_sample(cache, sample_key())) << "byte " << at << " flipped";
  }
  program_cache::store(cache, sample_key(), sample_binary());
  EXPECT_TRUE(loads_sample(cache, sample_key()));
}

// A whole entry of another program, copied under this one's name: the digest
// covers the name, so it is not taken.
TEST(ProgramCache, EntryUnderAnotherNameIsRefused) {
  ScratchDir scratch;
  const std::string cache = scratch / "cache";
  program_cache::store(cache, sample_key(), sample_binary());
  const std::string other = program_cache::key(sample_device(), kSource + "\n", kOptions);
  write_file(cache + "/" + other, file_contents(cache + "/" + sample_key()));
  std::vector<unsigned char> loaded;
  EXPECT_FALSE(program_cache::load(cache, other, loaded));
}

// An entry of the previous layout (tag SYCLBIN1, FNV-1a checksum) is not read.
TEST(ProgramCache, EntryOfTheOldLayoutIsNotRead) {
  ScratchDir scratch;
  const std::string cache = scratch / "cache", entry = cache + "/" + sample_key();
  program_cache::store(cache, sample_key(), sample_binary());
  std::string old = file_contents(entry);
  old[7] = '1';
  write_file(entry, old);
  EXPECT_FALSE(loads_sample(cache, sample_key()));
}

}  // namespace
}  // namespace switchyard::test
