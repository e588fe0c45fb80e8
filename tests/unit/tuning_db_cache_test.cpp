// The gemm tuning database through its read and write: the planted attacks of
// planted_cache_test.cpp, and a store that keeps the other devices' entries.
#include <gtest/gtest.h>

#include "gemm/tuning_db.hpp"
#include "planted_cache.hpp"

namespace switchyard::test {
namespace {

gemm::TuningEntry entry_for(const std::string& device, double gflops) {
  gemm::TuningEntry e;
  e.device = device;
  e.gflops = gflops;
  EXPECT_TRUE(gemm::parse("ml=64 nl=64 kl=16 ms=8 ns=4 ks=2 vw=2 local=AB layout=CBL,CBL",
                          e.precision, e.params));
  return e;
}

gemm::TuningEntry sample() { return entry_for("Test Device 9000", 1234.5); }

bool holds(const std::vector<gemm::TuningEntry>& entries, const gemm::TuningEntry& wanted) {
  for (const gemm::TuningEntry& e : entries) {
    if (gemm::format_entry(e) == gemm::format_entry(wanted)) return true;
  }
  return false;
}

void store(const std::string& directory, const gemm::TuningEntry& entry) {
  std::string error;
  gemm::store_entry(directory, entry, error);
}

const CacheUser kTuningDatabase{
    "TuningDatabase", gemm::kDatabaseName, [](const std::string& dir) { store(dir, sample()); },
    [](const std::string& dir) { return holds(gemm::read_database(dir), sample()); }};

INSTANTIATE_TEST_SUITE_P(TuningDatabase, PlantedCache, ::testing::Values(kTuningDatabase),
                         [](const auto& info) { return info.param.name; });

TEST(TuningDatabase, StoreReplacesOnlyItsDevicesEntry) {
  ScratchDir scratch;
  const gemm::TuningEntry other = entry_for("Other Device", 10.0);
  store(scratch.path(), other);
  store(scratch.path(), entry_for(sample().device, 1.0));
  store(scratch.path(), sample());
  const std::vector<gemm::TuningEntry> entries = gemm::read_database(scratch.path());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(holds(entries, other));
  EXPECT_TRUE(holds(entries, sample()));
}

TEST(TuningDatabase, UnwritableDirectorySaysWhy) {
  std::string error;
  EXPECT_FALSE(gemm::store_entry("/dev/null/switchyard", sample(), error));
  EXPECT_NE(error.find("/dev/null"), std::string::npos) << error;
}

}  // namespace
}  // namespace switchyard::test
