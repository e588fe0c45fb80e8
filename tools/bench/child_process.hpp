// What the benchmarks that run programs as a user would need to start them: a shell word, the
// programs installed beside this one, and the library to preload.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <string>

#include "switchyard.h"

namespace switchyard::bench {

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

// The program beside this one, or the name (then found on the PATH).
inline std::string sibling(const char* name) {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return name;
  self[length] = 0;
  const std::string dir(self);
  return dir.substr(0, dir.rfind('/') + 1) + name;
}

// The Switchyard library this program runs with, to preload in its children.
inline std::string library_path() {
  Dl_info where{};
  if (dladdr(reinterpret_cast<const void*>(&switchyard_version), &where) && where.dli_fname) {
    return where.dli_fname;
  }
  return "libswitchyard.so";
}

}  // namespace switchyard::bench
