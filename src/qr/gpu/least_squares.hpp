#pragma once

// Layer 3 of the GPU QR (docs/qr-code.md), in gels.cpp: least squares for tall A (m >= n), the part
// that xGELS (TRANS = 'N') and xGELSD share, in one trip. A and B go to the device once (or are
// worked on where they lie, in device or managed memory), where the driver's scaling test
// (xLANGE's largest magnitude against its thresholds), A's QR (blocked_qr.hpp) and Q^T B
// (wy_block.hpp) run; R and the top n rows of Q^T B come to the host, where the problem left
// on R is solved (xGELS: the fallback's xTRTRS, as xGELS itself calls it, so that a singular
// R gives the INFO it gives; xGELSD: its xGELSD of R); A's factors and B then go back.
//
// The output is xGELS's: A holds its QR factors as xGEQRF leaves them, B(1:n, :) the solution,
// B(n+1:m, :) the residual's components; tau as xGELS leaves it in WORK(1:n), and INFO > 0
// where R(INFO, INFO) is zero (B then holds Q^T B). A problem xGELS would scale first (the
// largest magnitude of A or B below its safe minimum over epsilon, or above the inverse, or A
// zero) is left to the fallback, untouched.

#include <functional>
#include <string>

#include "fallback.hpp"
#include "qr/gpu/outcome.hpp"

namespace switchyard::qr::gpu {

// The widest A the least-squares drivers take: the GPU QR's.
constexpr int kMaxLeastSquaresColumns = 256;

// The problem left on R once Q^T B is formed, solved on the host in place: R (n x n, ld n, in
// its upper triangle; below it A's reflectors) and the top n rows of Q^T B (ld n), which it
// overwrites with the solution. Returns its INFO.
template <class T>
using SmallSolve = std::function<int(T* r, T* top)>;

// m >= n >= 1, n <= kMaxLeastSquaresColumns, nrhs >= 1, lda >= m, ldb >= m: the steps above
// with `solve_small`. `tau` (n elements, host memory) receives A's tau, `info` what
// `solve_small` returned.
template <class T>
Outcome least_squares_on_r_gpu(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* tau,
                               const SmallSolve<T>& solve_small, int* info, std::string& error);

// xGELS's: least_squares_on_r_gpu with the fallback's xTRTRS; `info` its INFO.
template <class T>
Outcome gels_gpu(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* tau, TrtrsFn<T>* trtrs,
                 int* info, std::string& error);

}  // namespace switchyard::qr::gpu
