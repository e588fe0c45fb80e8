#pragma once

// The program's own XERBLA, as LAPACK's test programs define it, recording each call: for the
// test programs that check which routine reported which argument. Included by one source file
// of each such program, which then exports it (ENABLE_EXPORTS), so that Switchyard and the
// reference LAPACK it opens both find it.

#include <cstddef>
#include <string>

struct RecordedXerbla {
  std::string name;
  int info = 0;
  int calls = 0;
};
inline RecordedXerbla handled;

extern "C" void xerbla_(const char* srname, const int* info, std::size_t len) {
  handled = {std::string(srname, len), *info, handled.calls + 1};
}
