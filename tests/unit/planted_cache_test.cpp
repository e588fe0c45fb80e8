// Each user of the on-disk cache against what an attacker could plant: the
// entry is refused (the caller compiles afresh or takes shipped figures) or
// rebuilt, and nothing outside the cache directory is written or changed.
#include "planted_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace switchyard::test {

void PlantedCache::SetUp() {
  scratch_ = std::make_unique<ScratchDir>();
  cache_ = *scratch_ / "cache";
  outside_ = *scratch_ / "outside";
  ASSERT_EQ(mkdir(outside_.c_str(), 0700), 0);
}

namespace {

bool is_regular_file(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A cache directory whose mode or owner is changed after a whole entry was
// stored there: the entry is not read, and a store writes nothing.
void expect_directory_refused(const CacheUser& user, const ScratchDir& scratch,
                              const std::string& cache) {
  const auto before = snapshot(scratch.path());
  EXPECT_FALSE(user.load(cache));
  user.store(cache);
  EXPECT_EQ(snapshot(scratch.path()), before) << "a refused cache directory was written";
}

TEST_P(PlantedCache, WholeEntryIsReadBack) {
  const CacheUser& user = GetParam();
  user.store(cache_);
  EXPECT_TRUE(user.load(cache_));
  struct stat st;
  ASSERT_EQ(stat(cache_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u) << "the cache directory is made private";
  ASSERT_EQ(stat((cache_ + "/" + user.entry).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(snapshot(cache_).size(), 2u) << "the directory and the entry, no temporary file";
}

TEST_P(PlantedCache, ForeignOwnedEntryIsRefusedThenReplaced) {
  if (geteuid() != 0) GTEST_SKIP() << "planting a file of another user's needs root";
  const CacheUser& user = GetParam();
  user.store(cache_);
  const std::string entry = cache_ + "/" + user.entry;
  ASSERT_EQ(lchown(entry.c_str(), kOtherUser, kOtherUser), 0);
  EXPECT_FALSE(user.load(cache_));
  user.store(cache_);
  struct stat st;
  ASSERT_EQ(lstat(entry.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, geteuid()) << "the store replaces the foreign entry";
  EXPECT_TRUE(user.load(cache_));
}

TEST_P(PlantedCache, ForeignOwnedDirectoryIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "planting a directory of another user's needs root";
  GetParam().store(cache_);
  ASSERT_EQ(lchown(cache_.c_str(), kOtherUser, kOtherUser), 0);
  expect_directory_refused(GetParam(), *scratch_, cache_);
}

TEST_P(PlantedCache, GroupWritableDirectoryIsRefused) {
  GetParam().store(cache_);
  ASSERT_EQ(chmod(cache_.c_str(), 0770), 0);
  expect_directory_refused(GetParam(), *scratch_, cache_);
}

TEST_P(PlantedCache, WorldWritableDirectoryIsRefused) {
  GetParam().store(cache_);
  ASSERT_EQ(chmod(cache_.c_str(), 0777), 0);
  expect_directory_refused(GetParam(), *scratch_, cache_);
}

// A link at the entry's name to a whole entry elsewhere: not followed on
// reading, replaced (not written through) on storing.
TEST_P(PlantedCache, SymlinkAtEntryNameIsNotFollowed) {
  const CacheUser& user = GetParam();
  user.store(outside_);
  ASSERT_TRUE(user.load(outside_));
  ASSERT_EQ(mkdir(cache_.c_str(), 0700), 0);
  const std::string entry = cache_ + "/" + user.entry;
  ASSERT_EQ(symlink((outside_ + "/" + user.entry).c_str(), entry.c_str()), 0);
  const auto before = snapshot(outside_);
  EXPECT_FALSE(user.load(cache_));
  user.store(cache_);
  EXPECT_TRUE(is_regular_file(entry)) << "the link is replaced by the new entry";
  EXPECT_TRUE(user.load(cache_));
  EXPECT_EQ(snapshot(outside_), before) << "the link's target was written";
}

// The cache directory a link to a directory of whole entries: refused, with
// or without a trailing slash, and nothing written through it.
TEST_P(PlantedCache, SymlinkedDirectoryIsRefused) {
  const CacheUser& user = GetParam();
  user.store(outside_);
  ASSERT_TRUE(user.load(outside_));
  ASSERT_EQ(symlink(outside_.c_str(), cache_.c_str()), 0);
  const auto before = snapshot(outside_);
  EXPECT_FALSE(user.load(cache_));
  EXPECT_FALSE(user.load(cache_ + "/"));
  user.store(cache_);
  user.store(cache_ + "/");
  EXPECT_EQ(snapshot(outside_), before) << "the link's target was written";
}

TEST_P(PlantedCache, TruncatedEntryIsRebuilt) {
  const CacheUser& user = GetParam();
  user.store(cache_);
  const std::string entry = cache_ + "/" + user.entry;
  ASSERT_EQ(truncate(entry.c_str(), off_t(file_contents(entry).size() / 2)), 0);
  EXPECT_FALSE(user.load(cache_));
  user.store(cache_);
  EXPECT_TRUE(user.load(cache_));
}

}  // namespace
}  // namespace switchyard::test
