// Temporary directories for the on-disk cache's tests, and a record of what a
// tree holds, to show that a refused cache wrote and changed nothing.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <map>
#include <ostream>
#include <string>

namespace switchyard::test {

// A user id no test runs as, for planting files of someone else's.
inline constexpr uid_t kOtherUser = 12345;

// A new directory of mode 0700 under $TMPDIR (else /tmp), removed with all it
// holds when the object goes (symbolic links removed, never followed).
class ScratchDir {
 public:
  ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// What lstat and the contents say of one file, directory or link.
struct FileState {
  mode_t mode = 0;
  uid_t owner = 0;
  struct timespec modified {};
  std::string contents;  // a file's bytes, or a link's target

  bool operator==(const FileState& o) const;
};
void PrintTo(const FileState& s, std::ostream* out);  // for GoogleTest's messages

// Every path under `root` (relative to it), with its state; links not followed.
std::map<std::string, FileState> snapshot(const std::string& root);

// The bytes of a file, and a file made of bytes (mode 0600).
std::string file_contents(const std::string& path);
void write_file(const std::string& path, const std::string& contents);

}  // namespace switchyard::test
