// Reference LAPACK reached directly, past the names of Switchyard's that a test program linked
// with the library resolves to, and the values the tests poison outputs with and bound errors by.
#pragma once

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace switchyard::test {

// Reference LAPACK's routine `name` ("dgeqrt_"), as a function of type Fn; a missing one aborts.
template <class Fn>
Fn* reference_lapack(const char* name) {
  static void* const lapack = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
  void* s = lapack ? dlsym(lapack, name) : nullptr;
  if (!s) std::abort();
  return reinterpret_cast<Fn*>(s);
}

template <class T>
constexpr T eps() {
  return std::numeric_limits<T>::epsilon();
}

// What an output is filled with before a call, so that an element left unwritten shows.
template <class T>
T poison() {
  return std::numeric_limits<T>::quiet_NaN();
}

template <class T>
T max_abs(const std::vector<T>& v) {
  T big = 0;
  for (T x : v) big = std::max(big, std::abs(x));
  return big;
}

}  // namespace switchyard::test
