// Householder QR of each row block in registers (tsqr_tile.cuh): column j's reflector is built
// by the warp that owns the column and published through shared memory; every warp then forms
// v^T A for its columns with warp shuffles and applies the rank-1 update in registers. One
// barrier per column. The same dot products give v_k^T v_j for the columns k < j already
// reduced, which form_blocks needs for the block reflector's triangular factor.
#include <cfloat>

#include "tsqr_tile.cuh"

namespace switchyard::kernels {
namespace tsqr {
namespace {

template <class T> struct Limits;
template <> struct Limits<double> {
  // Below this a sum of squares may have lost digits to underflow.
  static constexpr double kSmallSquares = DBL_MIN / DBL_EPSILON;
};
template <> struct Limits<float> {
  static constexpr float kSmallSquares = FLT_MIN / FLT_EPSILON;
};

// ||x|| over the lanes' values x[s] where keep[s], in every lane of the warp. The plain sum of
// squares is used unless it may have underflowed or overflowed; then the values are scaled by
// their largest magnitude first. NaN propagates.
template <class T>
__device__ __forceinline__ T warp_norm(const T (&x)[kRowsPerThread], const bool (&keep)[kRowsPerThread]) {
  T squares = 0;
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) squares += keep[s] ? x[s] * x[s] : T(0);
  squares = warp_sum(squares);
  if (squares >= Limits<T>::kSmallSquares && !isinf(squares)) return sqrt(squares);
  T largest = 0;
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) largest = keep[s] ? fmax(largest, fabs(x[s])) : largest;
  largest = warp_max(largest);
  if (!(largest > T(0)) || isinf(largest)) return sqrt(squares);
  T scaled = 0;
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) {
    const T y = x[s] / largest;
    scaled += keep[s] ? y * y : T(0);
  }
  return largest * sqrt(warp_sum(scaled));
}

template <class T, int N>
__global__ void __launch_bounds__(Tile<N>::kThreads)
factor_blocks(int m, int n, T* a, long long lda, int first_block, T* tau, T* gram, T* r_out,
              long long ld_r) {
  using Tile = tsqr::Tile<N>;
  const int block = first_block + int(blockIdx.x);
  const long long row0 = (long long)block * kTsqrBlockRows;
  const int height = block_height(m, block);
  T* tau_block = tau + (long long)block * n;
  T* gram_block = gram + (long long)block * n * n;

  T x[kRowsPerThread][kColumnsPerThread];
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) {
#pragma unroll
    for (int q = 0; q < kColumnsPerThread; ++q) {
      const int r = Tile::row(s), k = Tile::column(q);
      x[s][q] = r < height && k < n ? a[row0 + r + k * lda] : T(0);
    }
  }

  __shared__ T v[2][kTsqrBlockRows];  // reflector j in v[j % 2], v(j) = 1, zero above
  __shared__ T tau_shared[2];
  for (int j = 0; j < n; ++j) {
    const int buffer = j & 1;
    if (Tile::warp() == j % Tile::kWarps) {
      const int qj = j / Tile::kWarps;
      T column[kRowsPerThread];
      bool below[kRowsPerThread];
      T mine = 0;
#pragma unroll
      for (int s = 0; s < kRowsPerThread; ++s) {
        column[s] = 0;
#pragma unroll
        for (int q = 0; q < kColumnsPerThread; ++q) column[s] = q == qj ? x[s][q] : column[s];
        below[s] = Tile::row(s) > j;
        mine = s == j / 32 ? column[s] : mine;
      }
      const T alpha = __shfl_sync(0xffffffffu, mine, j % 32);
      const T norm = warp_norm(column, below);
      // xLARFG: beta = -sign(alpha) ||(alpha, x)||, tau = (beta - alpha) / beta, and
      // v = x / (alpha - beta); tau = 0 (H = I) when x is already zero.
      T beta = alpha, t = 0, scale = 1;
      if (norm != T(0)) {
        beta = -copysign(hypot(alpha, norm), alpha);
        t = (beta - alpha) / beta;
        scale = T(1) / (alpha - beta);
      }
#pragma unroll
      for (int s = 0; s < kRowsPerThread; ++s) {
        const int r = Tile::row(s);
        const T scaled = column[s] * scale;
        v[buffer][r] = below[s] ? scaled : r == j ? T(1) : T(0);
#pragma unroll
        for (int q = 0; q < kColumnsPerThread; ++q) {
          if (q == qj) x[s][q] = below[s] ? scaled : r == j ? beta : x[s][q];
        }
      }
      if (Tile::lane() == 0) {
        tau_shared[buffer] = t;
        tau_block[j] = t;
      }
    }
    __syncthreads();

    const T t = tau_shared[buffer];
    T vj[kRowsPerThread];
    T partial[kColumnsPerThread];
#pragma unroll
    for (int q = 0; q < kColumnsPerThread; ++q) partial[q] = 0;
#pragma unroll
    for (int s = 0; s < kRowsPerThread; ++s) {
      vj[s] = v[buffer][Tile::row(s)];
#pragma unroll
      for (int q = 0; q < kColumnsPerThread; ++q) partial[q] += vj[s] * x[s][q];
    }
    T dot[kColumnsPerThread];
    warp_sum4(partial, dot);
#pragma unroll
    for (int q = 0; q < kColumnsPerThread; ++q) {
      const int k = Tile::column(q);
      // Column k < j holds v_k below its diagonal, and v_j vanishes above row j > k.
      if (k < j && Tile::lane() == 0) gram_block[k + (long long)j * n] = dot[q];
      if (k > j && k < n) {
        const T scaled_dot = t * dot[q];
#pragma unroll
        for (int s = 0; s < kRowsPerThread; ++s) x[s][q] -= scaled_dot * vj[s];
      }
    }
  }

#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) {
#pragma unroll
    for (int q = 0; q < kColumnsPerThread; ++q) {
      const int r = Tile::row(s), k = Tile::column(q);
      if (k >= n) continue;
      if (r < height) a[row0 + r + k * lda] = x[s][q];
      if (r < n) r_out[(long long)block * n + r + k * ld_r] = r <= k ? x[s][q] : T(0);
    }
  }
}

template <class T, int N>
cudaError_t launch(int m, int n, T* a, long long lda, int first_block, int blocks, T* tau,
                   T* gram, T* r_out, long long ld_r, cudaStream_t stream) {
  factor_blocks<T, N><<<blocks, Tile<N>::kThreads, 0, stream>>>(m, n, a, lda, first_block, tau,
                                                                gram, r_out, ld_r);
  return cudaGetLastError();
}

}  // namespace
}  // namespace tsqr

template <class T>
cudaError_t tsqr_factor_blocks(int m, int n, T* a, long long lda, int first_block, int blocks,
                               T* tau, T* gram, T* r_out, long long ld_r, cudaStream_t stream) {
  if (blocks <= 0) return cudaSuccess;
  if (n <= 8) return tsqr::launch<T, 8>(m, n, a, lda, first_block, blocks, tau, gram, r_out, ld_r, stream);
  if (n <= 16) return tsqr::launch<T, 16>(m, n, a, lda, first_block, blocks, tau, gram, r_out, ld_r, stream);
  if (n <= 32) return tsqr::launch<T, 32>(m, n, a, lda, first_block, blocks, tau, gram, r_out, ld_r, stream);
  if (n <= 64) return tsqr::launch<T, 64>(m, n, a, lda, first_block, blocks, tau, gram, r_out, ld_r, stream);
  return cudaErrorInvalidValue;
}

template cudaError_t tsqr_factor_blocks<float>(int, int, float*, long long, int, int, float*,
                                               float*, float*, long long, cudaStream_t);
template cudaError_t tsqr_factor_blocks<double>(int, int, double*, long long, int, int, double*,
                                                double*, double*, long long, cudaStream_t);

}  // namespace switchyard::kernels
