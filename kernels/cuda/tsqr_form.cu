// Applies each block's Q to [X_b; 0] as a block reflector: Y = [X_b; 0] - V Z with
// Z = T V1^T X_b, T the upper triangular factor of H(0) ... H(n-1) = I - V T V^T. T is never
// formed: T^-1 = diag(1 / tau) + strict upper triangle of V^T V, so Z is a back substitution
// Z_j = tau_j (S_j - sum_{l > j} (v_j^T v_l) Z_l) on S = V1^T X_b, which also holds for tau_j = 0.
// The product V Z, the bulk of the work, runs on the register tile of tsqr_tile.cuh with V and
// Z in shared memory.
#include <cuda_pipeline.h>

#include "copy_async.cuh"
#include "shared_memory_opt_in.cuh"
#include "tsqr_tile.cuh"

namespace switchyard::kernels {
namespace tsqr {
namespace {

template <class T, int N>
constexpr size_t shared_bytes() {
  return sizeof(T) * (size_t(N) * kTsqrBlockRows + 3 * size_t(N) * (N + 1));
}

template <class T, int N>
__global__ void __launch_bounds__(Tile<N>::kThreads, Tile<N>::kBlocksPerSm)
form_blocks(int m, int n, const T* v, long long ldv, int first_block, const T* tau,
            const T* gram, const T* x, long long ldx, T* out, long long ld_out,
            int* nonzero_columns) {
  using Tile = tsqr::Tile<N>;
  constexpr int kStride = N + 1;  // row stride of the N x N shared matrices
  extern __shared__ unsigned char shared_memory[];
  T* vs = reinterpret_cast<T*>(shared_memory);  // V, column k at vs + k * kTsqrBlockRows
  T* xs = vs + N * kTsqrBlockRows;              // X_b, element (i, c) at i * kStride + c
  T* zs = xs + N * kStride;                     // S, then Z, likewise
  T* gs = zs + N * kStride;                     // the coefficients, (l, j) at j * kStride + l

  const int block = first_block + int(blockIdx.x);
  const long long row0 = (long long)block * kTsqrBlockRows;
  const int height = block_height(m, block);
  const int tid = int(threadIdx.x);

  // Everything forming Z needs comes first, in one group of asynchronous copies: X_b, the top
  // N rows of V, and the back substitution's coefficients, whose column j (v_l^T v_j above the
  // diagonal, tau_j on it, zero past n) its step j reads. The rest of V, which only the
  // product V Z needs, follows in a second group and lands while Z is formed. In the top rows
  // of V the unit diagonal and the zeros above it are stored directly. Thread t takes rows
  // t + kRowThreads i of V's columns t / kRowThreads + kSplit k, so that where there are as
  // many threads as rows, each copies one row of every column, stepping a pointer.
  constexpr int kRowThreads = Tile::kThreads < kTsqrBlockRows ? Tile::kThreads : kTsqrBlockRows;
  constexpr int kSplit = Tile::kThreads / kRowThreads;
  const T* gram_block = gram + (long long)block * n * n;
  const T* tau_block = tau + (long long)block * n;
  for (int idx = tid; idx < N * N; idx += Tile::kThreads) {
    const int i = idx % N, c = idx / N;
    const bool inside = i < n && c < n;
    if (x) {
      const T* from = x + (long long)block * n + i + c * ldx;
      copy_async(xs + i * kStride + c, inside ? from : x, inside);
    } else {
      xs[i * kStride + c] = inside && i == c ? T(1) : T(0);
    }
    if (i <= c) {
      const bool stored = c < n;
      const T* from = i == c ? tau_block + c : gram_block + i + c * n;
      copy_async(gs + c * kStride + i, stored ? from : tau_block, stored);
    }
  }
  const T* v_block = v + row0;
  const int k0 = tid / kRowThreads;
#pragma unroll
  for (int i = 0; i < kTsqrBlockRows / kRowThreads; ++i) {
    const int r = tid % kRowThreads + kRowThreads * i;
    if (r >= N) continue;
#pragma unroll
    for (int kk = 0; kk < N / kSplit; ++kk) {
      const int k = k0 + kSplit * kk;
      T* to = vs + k * kTsqrBlockRows + r;
      if (k < r) {
        const bool valid = k < n && r < height;
        copy_async(to, valid ? v_block + r + k * ldv : v_block, valid);
      } else {
        *to = k < n && r == k ? T(1) : T(0);
      }
    }
  }
  __pipeline_commit();
#pragma unroll
  for (int i = 0; i < kTsqrBlockRows / kRowThreads; ++i) {
    const int r = tid % kRowThreads + kRowThreads * i;
    if (r < N) continue;
    const T* from = v_block + r + k0 * ldv;
#pragma unroll
    for (int kk = 0; kk < N / kSplit; ++kk, from += kSplit * ldv) {
      const int k = k0 + kSplit * kk;
      const bool valid = k < n && r < height;
      copy_async(vs + k * kTsqrBlockRows + r, valid ? from : v_block, valid);
    }
  }
  __pipeline_commit();
  __pipeline_wait_prior(1);
  __syncthreads();

  // S = V1^T X_b, V1 the unit lower triangular top of V (stored with its zeros, so row i of
  // X_b contributes to rows k <= i of S alone). Each thread forms N / 8 consecutive rows of one
  // column of S, reading each element of X_b once for all of them.
  {
    constexpr int kPerThread = N / 8;
    const int c = tid % N, k0 = (tid / N) * kPerThread;
    T sum[kPerThread];
#pragma unroll
    for (int kk = 0; kk < kPerThread; ++kk) sum[kk] = 0;
    for (int i = k0; i < n; ++i) {
      const T xi = xs[i * kStride + c];
#pragma unroll
      for (int kk = 0; kk < kPerThread; ++kk) sum[kk] += vs[(k0 + kk) * kTsqrBlockRows + i] * xi;
    }
#pragma unroll
    for (int kk = 0; kk < kPerThread; ++kk) zs[(k0 + kk) * kStride + c] = sum[kk];
  }
  __syncthreads();

  // Back substitution: z_j = tau_j r_j is final once the steps l > j have subtracted their
  // terms, and step j then subtracts (v_l^T v_j) z_j from every r_l, l < j. Each column of Z
  // is one lane's (four adjacent lanes' for N = 64, which pass z_j by an exchange, so that r
  // fits in registers): the steps form a chain, and spreading a column over more lanes adds
  // exchanges to it.
  {
    constexpr int kParts = N > 32 ? N / 16 : 1;
    constexpr int kPerLane = N / kParts;
    if (tid < N * kParts) {
      const int part = tid % kParts, c = tid / kParts, first = part * kPerLane;
      T r[kPerLane];
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) r[i] = zs[(first + i) * kStride + c];
#pragma unroll
      for (int j = N - 1; j >= 0; --j) {
        const T* g = gs + j * kStride;
        T z = g[j] * r[j % kPerLane];
        if (kParts > 1) {
          z = __shfl_sync(0xffffffffu, z, (Tile::lane() & ~(kParts - 1)) + j / kPerLane);
        }
        if (part == j / kPerLane) zs[j * kStride + c] = z;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
          if (first + i < j) r[i] -= g[first + i] * z;
        }
      }
    }
  }
  __pipeline_wait_prior(0);
  __syncthreads();

  T y[kRowsPerThread][kColumnsPerThread];
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) {
#pragma unroll
    for (int q = 0; q < kColumnsPerThread; ++q) y[s][q] = 0;
  }
  for (int kk = 0; kk < n; ++kk) {
    T vk[kRowsPerThread], zk[kColumnsPerThread];
#pragma unroll
    for (int s = 0; s < kRowsPerThread; ++s) vk[s] = vs[kk * kTsqrBlockRows + Tile::row(s)];
#pragma unroll
    for (int q = 0; q < kColumnsPerThread; ++q) zk[q] = zs[kk * kStride + Tile::column(q)];
#pragma unroll
    for (int s = 0; s < kRowsPerThread; ++s) {
#pragma unroll
      for (int q = 0; q < kColumnsPerThread; ++q) y[s][q] += vk[s] * zk[q];
    }
  }

  T* out_block = out + row0;
  const T* x_block = x + (long long)block * n;  // unused without x
#pragma unroll
  for (int q = 0; q < kColumnsPerThread; ++q) {
    const int k = Tile::column(q);
    if (k >= n) continue;
    T* out_column = out_block + (long long)k * ld_out;
    bool nonzero = false;
#pragma unroll
    for (int s = 0; s < kRowsPerThread; ++s) {
      const int r = Tile::row(s);
      T top = 0;  // X_b's rows lie in the first N, which the compiler then knows
      if (32 * s < N && r < n) top = x ? x_block[r + k * ldx] : T(r == k);
      const T value = top - y[s][q];
      if (r < height) {
        out_column[r] = value;
        nonzero = nonzero || (row0 + r >= n && !(value == T(0)));
      }
    }
    if (nonzero_columns && __any_sync(0xffffffffu, nonzero) && Tile::lane() == 0) {
      atomicOr(nonzero_columns + k, 1);
    }
  }
}

template <class T, int N>
cudaError_t launch(int m, int n, const T* v, long long ldv, int first_block, int blocks,
                   const T* tau, const T* gram, const T* x, long long ldx, T* out,
                   long long ld_out, int* nonzero_columns, cudaStream_t stream) {
  constexpr size_t bytes = shared_bytes<T, N>();
  const cudaError_t status = allow_shared_memory(form_blocks<T, N>, int(bytes));
  if (status != cudaSuccess) return status;
  form_blocks<T, N><<<blocks, Tile<N>::kThreads, bytes, stream>>>(
      m, n, v, ldv, first_block, tau, gram, x, ldx, out, ld_out, nonzero_columns);
  return cudaGetLastError();
}

}  // namespace
}  // namespace tsqr

template <class T>
cudaError_t tsqr_form_blocks(int m, int n, const T* v, long long ldv, int first_block, int blocks,
                             const T* tau, const T* gram, const T* x, long long ldx, T* out,
                             long long ld_out, int* nonzero_columns, cudaStream_t stream) {
  if (blocks <= 0) return cudaSuccess;
  if (n <= 8) return tsqr::launch<T, 8>(m, n, v, ldv, first_block, blocks, tau, gram, x, ldx, out, ld_out, nonzero_columns, stream);
  if (n <= 16) return tsqr::launch<T, 16>(m, n, v, ldv, first_block, blocks, tau, gram, x, ldx, out, ld_out, nonzero_columns, stream);
  if (n <= 32) return tsqr::launch<T, 32>(m, n, v, ldv, first_block, blocks, tau, gram, x, ldx, out, ld_out, nonzero_columns, stream);
  if (n <= 64) return tsqr::launch<T, 64>(m, n, v, ldv, first_block, blocks, tau, gram, x, ldx, out, ld_out, nonzero_columns, stream);
  return cudaErrorInvalidValue;
}

template cudaError_t tsqr_form_blocks<float>(int, int, const float*, long long, int, int,
                                             const float*, const float*, const float*, long long,
                                             float*, long long, int*, cudaStream_t);
template cudaError_t tsqr_form_blocks<double>(int, int, const double*, long long, int, int,
                                              const double*, const double*, const double*,
                                              long long, double*, long long, int*, cudaStream_t);

}  // namespace switchyard::kernels
