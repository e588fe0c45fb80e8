#pragma once

// xORGQR and xORMQR (SIDE = 'L') on a CUDA GPU, as the routes call them: one compact-WY block
// (gpu_apply_q.hpp) where it covers the call, else several, past kGpuMaxReflectors reflectors
// or kGpuMaxColumns columns. The reflectors are taken in groups of kGpuMaxReflectors, as xORGQR and xORMQR block
// them, and each group is applied as one block to at most kGpuMaxColumns columns at a time:
//   - xORMQR: Q^T C = Q_last^T ... Q_1^T C, Q C = Q_1 (... (Q_last C)), Q_g acting on the
//     rows from its first reflector's down;
//   - xORGQR: the last group forms its columns of Q; going back, each group updates the
//     columns already formed to its right and forms its own, over its reflectors, with zeros
//     above them.
// Host data is copied to the device whole first, since every group reads it; a failure before
// the result is written back leaves the caller's data as it was.

#include <cuda_runtime_api.h>

#include <string>

#include "qr/gpu_apply_q.hpp"

namespace switchyard::qr {

// The most reflectors, and columns of Q or C, the wide operations take.
constexpr int kGpuMaxWide = 256;

// Whether orgqr_gpu takes an m x n Q from k reflectors: the columns from the first reflector
// of the last group on must fit one block.
bool wide_q_fits(int n, int k);

// xORGQR on the GPU: form_q_gpu's contract for 1 <= k <= n <= kGpuMaxWide with
// wide_q_fits(n, k); form_q_gpu itself where one block does.
template <class T>
bool orgqr_gpu(int m, int n, int k, T* a, int lda, const T* tau, std::string& error);

// xORMQR (SIDE = 'L') on the GPU: apply_q_gpu's contract for 1 <= k <= kGpuMaxWide and
// 1 <= nc <= kGpuMaxWide; apply_q_gpu itself where one block does.
template <class T>
bool ormqr_gpu(bool transpose, int m, int nc, int k, const T* a, int lda, const T* tau, T* c,
               int ldc, std::string& error);

// ormqr_gpu's work for V and C in device-accessible memory (tau anywhere), enqueued on `stream` with
// workspace ordered on it (the trailing updates of a blocked factorization). Returns the first
// launch or allocation error; the work's own errors show when the stream is synchronized.
template <class T>
cudaError_t apply_q_wide_on_device(bool transpose, long long m, int nc, int k, const T* a,
                                   long long lda, const T* tau, T* c, long long ldc,
                                   cudaStream_t stream);

}  // namespace switchyard::qr
