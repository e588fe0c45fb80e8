#pragma once

// Layer 1 of the GPU QR (docs/qr-code.md): Q = H(0) ... H(k-1) = I - V T V^T of xGEQRF's
// reflectors applied as compact-WY blocks, on device-accessible matrices:
//   1. G = V^T V (and X = V^T C for xORMQR) in one pass over the rows, as fixed-order sums of
//      per-block partial products, so every run gives the same bits;
//   2. T from G and tau exactly as xLARFT forms it, then W = T V1^T (xORGQR: V1 the top n
//      rows of V) or W = op(T) X (xORMQR), all k x k or smaller;
//   3. a second pass writes E - V W (the identity's first n columns, xORGQR) or C - V W.
// The passes are bound by memory bandwidth: V is read twice, the output written once.
//
// WyBlock is one block as steps, so that a driver can run the first pass on rows as they
// arrive from host memory; the functions below it are whole operations on device data, past
// one block's limits too. Everything is enqueued on `stream` with its workspace ordered on it,
// and returns the first launch or allocation error; the kernels' own show when the stream is
// synchronized.

#include <cuda_runtime_api.h>

#include "device/cuda_runtime.hpp"
#include "wy_kernels.hpp"

namespace switchyard::qr::gpu {

// One block's reflectors and columns at most, the rows its first pass sums per partial
// product, and the most reflectors and columns the whole operations take.
constexpr int kWyMaxReflectors = kernels::kWyMaxReflectors;
constexpr int kWyMaxColumns = kernels::kWyMaxColumns;
constexpr int kWyBlockRows = kernels::kWyBlockRows;
constexpr int kWideMax = 256;

using kernels::Reflectors;

template <class T>
class WyBlock {
 public:
  // Workspace for m rows, v.k reflectors and W of up to w columns (w <= kWyMaxColumns, with
  // V^T V beside V^T C: k + w), from the device pool.
  WyBlock(long long m, int k, int w, cudaStream_t stream);
  cudaError_t status() const { return buffer_.status(); }

  // tau (k values, host or device) into the workspace.
  cudaError_t take_tau(const T* tau);
  // G = V^T V: partial sums over rows [first, first + rows) (first a multiple of
  // kWyBlockRows), then their sum.
  cudaError_t gram_rows(const Reflectors<T>& v, long long first, long long rows);
  cudaError_t sum_gram();
  // X = V^T C (C m x nc), or with `with_gram` [V^T V, V^T C] in one pass over V: partial sums,
  // then their sum.
  cudaError_t product_rows(const Reflectors<T>& v, bool with_gram, const T* c, long long ldc,
                           int nc, long long first, long long rows);
  cudaError_t sum_product(bool with_gram, int nc);
  // xORGQR's last steps, after sum_gram: q (m x n, may be V's own storage) <- E - V T V1^T.
  cudaError_t form(const Reflectors<T>& v, int n, T* q, long long ldq);
  // The same in two: W = T V1^T (V's top n rows needed), then q <- E - V W.
  cudaError_t form_w(const Reflectors<T>& v, int n);
  cudaError_t write_q(const Reflectors<T>& v, int n, T* q, long long ldq);
  // xORMQR's, after sum_product: C <- C - V op(T) X.
  cudaError_t apply(const Reflectors<T>& v, bool transpose, bool with_gram, int nc, T* c,
                    long long ldc);

  // The sums (V^T V, k x k; V^T C or [V^T V, V^T C], k x columns) and W (k x columns), ld k,
  // in device memory: a call split over several devices (split_apply.hpp) puts every device's
  // sums in place of each one's own, and W where another device formed it.
  T* gram() const { return gram_; }
  T* product() const { return product_; }
  T* w() const { return w_matrix_; }

 private:
  std::size_t lay_out(char* base);

  long long m_;
  int k_, w_;
  cudaStream_t stream_;
  T* partials_ = nullptr;
  T* gram_ = nullptr;      // V^T V, k x k
  T* product_ = nullptr;   // V^T C, k x nc; or [V^T V, V^T C]
  T* w_matrix_ = nullptr;  // W, k x (n or nc)
  T* tau_ = nullptr;
  cuda::DeviceBuffer buffer_;
};

// xORGQR for device data, one block: A (m x n) whose first k columns hold the reflectors,
// k <= n <= kWyMaxColumns, k <= kWyMaxReflectors, becomes Q's first n columns.
template <class T>
cudaError_t form_q_on_device(long long m, int n, int k, T* a, long long lda, const T* tau,
                             cudaStream_t stream);

// xORMQR (SIDE = 'L') for device data, k <= kWyMaxReflectors, any nc >= 1: V^T V is formed
// once and C taken kWyMaxColumns columns at a time; where k + nc <= kWyMaxColumns, V^T V comes
// from the same pass over V as V^T C.
template <class T>
cudaError_t apply_q_on_device(bool transpose, long long m, int nc, int k, const T* a, long long lda,
                              const T* tau, T* c, long long ldc, cudaStream_t stream);

// The same for any k, blocks of kWyMaxReflectors reflectors, as xORMQR blocks them:
// Q^T C = Q_last^T ... Q_1^T C, Q C = Q_1 (... (Q_last C)), Q_g acting on the rows from its
// first reflector's down.
template <class T>
cudaError_t apply_q_blocks(bool transpose, long long m, int nc, int k, const T* a, long long lda,
                           const T* tau, T* c, long long ldc, cudaStream_t stream);

// Whether form_q_blocks takes an m x n Q from k reflectors: the columns from the first
// reflector of the last block on must fit one block.
bool q_blocks_fit(int n, int k);

// xORGQR for device data as blocks of reflectors (1 <= k <= n, q_blocks_fit(n, k)): the last
// block forms its columns of Q; going back, each block updates the columns already formed to
// its right and forms its own, over its reflectors, with zeros above them.
template <class T>
cudaError_t form_q_blocks(long long m, int n, int k, T* a, long long lda, const T* tau,
                          cudaStream_t stream);

}  // namespace switchyard::qr::gpu
