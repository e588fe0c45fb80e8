#pragma once

#include "fallback.hpp"

namespace switchyard::tsqr {

// The LAPACK/BLAS entry points the CPU TSQR calls on its row blocks, for T = float (s*) or
// double (d*): in the library those of the fallback, in tests those of reference LAPACK.
template <class T>
struct Lapack {
  GeqrfFn<T>* geqrf = nullptr;  // sgeqrf_ / dgeqrf_
  OrgqrFn<T>* orgqr = nullptr;  // sorgqr_ / dorgqr_
  GemmFn<T>* gemm = nullptr;    // sgemm_ / dgemm_
  TrsmFn<T>* trsm = nullptr;    // strsm_ / dtrsm_

  bool complete() const { return geqrf && orgqr && gemm && trsm; }
};

}  // namespace switchyard::tsqr
