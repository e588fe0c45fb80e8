// The attacks every reader and writer of the on-disk cache is tested against
// (planted_cache_test.cpp), each in a scratch directory of its own: a file of
// someone else's, a directory others may write, symbolic links at an entry's
// name and at the directory, an entry cut short. Each user of the cache
// (program binaries, the gemm tuning database, the calibration) instantiates
// them with a CacheUser.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "scratch_dir.hpp"

namespace switchyard::test {

struct CacheUser {
  std::string name;   // the instantiation's name in the test names
  std::string entry;  // the entry's file name in the cache directory
  // Writes the user's sample entry to the directory (a refusal is silent).
  std::function<void(const std::string& directory)> store;
  // Whether the sample entry is read back whole from the directory.
  std::function<bool(const std::string& directory)> load;
};
inline void PrintTo(const CacheUser& user, std::ostream* out) { *out << user.name; }

// A scratch directory holding the cache directory `cache` (not yet made) and a
// directory `outside`, which stands for whatever a planted link points to.
class PlantedCache : public ::testing::TestWithParam<CacheUser> {
 protected:
  void SetUp() override;

  std::unique_ptr<ScratchDir> scratch_;
  std::string cache_, outside_;
};

}  // namespace switchyard::test
