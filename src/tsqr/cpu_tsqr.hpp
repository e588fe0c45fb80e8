#pragma once

// Multithreaded tall-skinny QR (TSQR) for the CPU whose output follows LAPACK xGEQRF's contract.
//
// 1. The rows of A are split into p cache-sized blocks of at least n rows; each block is
//    factored with Switchyard's own kernel (cpu_leaf.hpp: xGEQRF's output plus the compact WY
//    T of the block's reflectors) on a worker thread, and its n x n R factor is copied into a
//    (p n) x n stack.
// 2. The stack is factored by the same kernels (giving R) and its explicit Q, the reduction Q,
//    is formed: block i's rows of the thin Q of A are (block i's Q) [slice i of the reduction
//    Q; 0], which multiply_q (cpu_leaf.hpp) forms in one pass over the block from its V and T.
//    A stack of two blocks' rows or more is itself reduced the same way, in parallel groups of
//    about a block's height whose R factors form the next stack, until a stack is shorter than
//    that; the explicit Q of each stack is then formed from the one above it.
// 3. Householder reconstruction (Ballard, Demmel, Grigori et al., "Reconstructing Householder
//    vectors from Tall-Skinny QR", 2015; LAPACK 3.10 xORHR_COL): block 0's rows of Q are formed
//    and Q1 - S = V1 U is factored by LU without pivoting, with Q1 the top n x n of Q and
//    S = diag(s), s(j) = -sign of the j-th pivot, so every pivot has magnitude >= 1.
//    V2 = Q2 inv(U): the slices of the reduction Q for blocks 1.. are divided by U, so
//    each block's multiply_q, in parallel, writes its rows of V2 directly over A.
//    tau(j) = -s(j) U(j,j), which lies in [1, 2], and R is replaced by S R.
//    Q S = H(1)...H(n) [I; 0] with H(j) = I - tau(j) v(j) v(j)^T, and s(j) reproduces xLARFG's
//    choice beta = -sign(alpha) ||x||, so V, tau and R are xGEQRF's up to rounding.
//
// Columns already reduced: where a reflector's vector is exactly zero below the diagonal the
// reconstruction yields v = e(j), tau = 2, i.e. a sign flip of row j. Such a reflector commutes
// with the later ones (their vectors vanish in row j), so it is replaced by tau(j) = 0 (H = I)
// and row j of R is negated instead, as xGEQRF reports it. An upper triangular A thus comes back
// unchanged with tau = 0, exactly as from xGEQRF, and so do leading zero columns. Every tau is
// therefore 0 or in [1, 2]. A column that is zero below the diagonal only after earlier
// reflectors (rank deficiency, e.g. a zero column after nonzero ones) gets tau = 0 from xGEQRF
// but a genuine reflector (tau in [1, 2]) here, whose Q column is another orthonormal completion;
// both satisfy the contract, and R then differs from xGEQRF's in those rows, as R is not unique.
//
// Cost: about 5 m n^2 flops against 2 m n^2 for xGEQRF (3 m n^2 to factor the blocks, T
// included, 2 m n^2 to form V2), in two parallel passes over A, each on cache-sized row blocks
// held in a copy (the second, up to 16 columns, on A's rows a few at a time); the stacks add about
// 5 p n^3 flops, in parallel but for the top one, whose cost is a block's or two. Extra memory: the
// stacks, an n x n T per block and per group, and one buffer of the larger of a block and a group
// per thread.

#include <cstddef>

#include "lapack_table.hpp"

namespace switchyard::tsqr {

enum Status : int {
  kOk = 0,
  // m < n, n < 1, lda < m, null pointers or threads < 1; or a shape too short to split (below)
  // whose lda passes 2^31
  kInvalidArgument = 1,
  kIncompleteTable = 2,  // a Lapack<T> entry the factorization needs is null
  kWorkspaceQuery = 3,   // a LAPACK workspace query reported an error
  kOutOfMemory = 4,
};

// Factors column-major m x n A (m >= n >= 1, lda >= m; m and lda may pass 2^31) in place with
// xGEQRF's output contract: R on and above the diagonal, Householder vectors V strictly below it
// (implicit unit diagonal), tau. Uses up to `threads` threads, the caller's included. Returns kOk
// on success; any other status means it did not run and A and tau are untouched, so the caller can
// fall back to geqrf. Shapes too short to split into two blocks are handed to lapack.geqrf
// directly, whose integers are 32-bit.
template <class T>
int factor_cpu(std::ptrdiff_t m, int n, T* a, std::ptrdiff_t lda, T* tau, const Lapack<T>& lapack,
               int threads);

// xGEQP3's column-pivoted factorization of the same A by the same TSQR: R of A is factored by
// the table's geqp3 (n x n, R P = Q2 R2, JPVT as xGEQP3 takes and gives it) and its Q2 formed
// by orgqr; the reduction Q is formed as Q [Q2; 0] in the pass that forms Q [I; 0] unpivoted, and
// the reconstruction reads R2. A then holds xGEQP3's output for A P: R2 (with the rows' signs
// the reconstruction sets) on and above the diagonal, V below, tau. In exact arithmetic the
// pivots are A's own, since Q leaves the columns' norms as they are; in floating point they may
// differ where columns' norms nearly tie, as they may between two LAPACKs. `work1` receives
// WORK(1) as the small geqp3 left it (for reference LAPACK, what xGEQP3 reports for A: its block
// sizes come from ILAENV for xGEQRF, which reads N, not M). Shapes too short to split go to
// lapack.geqp3 whole. Returns as factor_cpu; on any status but kOk, A, JPVT and tau are untouched.
template <class T>
int factor_pivoted_cpu(std::ptrdiff_t m, int n, T* a, std::ptrdiff_t lda, int* jpvt, T* tau,
                       const Lapack<T>& lapack, int threads, T* work1);

// factor_cpu with the block height chosen by the caller instead of from the cache size: blocks
// have block_rows rows (>= n), the last one also takes the remainder. Lets tests drive the
// reduction with many small blocks.
template <class T>
int factor_cpu_with_block_rows(std::ptrdiff_t m, int n, T* a, std::ptrdiff_t lda, T* tau,
                               const Lapack<T>& lapack, int threads, int block_rows);

// factor_pivoted_cpu with the block height chosen by the caller, as factor_cpu_with_block_rows.
template <class T>
int factor_pivoted_cpu_with_block_rows(std::ptrdiff_t m, int n, T* a, std::ptrdiff_t lda,
                                       int* jpvt, T* tau, const Lapack<T>& lapack, int threads,
                                       int block_rows, T* work1);

}  // namespace switchyard::tsqr
