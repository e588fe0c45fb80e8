#pragma once

#include "fallback.hpp"

namespace switchyard::tsqr {

// The LAPACK/BLAS entry points the CPU TSQR calls, for T = float (s*) or double (d*): geqrf for
// shapes too short to split, trsm for the division by U. In the library those of the fallback,
// in tests those of reference LAPACK.
template <class T>
struct Lapack {
  GeqrfFn<T>* geqrf = nullptr;  // sgeqrf_ / dgeqrf_
  TrsmFn<T>* trsm = nullptr;    // strsm_ / dtrsm_

  bool complete() const { return geqrf && trsm; }
};

}  // namespace switchyard::tsqr
