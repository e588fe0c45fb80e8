#pragma once

// TSQR on a CUDA GPU with Householder reconstruction, so the output is xGEQRF's
// (cpu_tsqr.hpp explains the method; kernels/cuda/tsqr_kernels.hpp the device operations).
//
// The rows are cut into blocks of 256, each factored in registers by one thread block; the
// stacked n x n R factors form the next level, until one block remains: a reduction tree of
// fan-in 256 / n. The explicit Q of that tree is needed twice: its top n x n (Q1) for the LU
// factorization Q1 - S = V1 U, and all of it for V2 = Q2 inv(U). The first comes from block 0
// alone, level by level; for the second, inv(U) is applied at the root, so that the one pass
// that forms Q down the tree writes V2 directly over A.
//
// Data in host memory (pageable or not) is streamed through pinned staging buffers, chunk by
// chunk, the leaf factorization of a chunk overlapping the transfer of the next, and V streams
// back the same way; data in device or managed memory is factored in place.

#include <cuda_runtime_api.h>

#include <string>

#include "tsqr/lapack_table.hpp"
#include "tsqr_kernels.hpp"

namespace switchyard::tsqr {

// The widest A the GPU QR takes: one TSQR up to the panel width, panels of TSQRs beyond
// (gpu_panels.hpp).
constexpr int kGpuMaxColumns = 256;

// Factors column-major m x n A (m >= n >= 1, n <= kGpuMaxColumns, lda >= m) in place with
// xGEQRF's output contract. Returns true on success. Otherwise `error` says why, and when A
// is in host memory A and tau are untouched, so the caller can run xGEQRF instead.
template <class T>
bool factor_gpu(int m, int n, T* a, int lda, T* tau, std::string& error);

// The widest A the GPU pivoted QR takes: one TSQR, whose R is pivoted on the host.
constexpr int kGpuMaxPivotedColumns = kernels::kTsqrMaxColumns;

// xGEQP3's column-pivoted factorization of A (m >= n >= 1, n <= kGpuMaxPivotedColumns) by the
// same TSQR, as cpu_tsqr.hpp's factor_pivoted_cpu makes it: between the tree's reduction and
// the reconstruction the root's R comes to the host, where `lapack`'s xGEQP3 and xORGQR give
// R P = Q2 R2 (JPVT as xGEQP3 takes and gives it); the tree's Q is then formed as Q [Q2; 0]
// and the reconstruction reads R2. `work1` receives WORK(1) as the small xGEQP3 left it.
// Returns as factor_gpu; on failure JPVT is untouched, and so are A and tau in host memory.
template <class T>
bool factor_pivoted_gpu(int m, int n, T* a, int lda, int* jpvt, T* tau, const Lapack<T>& lapack,
                        T* work1, std::string& error);

// The QR of device-accessible A (n <= kGpuMaxColumns), tau on the device, enqueued on `stream`
// with its workspace ordered on it: one TSQR up to the panel width, panels of it beyond
// (gpu_panels.hpp). Returns the first launch or allocation error; the kernels' own show when the
// stream is synchronized.
template <class T>
cudaError_t enqueue_qr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream);

// One TSQR of device-accessible A (n <= kernels::kTsqrMaxColumns), tau on the device,
// enqueued on `stream` with its workspace ordered on it. Returns the first launch or
// allocation error; the kernels' own show when the stream is synchronized.
template <class T>
cudaError_t enqueue_tsqr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream);

}  // namespace switchyard::tsqr
