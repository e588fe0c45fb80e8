#include "trace_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace switchyard {
namespace {

int refuse(const std::string& path, const char* why) {
  std::fprintf(stderr, "switchyard: SWITCHYARD_TRACE=%s %s; no trace\n", path.c_str(), why);
  return -1;
}

}  // namespace

int open_trace_file(const std::string& path) {
  // O_NOFOLLOW: a symbolic link at the name fails with ELOOP instead of being
  // followed. O_NONBLOCK: a FIFO planted there fails instead of blocking the
  // program until someone reads it; it changes nothing for a regular file.
  const int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;
  const int fd = open(path.c_str(), flags, 0644);
  if (fd < 0) {
    if (errno == ELOOP) return refuse(path, "is a symbolic link, which is not followed");
    const std::string why = std::string("cannot be opened (") + std::strerror(errno) + ")";
    return refuse(path, why.c_str());
  }
  // Checked on the descriptor itself, so nothing can swap the file after the check.
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return refuse(path, "is not a regular file");
  }
  return fd;
}

}  // namespace switchyard
