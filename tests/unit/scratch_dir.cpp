#include "scratch_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace switchyard::test {
namespace {

int remove_one(const char* path, const struct stat*, int, struct FTW*) { return remove(path); }

void record(const std::string& root, const std::string& relative,
            std::map<std::string, FileState>& into) {
  const std::string path = relative.empty() ? root : root + "/" + relative;
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) throw std::runtime_error("cannot lstat " + path);
  FileState& s = into[relative];
  s.mode = st.st_mode;
  s.owner = st.st_uid;
  s.modified = st.st_mtim;
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    const ssize_t n = readlink(path.c_str(), target, sizeof target);
    s.contents.assign(target, n > 0 ? std::size_t(n) : 0);
  } else if (S_ISREG(st.st_mode)) {
    s.contents = file_contents(path);
  } else if (S_ISDIR(st.st_mode)) {
    DIR* dir = opendir(path.c_str());
    if (!dir) throw std::runtime_error("cannot list " + path);
    std::vector<std::string> names;
    while (const dirent* e = readdir(dir)) names.push_back(e->d_name);
    closedir(dir);
    for (const std::string& name : names) {
      if (name != "." && name != "..") {
        record(root, relative.empty() ? name : relative + "/" + name, into);
      }
    }
  }
}

}  // namespace

ScratchDir::ScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/switchyard-cache-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot make " + pattern);
  path_ = pattern;
}

ScratchDir::~ScratchDir() { nftw(path_.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS); }

bool FileState::operator==(const FileState& o) const {
  return mode == o.mode && owner == o.owner && modified.tv_sec == o.modified.tv_sec &&
         modified.tv_nsec == o.modified.tv_nsec && contents == o.contents;
}

void PrintTo(const FileState& s, std::ostream* out) {
  *out << "mode " << std::oct << s.mode << std::dec << ", uid " << s.owner << ", modified "
       << s.modified.tv_sec << "." << s.modified.tv_nsec << ", " << s.contents.size() << " bytes";
}

std::map<std::string, FileState> snapshot(const std::string& root) {
  std::map<std::string, FileState> states;
  record(root, "", states);
  return states;
}

std::string file_contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void write_file(const std::string& path, const std::string& contents) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const bool written =
      fd >= 0 && write(fd, contents.data(), contents.size()) == ssize_t(contents.size());
  if (fd >= 0) close(fd);
  if (!written) throw std::runtime_error("cannot write " + path);
}

}  // namespace switchyard::test
