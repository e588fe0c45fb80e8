// The device operations that apply Q = H(0) ... H(k-1) = I - V T V^T, given as xGEQRF leaves
// it (V strictly below the diagonal of an m x k matrix, implicit unit diagonal, tau), to a
// tall matrix in one compact-WY block: the GPU xORGQR and xORMQR (src/qr/gpu/wy_block.cpp drives them).
//
// All of them read V through the same mask: V(i, j) is 0 above the diagonal, 1 on it and
// a(i, j) below it, whatever the upper triangle of a holds (R, for xGEQRF's output).
// They handle k <= kWyMaxReflectors reflectors and w <= kWyMaxColumns columns, and are
// launched asynchronously on `stream`; the returned cudaError_t is the launch status only.
#pragma once

#include <cuda_runtime_api.h>

namespace switchyard::kernels {

constexpr int kWyMaxReflectors = 64;
constexpr int kWyMaxColumns = 64;
// Rows a thread block sums over in wy_tall_product: one k x w partial sum each.
constexpr int kWyBlockRows = 2048;

// xGEQRF's reflectors from row `row0` of V on: a's row i is V's row row0 + i, so that a device
// holding rows of V from row0 on (a split call, split_apply.hpp) masks V's unit diagonal and
// the zeros above it where they lie, not in its own first rows.
template <class T>
struct Reflectors {
  const T* a;
  long long lda;
  int k;
  long long row0 = 0;
};

// For each block b of kWyBlockRows rows in [first_row, first_row + rows) (first_row a
// multiple of kWyBlockRows), partials[b k w' ...] = V(rows of b, :)^T X(rows of b, :), k x w'
// with leading dimension k. X is v itself (w' = k) when x is null; else x (w' = w), or with
// `with_gram` [V x] (w' = k + w <= kWyMaxColumns), so that one pass over V gives V^T V and
// V^T x side by side. Rows run to m.
template <class T>
cudaError_t wy_tall_product(Reflectors<T> v, bool with_gram, long long m, const T* x, long long ldx, int w,
                            long long first_row, long long rows, T* partials,
                            cudaStream_t stream);

// sum[e] = sum over b < blocks of partials[b * entries + e], added in an order fixed by
// `blocks` alone (the same result on every run).
template <class T>
cudaError_t wy_sum_partials(const T* partials, int blocks, int entries, T* sum,
                            cudaStream_t stream);

// One thread block: T from tau and the Gram matrix V^T V (k x k, ld k) as xLARFT forms it,
// then w_out = op(T) B, k x w with leading dimension k, where op(T) is T^T when `transpose`
// and B is b (k x w, ld k), or V's top w rows transposed when b is null.
template <class T>
cudaError_t wy_form_w(Reflectors<T> v, const T* tau, const T* gram, const T* b, int w,
                      bool transpose, T* w_out, cudaStream_t stream);

// out(i, :) <- base(i, :) - V(i, :) W for rows i in [first_row, first_row + rows), m x w
// out, W k x w with ld k; base is out itself, or the identity's first w columns (its row
// v.row0 + i) when `identity_base`. out may be v's own storage: each block reads its rows of V
// before it writes them.
template <class T>
cudaError_t wy_apply(Reflectors<T> v, long long m, const T* w_matrix, int w,
                     long long first_row, long long rows, bool identity_base, T* out,
                     long long ld_out, cudaStream_t stream);

}  // namespace switchyard::kernels
