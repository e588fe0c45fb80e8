// What the benchmarks that run programs as a user would need to start them: a shell word, the
// programs installed beside this one, and the library to preload.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

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

// What a shell command prints, and its exit status as pclose gives it.
struct ChildOutput {
  bool started = false;  // whether popen could start it
  std::string text;
  int status = -1;
};

inline ChildOutput output_of(const std::string& command) {
  ChildOutput out;
  if (FILE* child = popen(command.c_str(), "r")) {
    out.started = true;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, child)) out.text += buffer;
    out.status = pclose(child);
  }
  return out;
}

// switchyard-bench-call's line "ms T0 T1 ... check C calls N", the last in `text`: the times,
// first call first, and the checksum and call count (left as they are where absent).
struct CallTimes {
  std::vector<double> ms;
  double check = 0;
  int calls = 0;
};

inline CallTimes call_times(const std::string& text) {
  CallTimes t;
  const std::size_t at = text.rfind("ms ");
  std::istringstream words(text.substr(at == std::string::npos ? 0 : at));
  std::string word;
  words >> word;  // "ms"
  while (words >> word && word != "check") t.ms.push_back(std::atof(word.c_str()));
  words >> t.check >> word >> t.calls;
  return t;
}

}  // namespace switchyard::bench
