#pragma once

#include <algorithm>

#include "fallback.hpp"

namespace switchyard::tsqr {

// The LAPACK entry points the CPU TSQR calls, for T = float (s*) or double (d*): geqrf, for the
// shapes too short to split; geqp3 and orgqr, for the pivoted factorization's small QR of R (and
// geqp3 for its shapes too short to split). In the library the fallback's, in tests reference
// LAPACK's.
template <class T>
struct Lapack {
  GeqrfFn<T>* geqrf = nullptr;  // sgeqrf_ / dgeqrf_
  Geqp3Fn<T>* geqp3 = nullptr;  // sgeqp3_ / dgeqp3_
  OrgqrFn<T>* orgqr = nullptr;  // sorgqr_ / dorgqr_

  bool complete() const { return geqrf != nullptr; }
  bool complete_for_pivoting() const { return geqp3 != nullptr && orgqr != nullptr; }
};

// LAPACK answers a workspace query in WORK(1) as a floating-point number.
template <class T>
int lwork_from_query(T answer) {
  return std::max(1, int(answer + T(0.5)));
}

// The fallback library's entries, as the library's routes call them.
template <class T>
Lapack<T> fallback_lapack() {
  const Fallback& f = fallback();
  if constexpr (sizeof(T) == sizeof(float)) {
    return {f.sgeqrf, f.sgeqp3, f.sorgqr};
  } else {
    return {f.dgeqrf, f.dgeqp3, f.dorgqr};
  }
}

}  // namespace switchyard::tsqr
