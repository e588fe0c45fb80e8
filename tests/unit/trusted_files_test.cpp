// The cache's file rules on their own: what a write leaves, what a read
// refuses beyond the planted attacks of planted_cache_test.cpp, and the one
// warning a process gives.
#include "trusted_files.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "scratch_dir.hpp"

namespace switchyard::test {
namespace {

TEST(TrustedFiles, WriteMakesMissingDirectoriesPrivate) {
  ScratchDir scratch;
  const std::string cache = scratch / "a/b/cache";
  std::string error;
  ASSERT_TRUE(trusted_files::write(cache, "entry", "contents", error)) << error;
  for (const std::string& dir : {scratch / "a", scratch / "a/b", cache}) {
    struct stat st;
    ASSERT_EQ(stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0700u) << dir;
  }
  std::string read;
  EXPECT_TRUE(trusted_files::read(cache, "entry", 100, read));
  EXPECT_EQ(read, "contents");
}

// A write that cannot be renamed into place (a directory holds the name)
// fails and leaves no temporary file.
TEST(TrustedFiles, FailedWriteLeavesNothing) {
  ScratchDir scratch;
  ASSERT_EQ(mkdir((scratch / "entry").c_str(), 0700), 0);
  write_file(scratch / "entry/inside", "x");
  std::string error;
  EXPECT_FALSE(trusted_files::write(scratch.path(), "entry", "contents", error));
  EXPECT_FALSE(error.empty());
  const auto after = snapshot(scratch.path());
  EXPECT_EQ(after.size(), 3u) << "the directory, entry/ and entry/inside only";
  EXPECT_EQ(after.at("entry/inside").contents, "x");
}

TEST(TrustedFiles, FifoIsRefusedWithoutWaitingForAWriter) {
  ScratchDir scratch;
  ASSERT_EQ(mkfifo((scratch / "entry").c_str(), 0600), 0);
  std::string read;
  EXPECT_FALSE(trusted_files::read(scratch.path(), "entry", 100, read));
}

TEST(TrustedFiles, EntryOverTheLimitIsRefused) {
  ScratchDir scratch;
  write_file(scratch / "entry", std::string(101, 'x'));
  std::string read;
  EXPECT_FALSE(trusted_files::read(scratch.path(), "entry", 100, read));
  EXPECT_TRUE(trusted_files::read(scratch.path(), "entry", 101, read));
}

TEST(TrustedFiles, GroupWritableEntryIsRefused) {
  ScratchDir scratch;
  write_file(scratch / "entry", "contents");
  ASSERT_EQ(chmod((scratch / "entry").c_str(), 0620), 0);
  std::string read;
  EXPECT_FALSE(trusted_files::read(scratch.path(), "entry", 100, read));
}

TEST(TrustedFiles, MissingDirectoryIsAbsentNotMade) {
  ScratchDir scratch;
  std::string read;
  EXPECT_FALSE(trusted_files::read(scratch / "cache", "entry", 100, read));
  EXPECT_FALSE(trusted_files::read("", "entry", 100, read));
  EXPECT_EQ(snapshot(scratch.path()).size(), 1u);
}

// Two refused reads of a group-writable directory, with stderr captured: the
// number of lines the warning took (printed again for the death test's
// pattern). The warning is once per process, so this runs in a process of its
// own.
int warning_lines_of_two_refusals() {
  ScratchDir scratch;
  write_file(scratch / "entry", "contents");
  chmod(scratch.path().c_str(), 0770);
  std::FILE* captured = std::tmpfile();
  const int saved = dup(2);
  dup2(fileno(captured), 2);
  std::string read;
  trusted_files::read(scratch.path(), "entry", 100, read);
  trusted_files::read(scratch.path(), "other", 100, read);
  std::fflush(stderr);
  dup2(saved, 2);
  std::rewind(captured);
  int lines = 0;
  for (int c; (c = std::fgetc(captured)) != EOF;) {
    std::fputc(c, stderr);
    lines += c == '\n';
  }
  std::fflush(stderr);
  return lines;
}

TEST(TrustedFiles, OneWarningPerProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(warning_lines_of_two_refusals()), ::testing::ExitedWithCode(1),
              "^switchyard: ignoring the cache directory .*: writable by group or others\n$");
}

}  // namespace
}  // namespace switchyard::test
