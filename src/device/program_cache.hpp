// Program binaries on disk, so that a kernel the OpenCL compiler built once
// (seconds on PoCL) loads in milliseconds in every later process.
//
// Where: the directory the caller names, cache_directory() (config.hpp) in the
// library, read and written under the rules of trusted_files.hpp. An entry's
// name is the SHA-256 of the platform, device, driver version, build options
// and source, so a driver update or a changed kernel never loads a stale
// binary. The entry holds the binary's length and the SHA-256 of its name and
// binary, so an entry cut short, damaged, or copied under another program's
// name is told from a whole one. The cache is an optimisation only: a
// directory that cannot be made, written or trusted, or an entry that is
// refused, truncated or corrupt, costs a rebuild and never fails a call.
#pragma once

#include <string>
#include <vector>

namespace switchyard::opencl {
struct DeviceInfo;
}

namespace switchyard::program_cache {

// Entries are named kEntryPrefix, the SHA-256 of what they were built from, kEntrySuffix.
inline constexpr char kEntryPrefix[] = "cl-";
inline constexpr char kEntrySuffix[] = ".bin";

// The entry name of a program built from `source` with `options` on `device`.
std::string key(const opencl::DeviceInfo& device, const std::string& source,
                const std::string& options);

// The stored binary of `key` in `directory`, if there is a whole, trusted one.
bool load(const std::string& directory, const std::string& key, std::vector<unsigned char>& binary);

// Stores a binary; a failure is silent (the next process builds again).
void store(const std::string& directory, const std::string& key,
           const std::vector<unsigned char>& binary);

}  // namespace switchyard::program_cache
