#pragma once

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

}  // namespace switchyard::tsqr
