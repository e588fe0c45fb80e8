// xGEQRT's T from xGEQRF's output. Q = H(1) ... H(k), H(i) = I - tau(i) v(i) v(i)^T, is cut into
// blocks of nb reflectors, and each block is I - V T V^T with T upper triangular, as xLARFT
// ('F', 'C') defines it: column by column, T(1:i-1, i) = -tau(i) T(1:i-1, 1:i-1) V^T v(i) and
// T(i, i) = tau(i), the column all zero where tau(i) = 0 (an H(i) that is the identity).
//
// V^T v(i) is column i of the block's Gram matrix V^T V, so T needs that one product of the
// block's rows, not xLARFT's matrix-vector product per column: one xSYRK of the rows below the
// block's unit triangle, plus that small triangle's own part.
#pragma once

#include <cstddef>

#include "fallback.hpp"

namespace switchyard {

// A holds V below its diagonal (m x n, lda), as xGEQRF leaves it, with tau; k = min(m, n).
// Block b's factor (ib = min(nb, k - b nb) reflectors from column b nb) goes to the upper
// triangle of T(0:ib, b nb : b nb + ib) (ldt >= nb); the rest of T is left as it was. `syrk` is
// the BLAS the Gram matrices are made by (of integer width I).
template <class T, class I>
void form_block_factors(SyrkFn<T, I>* syrk, int m, int n, int nb, const T* a, int lda, const T* tau,
                        T* t, int ldt);

// The tau of k reflectors whose block factors (blocks of nb) are in T (ldt): each reflector's
// tau is its T's diagonal entry, tau(i) = T(i - i0, i) for the block that starts at i0.
template <class T>
void taus_of_block_factors(int k, int nb, const T* t, int ldt, T* tau) {
  for (int i = 0; i < k; ++i) tau[i] = t[i % nb + std::size_t(i) * ldt];
}

}  // namespace switchyard
