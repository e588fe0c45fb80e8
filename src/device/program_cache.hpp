// Program binaries on disk, so that a kernel the OpenCL compiler built once
// (seconds on PoCL) loads in milliseconds in every later process.
//
// Where: cache_directory() (config.hpp). An entry's name is a hash of the platform, device,
// driver version, build options and source, so a driver update or a changed
// kernel never loads a stale binary. The cache is an optimisation only: a
// directory that cannot be made or written, or an entry that is truncated or
// corrupt, costs a rebuild and never fails a call.
#pragma once

#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"

namespace switchyard::program_cache {

// The entry name of a program built from `source` with `options` on `device`.
std::string key(const opencl::DeviceInfo& device, const std::string& source,
                const std::string& options);

// The stored binary of `key`, if there is a whole one.
bool load(const std::string& key, std::vector<unsigned char>& binary);

// Stores a binary; a failure is silent (the next process builds again).
void store(const std::string& key, const std::vector<unsigned char>& binary);

}  // namespace switchyard::program_cache
