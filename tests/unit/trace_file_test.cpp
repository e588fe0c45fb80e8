// SWITCHYARD_TRACE's file: appended to when it is a regular file, refused with
// one line when a symbolic link or anything else stands at its name.
#include "trace_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch_dir.hpp"

namespace switchyard::test {
namespace {

// What open_trace_file returns and prints, the descriptor closed.
struct Opened {
  bool ok;
  std::string stderr_text;
};

Opened open_and_append(const std::string& path, const std::string& line) {
  testing::internal::CaptureStderr();
  const int fd = open_trace_file(path);
  Opened result{fd >= 0, testing::internal::GetCapturedStderr()};
  if (fd >= 0) {
    EXPECT_EQ(write(fd, line.data(), line.size()), ssize_t(line.size()));
    close(fd);
  }
  return result;
}

TEST(TraceFile, MadeWhenMissingAndAppendedTo) {
  ScratchDir scratch;
  const std::string path = scratch / "trace";
  const mode_t mask = umask(022);
  EXPECT_TRUE(open_and_append(path, "one\n").ok);
  umask(mask);
  EXPECT_TRUE(open_and_append(path, "two\n").ok);
  EXPECT_EQ(file_contents(path), "one\ntwo\n");
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

// A link planted at the trace's name (in /tmp, say) pointing at one of the
// user's files: the file is left as it was and the warning says why.
TEST(TraceFile, SymbolicLinkIsNotFollowed) {
  ScratchDir scratch;
  const std::string target = scratch / "precious";
  write_file(target, "keep me\n");
  ASSERT_EQ(symlink(target.c_str(), (scratch / "trace").c_str()), 0);
  const Opened opened = open_and_append(scratch / "trace", "trace line\n");
  EXPECT_FALSE(opened.ok);
  EXPECT_EQ(file_contents(target), "keep me\n");
  EXPECT_EQ(opened.stderr_text, "switchyard: SWITCHYARD_TRACE=" + scratch / "trace" +
                                    " is a symbolic link, which is not followed; no trace\n");
}

TEST(TraceFile, DeviceIsRefused) {
  const Opened opened = open_and_append("/dev/null", "");
  EXPECT_FALSE(opened.ok);
  EXPECT_EQ(opened.stderr_text,
            "switchyard: SWITCHYARD_TRACE=/dev/null is not a regular file; no trace\n");
}

TEST(TraceFile, UnopenablePathSaysWhy) {
  const Opened opened = open_and_append("/nonexistent/trace", "");
  EXPECT_FALSE(opened.ok);
  EXPECT_EQ(opened.stderr_text, "switchyard: SWITCHYARD_TRACE=/nonexistent/trace cannot be "
                                "opened (No such file or directory); no trace\n");
}

}  // namespace
}  // namespace switchyard::test
