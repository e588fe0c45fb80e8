#include "device/start_extras.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "config.hpp"
#include "device/program_cache.hpp"

namespace switchyard::device {
namespace {

constexpr double kGiB = double(std::size_t(1) << 30);
constexpr double kStepBegins = 2 * kGiB, kStepEnds = 3 * kGiB;

// The medians' differences in the measurements above, in seconds.
constexpr double kCudaStep = 0.090, kOpenclStep = 0.080;

bool is_program_entry(const char* name) {
  const std::size_t length = std::strlen(name), prefix = std::strlen(program_cache::kEntryPrefix),
                    suffix = std::strlen(program_cache::kEntrySuffix);
  return length > prefix + suffix && std::strncmp(name, program_cache::kEntryPrefix, prefix) == 0 &&
         std::strcmp(name + length - suffix, program_cache::kEntrySuffix) == 0;
}

}  // namespace

std::size_t resident_bytes() {
  std::FILE* file = std::fopen("/proc/self/statm", "r");
  if (!file) return 0;
  unsigned long long size = 0, resident = 0;
  const bool read = std::fscanf(file, "%llu %llu", &size, &resident) == 2;
  std::fclose(file);
  const long page = sysconf(_SC_PAGESIZE);
  return read && page > 0 ? std::size_t(resident) * std::size_t(page) : 0;
}

double start_extra_for_resident(Family f, std::size_t resident) {
  const double share =
      std::clamp((double(resident) - kStepBegins) / (kStepEnds - kStepBegins), 0.0, 1.0);
  return share * (f == Family::cuda ? kCudaStep : kOpenclStep);
}

double start_extra_for(Family f, std::size_t resident, bool other_started) {
  return start_extra_for_resident(f, resident) - (other_started ? kSharedDriverStartSeconds : 0.0);
}

bool programs_in_cache(const std::string& directory) {
  DIR* dir = directory.empty() ? nullptr : opendir(directory.c_str());
  if (!dir) return false;
  bool found = false;
  while (const dirent* entry = readdir(dir)) {
    if (is_program_entry(entry->d_name)) {
      found = true;
      break;
    }
  }
  closedir(dir);
  return found;
}

double start_extra_s(Family f) {
  const Family other = f == Family::cuda ? Family::opencl : Family::cuda;
  // A fork child's driver is its parent's, which it can not use: nothing is shared there.
  const bool other_started = state(other) == State::started && !inherited_by_fork(other);
  double extra = start_extra_for(f, resident_bytes(), other_started);
  if (f == Family::opencl) {
    // Entries are only ever added: once seen, the directory is not read again.
    static std::atomic<bool> cached{false};
    if (!cached.load(std::memory_order_relaxed) && programs_in_cache(cache_directory())) {
      cached.store(true, std::memory_order_relaxed);
    }
    if (!cached.load(std::memory_order_relaxed)) extra += kProgramCompileSeconds;
  }
  return extra;
}

}  // namespace switchyard::device
