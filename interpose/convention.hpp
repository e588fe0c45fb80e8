// The conventions of the exported names (docs/ilp64.md, docs/pip-wheels.md). A convention
// says what integer its names take, which library its calls are handed on to, and where its
// error handlers (XERBLA and the others) are found. The checked entries (entry.hpp) are
// written once and instantiated per convention; each names_*.cpp exports one convention.
#pragma once

#include <dlfcn.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include "calibration.hpp"
#include "fallback.hpp"
#include "routine.hpp"
#include "trace.hpp"

namespace switchyard {

// dgemm_, cblas_dgemm, LAPACKE_dgeqrf: reference BLAS/LAPACK's names and integers.
struct Lp64 {
  using Int = int;
  static const Fallback& next() { return fallback(); }
  // The BLAS routines alone, so that a BLAS call the router does not weigh never resolves the
  // LAPACK ones.
  static const BlasFallback& next_blas() { return fallback_blas(); }
  // The figures the router weighs its calls by (calibration.hpp).
  static const Calibration& figures() { return calibration(); }
  // What each call makes sure of first: nothing here, the fallback is found when needed.
  static void check_library() {}
  // The program's own handler, else its BLAS/LAPACK's: xerbla_.
  static void* handler(const char* plain) { return dlsym(RTLD_DEFAULT, plain); }
};

// 64-bit integers under the names of ilp64_suffix: dgemm_64_ in libswitchyard.so, dgemm_
// in libswitchyard64.so.
struct Ilp64 {
  using Int = std::int64_t;
  static const Fallback64& next() { return fallback64(); }
  static const BlasFallback64& next_blas() { return fallback64_blas(); }
  // Debian's 64-bit libraries are the 32-bit ones built again: weighed as those.
  static const Calibration& figures() { return calibration(); }
  static void check_library() {}
  static void* handler(const char* plain) {
    return dlsym(RTLD_DEFAULT, (std::string(plain) + ilp64_suffix).c_str());
  }
};

// scipy_dgemm_, scipy_cblas_dgemm: the names SciPy's wheels call in their bundled OpenBLAS
// (the scipy-openblas32 build), with 32-bit integers. The calls are handed on to that
// library, which is found and its integer width checked on the first call (wheel_fallback.cpp).
struct ScipyOpenblas32 {
  using Int = int;
  static const Fallback& next() { return wheel_fallback(); }
  static const BlasFallback& next_blas() { return next(); }
  // Weighed by that OpenBLAS's figures, not by the reference-named fallback's; found once.
  static const Calibration& figures() {
    static const Calibration& found = calibration_of(next().lapack_origin);
    return found;
  }
  // Before a call is checked or routed: a library of the other width means that the callers'
  // integers are not what the names say, and nothing may run (docs/pip-wheels.md).
  static void check_library() { wheel_fallback(); }
  static void* handler(const char* plain) { return wheel_handler(plain, false); }
};

// scipy_dgemm_64_, scipy_cblas_dgemm64_: NumPy's wheels' names in theirs (scipy-openblas64),
// with 64-bit integers.
struct ScipyOpenblas64 {
  using Int = std::int64_t;
  static const Fallback64& next() { return wheel_fallback64(); }
  static const BlasFallback64& next_blas() { return next(); }
  static const Calibration& figures() {
    static const Calibration& found = calibration_of(next().lapack_origin);
    return found;
  }
  static void check_library() { wheel_fallback64(); }
  static void* handler(const char* plain) { return wheel_handler(plain, true); }
};

template <class C>
using Int = typename C::Int;

// Whether every integer argument of a call fits an int; always so for a 32-bit call.
template <class C, class... V>
bool fits_int(V... v) {
  if constexpr (std::is_same_v<Int<C>, int>) {
    return true;
  } else {
    return ((v >= INT_MIN && v <= INT_MAX) && ...);
  }
}

// A 64-bit call with an integer past the int range: no route can take it, so
// `run` hands it to the 64-bit fallback as the caller made it. Traced as
// every call is.
template <class Run>
void run_too_wide(Routine r, const Shape& s, Run&& run) {
  CallRecord record(r, s);
  Decision d;
  std::snprintf(d.reason, sizeof d.reason,
                "sizes past 2^31: the routes take 32-bit integers, the 64-bit fallback runs it");
  record.set_decision(d);
  run();
}

}  // namespace switchyard
