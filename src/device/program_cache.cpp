#include "device/program_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "config.hpp"

namespace switchyard::program_cache {
namespace {

// Entries start with this tag and the payload's length and checksum, so a
// truncated or overwritten file is told from a whole one.
constexpr char kMagic[8] = {'S', 'Y', 'C', 'L', 'B', 'I', 'N', '1'};

std::uint64_t fnv1a(const void* data, std::size_t size, std::uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t h) {
  return fnv1a(s.data(), s.size() + 1, h);  // the terminator separates the fields
}

bool make_directories(const std::string& path) {
  for (std::size_t at = 1; at <= path.size(); ++at) {
    if (at == path.size() || path[at] == '/') {
      const std::string prefix = path.substr(0, at);
      if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

}  // namespace

std::string key(const opencl::DeviceInfo& device, const std::string& source,
                const std::string& options) {
  std::uint64_t h = fnv1a(device.platform, 1469598103934665603ull);
  h = fnv1a(device.name, h);
  h = fnv1a(device.driver, h);
  h = fnv1a(options, h);
  h = fnv1a(source, h);
  char name[40];
  std::snprintf(name, sizeof name, "cl-%016llx.bin", (unsigned long long)h);
  return name;
}

bool load(const std::string& key, std::vector<unsigned char>& binary) {
  const std::string dir = cache_directory();
  if (dir.empty()) return false;
  FILE* f = std::fopen((dir + "/" + key).c_str(), "rb");
  if (!f) return false;
  char magic[8];
  std::uint64_t size = 0, sum = 0;
  bool whole = std::fread(magic, 1, 8, f) == 8 && std::memcmp(magic, kMagic, 8) == 0 &&
               std::fread(&size, sizeof size, 1, f) == 1 &&
               std::fread(&sum, sizeof sum, 1, f) == 1 && size > 0 && size < (1ull << 31);
  if (whole) {
    binary.resize(size);
    whole = std::fread(binary.data(), 1, size, f) == size &&
            fnv1a(binary.data(), binary.size()) == sum;
  }
  std::fclose(f);
  return whole;
}

void store(const std::string& key, const std::vector<unsigned char>& binary) {
  const std::string dir = cache_directory();
  if (dir.empty() || !make_directories(dir)) return;
  // Written under a temporary name and renamed, so that a reader in another
  // process never sees half an entry.
  const std::string path = dir + "/" + key;
  const std::string temporary = path + ".tmp" + std::to_string(getpid());
  FILE* f = std::fopen(temporary.c_str(), "wb");
  if (!f) return;
  const std::uint64_t size = binary.size();
  const std::uint64_t sum = fnv1a(binary.data(), binary.size());
  bool ok = std::fwrite(kMagic, 1, 8, f) == 8 && std::fwrite(&size, sizeof size, 1, f) == 1 &&
            std::fwrite(&sum, sizeof sum, 1, f) == 1 &&
            std::fwrite(binary.data(), 1, binary.size(), f) == binary.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) std::remove(temporary.c_str());
}

}  // namespace switchyard::program_cache
