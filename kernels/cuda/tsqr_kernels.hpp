// The device operations of the GPU TSQR (src/qr/gpu/tsqr_tree.cpp drives them).
//
// A matrix is cut into row blocks of kTsqrBlockRows rows; the last one may be short and is
// padded with zero rows inside the kernels. Every operation handles n <= kTsqrMaxColumns
// columns and is launched asynchronously on `stream`; the returned cudaError_t is the launch
// status only.
//
// Formats shared by the operations, per block b of a matrix with n columns:
// - after factor_blocks, the block's rows hold its Householder QR in xGEQRF's layout (R on and
//   above the diagonal, V strictly below it with an implicit unit diagonal), tau[b n + j] its
//   reflector coefficients, and gram[b n n + i + j n] = v_i^T v_j for i < j (the strict upper
//   triangle of V^T V, the rest unset); the block's R, zero below the diagonal, is written to
//   rows [b n, b n + n) of r_out.
// - form_blocks overwrites the block's rows of `out` with H(0) ... H(n-1) [X_b; 0], the block's
//   Q applied to the n x n matrix X_b = rows [b n, b n + n) of x (or the identity when x is
//   null): the explicit Q of a reduction tree, one level at a time, top down.
#pragma once

#include <cuda_runtime_api.h>

namespace switchyard::kernels {

constexpr int kTsqrBlockRows = 256;
constexpr int kTsqrMaxColumns = 64;

// Blocks [first_block, first_block + blocks) of the m x n matrix a.
template <class T>
cudaError_t tsqr_factor_blocks(int m, int n, T* a, long long lda, int first_block, int blocks,
                               T* tau, T* gram, T* r_out, long long ld_r, cudaStream_t stream);

// Blocks [first_block, first_block + blocks) of the m x n matrix v (factored by
// tsqr_factor_blocks); out may be v itself. Where nonzero_columns is not null, column j's flag
// is set when the block's output column j holds a nonzero (or NaN) outside rows [0, n) of the
// whole matrix, of which v's rows start rows_above rows in (0 unless v is one part of a matrix
// split over devices).
template <class T>
cudaError_t tsqr_form_blocks(int m, int n, const T* v, long long ldv, int first_block, int blocks,
                             const T* tau, const T* gram, const T* x, long long ldx, T* out,
                             long long ld_out, int* nonzero_columns, long long rows_above,
                             cudaStream_t stream);

// Householder reconstruction of the explicit thin Q's top n x n block q1 (one thread block):
// the LU factorization without pivoting Q1 - S = L U with s(j) = -sign(pivot j), written to lu
// (L strictly below the diagonal, U on and above it, ld n), s, and inv(U) (ld n, zero below
// the diagonal).
template <class T>
cudaError_t tsqr_reconstruct(int n, const T* q1, long long ldq, T* lu, T* s, T* u_inverse,
                             cudaStream_t stream);

// Writes the top n x n of a (V1 below the diagonal, S R above it) and tau from the
// reconstruction. A reflector whose vector is e(j) (nonzero_columns[j] == 0 and V1's column j
// zero) becomes tau = 0 with row j of R negated, as xGEQRF reports an already reduced column.
template <class T>
cudaError_t tsqr_finish(int n, const T* lu, const T* s, const T* r, const int* nonzero_columns,
                        T* a, long long lda, T* tau, cudaStream_t stream);

}  // namespace switchyard::kernels
