#pragma once

// Layer 1 of the GPU QR (docs/qr-code.md): one TSQR with Householder reconstruction, as steps
// a driver calls in order, on a device-accessible A. The output is xGEQRF's.
//
// The rows are cut into blocks of 256, each factored in registers by one thread block; the
// stacked n x n R factors form the next level, until one block remains: a reduction tree of
// fan-in 256 / n. The explicit Q of that tree is needed twice: its top n x n (Q1) for the LU
// factorization Q1 - S = V1 U, and all of it for V2 = Q2 inv(U). The first comes from block 0
// alone, level by level; for the second, inv(U) is applied at the root, so that the one pass
// that forms Q down the tree writes V2 directly over A. Both passes start from an n x n matrix
// X at the root (the identity and inv(U) for xGEQRF); xGEQP3's driver puts its pivoted R's Q
// there.

#include <cuda_runtime_api.h>

#include <optional>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "tsqr_kernels.hpp"

namespace switchyard::qr::gpu {

// The widest one TSQR takes, and the rows of its blocks.
constexpr int kTsqrMaxColumns = kernels::kTsqrMaxColumns;
constexpr int kTsqrBlockRows = kernels::kTsqrBlockRows;

// The steps are enqueued on `stream`, each returning the first launch error; the kernels' own
// show when the stream is synchronized.
template <class T>
class TsqrTree {
 public:
  // The tree's workspace for A (m x n, m >= n >= 1, n <= kTsqrMaxColumns, device accessible),
  // from the device pool, ordered on `stream`.
  TsqrTree(int m, int n, T* a, long long lda, cudaStream_t stream);
  cudaError_t status() const { return workspace_.status(); }

  // 1. The leaf blocks covering A's rows [first, first + rows), first a multiple of
  //    kTsqrBlockRows: called as those rows arrive on the device.
  cudaError_t factor_leaves(long long first, long long rows);
  // 2. The levels above the leaves, up to the root's R (root_r()).
  cudaError_t reduce();
  // 3. Block 0's rows of the tree's Q times x (n x n, ld n, device; null for the identity):
  //    Q1 for the reconstruction.
  cudaError_t form_first_rows(const T* x);
  // 4. Q1 - S = L U, and inv(U) (u_inverse()).
  cudaError_t reconstruct();
  // 5. The tree's Q times x down to the leaves, written over A's rows (x null for inv(U): V2),
  //    then A's top n rows (V1 and S R) and tau (n elements, device).
  cudaError_t write_factors(const T* x, T* tau);
  // 5 in its two halves, for a matrix whose rows are split over several trees (split_tsqr.hpp):
  // the pass down, whose nonzero() flags count nonzeros past the whole matrix's first n rows
  // (A's rows start rows_above rows into it), and the top rows and tau, from this tree's
  // reconstruction, root_r() and nonzero().
  cudaError_t write_q(const T* x, long long rows_above);
  cudaError_t write_top(T* tau);

  // 2 to 5 for xGEQRF, once every leaf is factored.
  cudaError_t finish(T* tau);

  // n x n, ld n, on the device.
  T* root_r() const { return r_; }
  T* u_inverse() const { return u_inverse_; }
  // Per column, n flags on the device: write_q wrote a nonzero (or NaN) into V2.
  int* nonzero() const { return nonzero_; }

 private:
  // One level: its matrix (A at level 0, the stacked R factors of the level below otherwise)
  // and the per-block outputs of its factorization.
  struct Level {
    long long rows, ld;
    int blocks;
    T* data;
    T* tau;
    T* gram;
  };

  std::size_t lay_out(char* base);
  cudaError_t factor_level(std::size_t level, int first, int count);

  int m_, n_;
  cudaStream_t stream_;
  std::vector<Level> levels_;  // levels_.back() is the root, a single block
  T* r_ = nullptr;             // the root's R
  T* chain_ = nullptr;         // block 0's explicit Q, level by level (kTsqrBlockRows x n)
  T* lu_ = nullptr;            // Q1 - S = L U
  T* s_ = nullptr;             // the reconstruction signs
  T* u_inverse_ = nullptr;
  int* nonzero_ = nullptr;  // per column: V2 has a nonzero
  cuda::DeviceBuffer workspace_;
};

// One TSQR of device-accessible A (n <= kTsqrMaxColumns), tau on the device: all of the steps.
template <class T>
cudaError_t enqueue_tsqr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream);

}  // namespace switchyard::qr::gpu
