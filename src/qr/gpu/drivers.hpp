#pragma once

// Layer 3 of the GPU QR (docs/qr-code.md): the drivers of xGEQRF, xGEQP3, xORGQR and xORMQR,
// each in its own file (geqrf.cpp, ...) with the route that weighs and calls it. The
// least-squares and SVD drivers are in least_squares.hpp and svd_on_r.hpp.
//
// Each takes its matrices wherever they are (residence.hpp) and returns true on success.
// Otherwise `error` says why and, for data in host memory, nothing was written, so that the
// caller can run the fallback instead.

#include <string>

#include "qr/gpu/blocked_qr.hpp"
#include "qr/gpu/tsqr_tree.hpp"
#include "qr/gpu/wy_block.hpp"
#include "tsqr/lapack_table.hpp"

namespace switchyard::qr::gpu {

// xGEQRF of column-major m x n A (m >= n >= 1, n <= kMaxColumns, lda >= m), with its output
// contract.
template <class T>
bool geqrf_gpu(int m, int n, T* a, int lda, T* tau, std::string& error);

// The widest A the GPU pivoted QR takes: one TSQR, whose R is pivoted on the host.
constexpr int kMaxPivotedColumns = kTsqrMaxColumns;

// xGEQP3's column-pivoted factorization of A (m >= n >= 1, n <= kMaxPivotedColumns) by one
// TSQR, as cpu_tsqr.hpp's factor_pivoted_cpu makes it: between the tree's reduction and the
// reconstruction the root's R comes to the host, where `lapack`'s xGEQP3 and xORGQR give
// R P = Q2 R2 (JPVT as xGEQP3 takes and gives it); the tree's Q is then formed as Q [Q2; 0]
// and the reconstruction reads R2. `work1` receives WORK(1) as the small xGEQP3 left it. On
// failure JPVT is untouched too.
template <class T>
bool geqp3_gpu(int m, int n, T* a, int lda, int* jpvt, T* tau, const tsqr::Lapack<T>& lapack,
               T* work1, std::string& error);

// xORGQR: overwrites the m x n A, whose first k columns hold the reflectors, with the first n
// columns of Q (1 <= k <= n <= kWideMax, n <= m, lda >= m, q_blocks_fit(n, k)).
template <class T>
bool orgqr_gpu(int m, int n, int k, T* a, int lda, const T* tau, std::string& error);

// xORMQR with SIDE = 'L': C (m x nc) <- Q C, or Q^T C when `transpose` (1 <= k <= kWideMax,
// k <= m, 1 <= nc <= kWideMax).
template <class T>
bool ormqr_gpu(bool transpose, int m, int nc, int k, const T* a, int lda, const T* tau, T* c,
               int ldc, std::string& error);

}  // namespace switchyard::qr::gpu
