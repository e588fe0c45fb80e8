#pragma once

// xORGQR and xORMQR (SIDE = 'L') on host threads, for tall matrices, from reflectors of any
// xGEQRF: Q = H(1) ... H(k) is applied in compact-WY blocks of up to kCpuBlock reflectors
// (fewer for xORMQR on a narrow C, where T would cost more than the products),
// B = I - V T V^T, each in two parallel passes over the rows it touches:
//
//   1. V^T V (its upper triangle) and V^T C, each thread over its own contiguous rows, its
//      partial sums added in thread order (so results depend on the thread count, never on
//      timing);
//   2. T from V^T V and tau, as xLARFT('F', 'C') defines it, then C -= V (op(T) V^T C).
//
// xORGQR runs the blocks last to first, as xORGQR does: a block is applied to the columns of Q
// already formed right of it, then its own columns are formed in place over its reflectors,
// E - V (T V1^T) with V1 the block's unit lower triangular top. Rows above a block stay zero in
// the columns it forms, so each block works on the rows from its first reflector's down.
// xORMQR runs them first to last for Q^T C and last to first for Q C.
//
// The flops are xORGQR's and xORMQR's, plus each block's V^T V; the products are Switchyard's
// own vectorised kernels (cpu_products.hpp).

#include <cstddef>

namespace switchyard::qr {

inline constexpr int kCpuBlock = 64;

enum CpuApplyStatus : int { kCpuApplied = 0, kCpuOutOfMemory = 1 };

// The reflectors per block apply_q_cpu takes for a C of nc columns: a block's T costs about
// m b^2 / 2 multiply-adds, its products with C 2 m b nc, so blocks of about 4 nc reflectors keep
// T's share at most half where C is narrow.
int apply_q_block(int nc);

// The flops form_q_cpu and apply_q_cpu do on a shape (each block's V^T V, its products and
// updates, and for form_q_cpu its own columns), for the router's model.
double form_q_flops(double m, int n, int k);
double apply_q_flops(double m, int nc, int k);

// A (m x n, lda >= m, m >= n >= k >= 0) holds k reflectors from xGEQRF (V below the diagonal of
// its first k columns, tau); overwrites A with Q's first n columns, on up to `threads` threads.
// kCpuOutOfMemory leaves A untouched.
template <class T>
int form_q_cpu(std::ptrdiff_t m, int n, int k, T* a, std::ptrdiff_t lda, const T* tau, int threads);

// C (m x nc, ldc >= m) becomes Q C (transpose false) or Q^T C, Q = H(1) ... H(k) of the k
// reflectors in A (m x k, m >= k >= 0). kCpuOutOfMemory leaves C untouched.
template <class T>
int apply_q_cpu(bool transpose, std::ptrdiff_t m, int nc, int k, const T* a, std::ptrdiff_t lda,
                const T* tau, T* c, std::ptrdiff_t ldc, int threads);

}  // namespace switchyard::qr
