#pragma once

// xORGQR and xORMQR (SIDE = 'L') for tall matrices on a CUDA GPU, on the reflectors of any
// xGEQRF. Q = H(0) ... H(k-1) = I - V T V^T is applied as one compact-WY block:
//   1. G = V^T V (and X = V^T C for xORMQR) in one pass over the rows, as fixed-order sums of
//      per-block partial products, so every run gives the same bits;
//   2. T from G and tau exactly as xLARFT forms it, then W = T V1^T (xORGQR: V1 the top n
//      rows of V) or W = op(T) X (xORMQR), all k x k or smaller;
//   3. a second pass writes E - V W (the identity's first n columns, xORGQR) or C - V W.
// The passes are bound by memory bandwidth: V is read twice, the output written once.
//
// Data in device or managed memory is worked on in place. Host data streams to the device
// through the pinned staging slots, the first pass running on each chunk as it arrives; the
// result streams back once every kernel has succeeded, so a failure before that leaves the
// caller's data as it was.

#include <cuda_runtime_api.h>

#include <string>

#include "wy_kernels.hpp"

namespace switchyard::qr {

// The most reflectors, and the most columns of Q or C, the GPU takes.
constexpr int kGpuMaxReflectors = kernels::kWyMaxReflectors;
constexpr int kGpuMaxColumns = kernels::kWyMaxColumns;

// xORGQR: overwrites the m x n A, whose first k columns hold the reflectors, with the first n
// columns of Q (1 <= k <= n <= kGpuMaxColumns, n <= m, lda >= m). Returns true on success;
// otherwise `error` says why and, for host data, A is untouched.
template <class T>
bool form_q_gpu(int m, int n, int k, T* a, int lda, const T* tau, std::string& error);

// xORMQR with SIDE = 'L': C (m x nc) <- Q C, or Q^T C when `transpose`
// (1 <= k <= kGpuMaxReflectors, k <= m, 1 <= nc <= kGpuMaxColumns). Same contract as above.
template <class T>
bool apply_q_gpu(bool transpose, int m, int nc, int k, const T* a, int lda, const T* tau, T* c,
                 int ldc, std::string& error);

// form_q_gpu's work for A in device-accessible memory (tau anywhere), enqueued on `stream` with
// workspace ordered on it. Returns the first launch or allocation error; the work's own errors
// show when the stream is synchronized.
template <class T>
cudaError_t form_q_on_device(long long m, int n, int k, T* a, long long lda, const T* tau,
                             cudaStream_t stream);

// apply_q_gpu's work for V and C in device-accessible memory (tau anywhere), enqueued on `stream`
// with workspace ordered on it (a blocked factorization's trailing update), for any nc >= 1:
// V^T V is formed once, and C taken kGpuMaxColumns columns at a time; where k + nc <=
// kGpuMaxColumns, V^T V comes from the same pass over V as V^T C. Returns the first launch or
// allocation error; the work's own errors show when the stream is synchronized.
template <class T>
cudaError_t apply_q_on_device(bool transpose, long long m, int nc, int k, const T* a,
                              long long lda, const T* tau, T* c, long long ldc,
                              cudaStream_t stream);

}  // namespace switchyard::qr
