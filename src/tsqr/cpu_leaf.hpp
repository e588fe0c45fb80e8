#pragma once

#include <cstddef>

// The CPU TSQR's own kernels for one row block (cpu_tsqr.hpp): the Householder factorization
// of the block, the product of its Q with a small matrix and the division by a triangular
// one, in place of the fallback's geqrf, orgqr, gemm and trsm. Their inner loops run over
// contiguous rows of a column and are compiled for several x86-64 levels, the best one chosen at
// run time. Results depend only on the inputs (and the level chosen), never on thread timing.

namespace switchyard::tsqr {

// The x86-64 level of the kernels' copy that runs on this CPU: 4 (AVX-512), 3 (AVX2 and FMA),
// else 1 (the baseline copy, and any build without the per-level copies).
int kernel_level();

// Factors column-major h x n A (h >= n >= 1, lda >= h) in place with xGEQRF's output: R on
// and above the diagonal, the Householder vectors V strictly below it (unit diagonal
// implicit) and tau, each reflector chosen as xLARFG chooses it (beta = -sign(alpha) ||x||,
// tau 0 or in [1, 2], the same safe-minimum rescaling). Also writes the upper triangle of the
// n x n T (ldt >= n) with H(1)...H(n) = I - V T V^T, as xLARFT('F', 'C') defines it.
// `work` holds factor_block_work(n) elements.
template <class T>
void factor_block(int h, int n, T* a, int lda, T* tau, T* t, int ldt, T* work);

int factor_block_work(int n);

// Elements of `work` that multiply_q needs for n columns.
int multiply_q_work(int n);

// Overwrites the h x n block A that factor_block left (V strictly below the diagonal, the rest
// ignored) with the first n columns of Q = I - V T V^T (h x h) times the n x n matrix S
// (lds >= n), i.e. Q [S; 0]: xORGQR followed by xGEMM, in one pass over the block. lda >= h
// may pass 2^31, so that the block can be a leaf of A itself.
template <class T>
void multiply_q(int h, int n, T* a, std::ptrdiff_t lda, const T* t, int ldt, const T* s, int lds,
                T* work);

// Elements of `work` that divide_by_upper needs for n columns.
int divide_by_upper_work(int n);

// B = B inv(U) for m x n B (ldb >= m) and n x n upper triangular U (ldu >= n, its diagonal
// nonzero): xTRSM('R', 'U', 'N', 'N') with alpha = 1.
template <class T>
void divide_by_upper(int m, int n, const T* u, std::ptrdiff_t ldu, T* b, std::ptrdiff_t ldb,
                     T* work);

}  // namespace switchyard::tsqr
