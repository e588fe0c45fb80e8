#pragma once

// xGELS with TRANS = 'N' for tall A (m >= n) on a CUDA GPU, the whole call in one trip: A and B
// go to the device once (or are worked on where they lie, in device or managed memory), where
// xGELS's scaling test (xLANGE's largest magnitude against its thresholds), A's QR
// (tsqr/gpu_tsqr.hpp) and Q^T B (gpu_apply_q.hpp) run; A's factors and B come back, and the
// n x n triangular solve runs on the host in the fallback's xTRTRS, as xGELS itself calls it,
// so that a singular R gives the INFO it gives.
//
// The output is xGELS's: A holds its QR factors as xGEQRF leaves them, B(1:n, :) the solution,
// B(n+1:m, :) the residual's components; WORK(1:n) tau, as xGELS leaves it there, and INFO > 0
// where R(INFO, INFO) is zero (B then holds Q^T B). A problem xGELS would scale first (the
// largest magnitude of A or B is below its safe minimum over epsilon, or above the inverse,
// or A is zero) is left to the fallback, untouched.

#include <functional>
#include <string>

#include "fallback.hpp"

namespace switchyard::qr {

// The widest A the route takes: the GPU QR's.
constexpr int kGpuMaxLeastSquaresColumns = 256;

enum class GelsOutcome {
  kSolved,        // A, B, tau and INFO written
  kNeedsScaling,  // nothing written: xGELS would scale A or B, or A is zero
  kFailed,        // nothing written (host data): `error` says why
};

// The problem left on R once Q^T B is formed, solved on the host in place: R (n x n, ld n, in
// its upper triangle; below it A's reflectors) and the top n rows of Q^T B (ld n), which it
// overwrites with the solution. Returns its INFO.
template <class T>
using SmallSolve = std::function<int(T* r, T* top)>;

// m >= n >= 1, n <= kGpuMaxLeastSquaresColumns, nrhs >= 1, lda >= m, ldb >= m: the steps above
// with `solve_small` in xTRTRS's place (xGELSD's: the fallback's xGELSD of R). `tau` (n
// elements, host memory) receives A's tau, `info` what `solve_small` returned.
template <class T>
GelsOutcome least_squares_on_r_gpu(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* tau,
                                   const SmallSolve<T>& solve_small, int* info, std::string& error);

// xGELS's: least_squares_on_r_gpu with the fallback's xTRTRS; `info` its INFO.
template <class T>
GelsOutcome solve_least_squares_gpu(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* tau,
                                    TrtrsFn<T>* trtrs, int* info, std::string& error);

}  // namespace switchyard::qr
