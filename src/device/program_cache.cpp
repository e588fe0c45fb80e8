#include "device/program_cache.hpp"

#include <cstdint>
#include <cstring>

#include "device/opencl_runtime.hpp"
#include "sha256.hpp"
#include "trusted_files.hpp"

namespace switchyard::program_cache {
namespace {

// Entries start with this tag, the binary's length and the digest of the
// entry's name and binary. The tag's version changes with the layout, so an
// entry of an older layout is rebuilt, never misread.
constexpr char kMagic[8] = {'S', 'Y', 'C', 'L', 'B', 'I', 'N', '2'};
constexpr std::size_t kHeaderBytes = sizeof kMagic + sizeof(std::uint64_t) + sizeof(Sha256::Digest);
constexpr std::uint64_t kMaxBinaryBytes = 1ull << 31;

Sha256::Digest checksum(const std::string& key, const unsigned char* binary, std::size_t size) {
  return Sha256().field(key).update(binary, size).finish();
}

}  // namespace

std::string key(const opencl::DeviceInfo& device, const std::string& source,
                const std::string& options) {
  Sha256 h;
  h.field(device.platform).field(device.name).field(device.driver).field(options).field(source);
  return kEntryPrefix + hex(h.finish()) + kEntrySuffix;
}

bool load(const std::string& directory, const std::string& key,
          std::vector<unsigned char>& binary) {
  std::string entry;
  if (!trusted_files::read(directory, key, kHeaderBytes + kMaxBinaryBytes, entry) ||
      entry.size() <= kHeaderBytes || std::memcmp(entry.data(), kMagic, sizeof kMagic) != 0) {
    return false;
  }
  std::uint64_t size = 0;
  std::memcpy(&size, entry.data() + sizeof kMagic, sizeof size);
  if (size != entry.size() - kHeaderBytes) return false;
  const auto* payload = reinterpret_cast<const unsigned char*>(entry.data() + kHeaderBytes);
  const Sha256::Digest sum = checksum(key, payload, size);
  if (std::memcmp(sum.data(), entry.data() + kHeaderBytes - sum.size(), sum.size()) != 0) {
    return false;
  }
  binary.assign(payload, payload + size);
  return true;
}

void store(const std::string& directory, const std::string& key,
           const std::vector<unsigned char>& binary) {
  if (binary.empty() || binary.size() > kMaxBinaryBytes) return;
  const std::uint64_t size = binary.size();
  const Sha256::Digest sum = checksum(key, binary.data(), binary.size());
  std::string entry(kMagic, sizeof kMagic);
  entry.append(reinterpret_cast<const char*>(&size), sizeof size);
  entry.append(reinterpret_cast<const char*>(sum.data()), sum.size());
  entry.append(reinterpret_cast<const char*>(binary.data()), binary.size());
  std::string error;
  trusted_files::write(directory, key, entry, error);
}

}  // namespace switchyard::program_cache
