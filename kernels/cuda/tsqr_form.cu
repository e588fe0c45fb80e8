// Applies each block's Q to [X_b; 0] as a block reflector: Y = [X_b; 0] - V Z with
// Z = T V1^T X_b, T the upper triangular factor of H(0) ... H(n-1) = I - V T V^T. T is never
// formed: T^-1 = diag(1 / tau) + strict upper triangle of V^T V, so Z is a back substitution
// Z_j = tau_j (S_j - sum_{l > j} (v_j^T v_l) Z_l) on S = V1^T X_b, which also holds for tau_j = 0.
// The product V Z, the bulk of the work, runs on the register tile of tsqr_tile.cuh with V and
// Z in shared memory.
#include <cuda_pipeline.h>

#include "shared_memory_opt_in.cuh"
#include "tsqr_tile.cuh"

namespace switchyard::kernels {
namespace tsqr {
namespace {

template <class T, int N>
constexpr size_t shared_bytes() {
  return sizeof(T) * (size_t(N) * kTsqrBlockRows + 2 * size_t(N) * (N + 1) + N);
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
  T* taus = zs + N * kStride;

  const int block = first_block + int(blockIdx.x);
  const long long row0 = (long long)block * kTsqrBlockRows;
  const int height = block_height(m, block);
  const int tid = int(threadIdx.x);

  // V into shared memory by asynchronous copies, in two groups: its top N rows, which S needs,
  // then the rest, which only the product V Z needs and which lands while S and Z are formed.
  // The unit diagonal, the zeros above it and the padding are stored directly.
  const auto stage_v = [&](int k, int r) {
    T* to = vs + k * kTsqrBlockRows + r;
    if (k < n && r > k && r < height) {
      __pipeline_memcpy_async(to, v + row0 + r + k * ldv, sizeof(T));
    } else {
      *to = k < n && r == k ? T(1) : T(0);
    }
  };
  // Thread t takes rows t + kRowThreads i of the columns t / kRowThreads + kSplit k: one row
  // of every column where there are as many threads as rows, with no division to find them.
  constexpr int kRowThreads = Tile::kThreads < kTsqrBlockRows ? Tile::kThreads : kTsqrBlockRows;
  constexpr int kSplit = Tile::kThreads / kRowThreads;
  const auto stage_rows = [&](bool top) {
#pragma unroll
    for (int i = 0; i < kTsqrBlockRows / kRowThreads; ++i) {
      const int r = tid % kRowThreads + kRowThreads * i;
      if ((r < N) != top) continue;
      for (int k = tid / kRowThreads; k < N; k += kSplit) stage_v(k, r);
    }
    __pipeline_commit();
  };
  stage_rows(true);
  stage_rows(false);
  for (int idx = tid; idx < N * N; idx += Tile::kThreads) {
    const int i = idx % N, c = idx / N;
    T value = 0;
    if (i < n && c < n) value = x ? x[(long long)block * n + i + c * ldx] : T(i == c);
    xs[i * kStride + c] = value;
  }
  if (tid < N) taus[tid] = tid < n ? tau[(long long)block * n + tid] : T(0);
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

  // X_b is no longer needed in shared memory (its rows are read again from x below): the
  // buffer takes v_j^T v_l for the back substitution, which reads each of them n times.
  const T* gram_block = gram + (long long)block * n * n;
  T* gs = xs;  // (j, l) at j * kStride + l, j < l
  for (int idx = tid; idx < n * n; idx += Tile::kThreads) {
    const int j = idx % n, l = idx / n;
    if (j < l) gs[j * kStride + l] = gram_block[idx];
  }
  __syncthreads();

  // Back substitution, one column of Z per group of 8 lanes, column-oriented so that each step
  // waits on one exchange only: z_j = tau_j r_j is final once the steps l > j have subtracted
  // their terms, and step j then subtracts (v_l^T v_j) z_j from every r_l, l < j. Lane p of the
  // group holds r_l for l = p + 8 i in registers.
  {
    constexpr int kPerLane = (N + 7) / 8;
    const int part = Tile::lane() & 7;
    const int leader = Tile::lane() & ~7;
    const int c = Tile::warp() * 4 + (Tile::lane() >> 3);
    T r[kPerLane];
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int l = part + 8 * i;
      r[i] = l < N ? zs[l * kStride + c] : T(0);
    }
#pragma unroll
    for (int j = N - 1; j >= 0; --j) {
      if (j >= n) continue;
      const T z = __shfl_sync(0xffffffffu, taus[j] * r[j / 8], leader + j % 8);
      if (part == j % 8) zs[j * kStride + c] = z;
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const int l = part + 8 * i;
        if (l < j) r[i] -= gs[l * kStride + j] * z;
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

#pragma unroll
  for (int q = 0; q < kColumnsPerThread; ++q) {
    const int k = Tile::column(q);
    bool nonzero = false;
#pragma unroll
    for (int s = 0; s < kRowsPerThread; ++s) {
      const int r = Tile::row(s);
      T top = 0;  // X_b's rows lie in the first N, which the compiler then knows
      if (32 * s < N && r < n && k < n) {
        top = x ? x[(long long)block * n + r + k * ldx] : T(r == k);
      }
      const T value = top - y[s][q];
      if (r < height && k < n) {
        out[row0 + r + k * ld_out] = value;
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
