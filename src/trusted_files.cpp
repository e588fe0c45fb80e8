#include "trusted_files.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

namespace switchyard::trusted_files {
namespace {

// A file descriptor closed when it goes out of scope.
class Descriptor {
 public:
  Descriptor() = default;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }
  // Closes it now, for the caller to see a failure (a write reported late).
  bool close_now() {
    const int fd = fd_;
    fd_ = -1;
    return close(fd) == 0;
  }

 private:
  int fd_ = -1;
};

enum class Found { trusted, absent, refused };

// One line per process: a program that makes many calls should not repeat it.
void warn_once(const std::string& what, const std::string& reason) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    std::fprintf(stderr, "switchyard: ignoring the cache %s: %s\n", what.c_str(), reason.c_str());
  }
}

// Why an opened file is not trusted, or "" when it is.
std::string distrust(const struct stat& st, bool directory) {
  if (directory && !S_ISDIR(st.st_mode)) return "not a directory";
  if (!directory && !S_ISREG(st.st_mode)) return "not a regular file";
  if (st.st_uid != geteuid()) {
    return "owned by uid " + std::to_string(st.st_uid) + ", not by " + std::to_string(geteuid());
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
  return "";
}

// Why `name` (relative to the directory `at`) failed to open without following
// a link at its end: a planted symbolic link is told from other errors.
std::string open_failure(int at, const std::string& name, int error) {
  struct stat st;
  if (fstatat(at, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    return "a symbolic link";
  }
  return std::strerror(error);
}

// A trailing slash would make open() follow a symbolic link at the end.
std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

Found open_directory(const std::string& path, Descriptor& dir, std::string& reason) {
  dir.reset(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0) {
    const int error = errno;
    reason = open_failure(AT_FDCWD, path, error);
    if (error == ENOENT) return Found::absent;
  } else {
    struct stat st;
    reason = fstat(dir.get(), &st) == 0 ? distrust(st, true) : std::strerror(errno);
  }
  if (reason.empty()) return Found::trusted;
  warn_once("directory " + path, reason);
  return Found::refused;
}

// O_NONBLOCK so that a FIFO at the entry's name cannot stall the open.
Found open_entry(const Descriptor& dir, const std::string& path, const std::string& name,
                 Descriptor& file, struct stat& st) {
  file.reset(openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  std::string reason;
  if (file.get() < 0) {
    if (errno == ENOENT) return Found::absent;
    reason = open_failure(dir.get(), name, errno);
  } else {
    reason = fstat(file.get(), &st) == 0 ? distrust(st, false) : std::strerror(errno);
  }
  if (reason.empty()) return Found::trusted;
  warn_once("entry " + path + "/" + name, reason);
  return Found::refused;
}

// Each missing directory of the path, mode 0700.
bool make_directories(const std::string& path) {
  for (std::size_t at = 1; at <= path.size(); ++at) {
    if (at == path.size() || path[at] == '/') {
      if (mkdir(path.substr(0, at).c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

// A name no other writer guesses: 64 random bits, or if the kernel has none
// to give, bits of the clock, the process and a counter (O_EXCL still keeps
// an existing file from being taken over).
std::string temporary_name(const std::string& name) {
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t bits = 0;
  if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) != ssize_t(sizeof bits)) {
    bits = std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
           (std::uint64_t(getpid()) << 32) ^ (++counter * 0x9e3779b97f4a7c15ull);
  }
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, ".%016llx", (unsigned long long)bits);
  return "." + name + suffix;
}

bool write_all(int fd, const std::string& contents) {
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t wrote = ::write(fd, contents.data() + done, contents.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    done += std::size_t(wrote);
  }
  return true;
}

}  // namespace

bool read(const std::string& directory, const std::string& name, std::size_t max_bytes,
          std::string& contents) {
  if (directory.empty()) return false;
  const std::string path = without_trailing_slashes(directory);
  Descriptor dir, file;
  std::string reason;
  struct stat st;
  if (open_directory(path, dir, reason) != Found::trusted ||
      open_entry(dir, path, name, file, st) != Found::trusted ||
      std::uint64_t(st.st_size) > max_bytes) {
    return false;
  }
  // Read straight into the string, sized one byte past what fstat said so
  // that a file grown since is seen (and held to the limit).
  std::string text(std::size_t(st.st_size) + 1, '\0');
  std::size_t have = 0;
  for (;;) {
    if (have == text.size()) {
      if (have > max_bytes) return false;
      text.resize(std::min(max_bytes + 1, 2 * have));
    }
    const ssize_t got = ::read(file.get(), &text[have], text.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) break;
    have += std::size_t(got);
  }
  if (have > max_bytes) return false;
  text.resize(have);
  contents = std::move(text);
  return true;
}

bool write(const std::string& directory, const std::string& name, const std::string& contents,
           std::string& error) {
  if (directory.empty()) {
    error = "no cache directory (set SWITCHYARD_CACHE_DIR or HOME)";
    return false;
  }
  const std::string path = without_trailing_slashes(directory);
  Descriptor dir;
  if (!make_directories(path)) {
    error = "cannot make " + path + ": " + std::strerror(errno);
    return false;
  }
  std::string reason;
  if (open_directory(path, dir, reason) != Found::trusted) {
    error = path + " is not used: " + reason;
    return false;
  }
  std::string temporary;
  Descriptor file;
  for (int attempt = 0; attempt < 8 && file.get() < 0; ++attempt) {
    temporary = temporary_name(name);
    file.reset(openat(dir.get(), temporary.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (file.get() < 0 && errno != EEXIST) break;
  }
  if (file.get() < 0) {
    error = "cannot create a file in " + path + ": " + std::strerror(errno);
    return false;
  }
  const bool written = write_all(file.get(), contents);
  const int write_error = errno;
  if (file.close_now() && written &&
      renameat(dir.get(), temporary.c_str(), dir.get(), name.c_str()) == 0) {
    return true;
  }
  error = "cannot write " + path + "/" + name + ": " + std::strerror(written ? errno : write_error);
  unlinkat(dir.get(), temporary.c_str(), 0);
  return false;
}

}  // namespace switchyard::trusted_files
