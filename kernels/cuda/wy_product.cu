// V^T X over the rows of a tall matrix, as one k x w partial sum per block of kWyBlockRows
// rows, and the fixed-order sum of those partials.
#include <algorithm>

#include "wy_kernels.hpp"
#include "wy_masked.cuh"

namespace switchyard::kernels {
namespace wy {
namespace {

// 16 x 16 threads, each summing a Q x P set of outputs: rows j0 + 16 q of V^T X and columns
// c0 + 16 p, so that the 16 threads of a half warp read 16 consecutive elements of a tile row.
// Q and P are the fewest that cover k and w: narrow products (the panels of a blocked QR)
// would otherwise spend most of their time on outputs that do not exist.
constexpr int kThreads = 256;
constexpr int kPitch = kWyMaxReflectors + 1;

// A tile of kTileRows rows and up to 64 columns, kLoads values per thread, is fetched into
// registers one tile ahead: the loads of the next tile are in flight while this one is
// multiplied.
constexpr int kLoads = kTileRows * kWyMaxReflectors / kThreads;

template <class T>
__device__ void fetch(const Reflectors<T>& v, const T* x, long long ldx, int columns,
                      long long end_row, long long row0, T (&values)[kLoads]) {
#pragma unroll
  for (int e = 0; e < kLoads; ++e) {
    const int idx = int(threadIdx.x) + kThreads * e;
    const int r = idx % kTileRows, c = idx / kTileRows;
    const long long i = row0 + r;
    T value = T(0);
    if (c < columns && i < end_row) value = x ? x[i + c * ldx] : masked(v, i, c);
    values[e] = value;
  }
}

template <class T>
__device__ void store(const T (&values)[kLoads], int columns, T* tile) {
#pragma unroll
  for (int e = 0; e < kLoads; ++e) {
    const int idx = int(threadIdx.x) + kThreads * e;
    const int r = idx % kTileRows, c = idx / kTileRows;
    if (c < columns) tile[r * kPitch + c] = values[e];
  }
}

template <class T, int Q, int P>
__global__ void __launch_bounds__(kThreads)
tall_product(Reflectors<T> v, const T* x, long long ldx, int w, long long first_row,
             long long end_row, T* partials) {
  __shared__ T v_tile[kTileRows * kPitch];
  __shared__ T x_tile[kTileRows * kPitch];
  const T* x_rows = x ? x_tile : v_tile;
  const int j0 = int(threadIdx.x) / 16, c0 = int(threadIdx.x) % 16;
  T sum[Q][P] = {};
  const long long block_first = first_row + (long long)blockIdx.x * kWyBlockRows;
  const long long block_end = min(block_first + kWyBlockRows, end_row);
  T v_next[kLoads], x_next[kLoads];
  fetch<T>(v, nullptr, 0, v.k, block_end, block_first, v_next);
  if (x) fetch<T>(v, x, ldx, w, block_end, block_first, x_next);
  for (long long row0 = block_first; row0 < block_end; row0 += kTileRows) {
    __syncthreads();  // the previous tile has been read
    store<T>(v_next, v.k, v_tile);
    if (x) store<T>(x_next, w, x_tile);
    __syncthreads();
    if (row0 + kTileRows < block_end) {
      fetch<T>(v, nullptr, 0, v.k, block_end, row0 + kTileRows, v_next);
      if (x) fetch<T>(v, x, ldx, w, block_end, row0 + kTileRows, x_next);
    }
#pragma unroll 4
    for (int r = 0; r < kTileRows; ++r) {
      T vj[Q], xc[P];
#pragma unroll
      for (int q = 0; q < Q; ++q) vj[q] = v_tile[r * kPitch + j0 + 16 * q];
#pragma unroll
      for (int p = 0; p < P; ++p) xc[p] = x_rows[r * kPitch + c0 + 16 * p];
#pragma unroll
      for (int q = 0; q < Q; ++q) {
#pragma unroll
        for (int p = 0; p < P; ++p) sum[q][p] += vj[q] * xc[p];
      }
    }
  }
  const int k = v.k;
  T* out = partials + (first_row / kWyBlockRows + blockIdx.x) * (long long)k * w;
#pragma unroll
  for (int q = 0; q < Q; ++q) {
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int j = j0 + 16 * q, c = c0 + 16 * p;
      if (j < k && c < w) out[j + c * k] = sum[q][p];
    }
  }
}

// One warp per entry: lane l sums partials l, l + 32, ... in order, then the lanes' sums are
// added in a fixed tree, so the result is the same on every run. A thread per entry would
// leave the GPU nearly idle on a k x w result with thousands of partials to add.
constexpr int kSumWarps = 8;

template <class T>
__global__ void __launch_bounds__(32 * kSumWarps)
sum_partials(const T* partials, int blocks, int entries, T* sum) {
  const int e = int(blockIdx.x) * kSumWarps + int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  if (e >= entries) return;
  T total = T(0);
  for (int b = lane; b < blocks; b += 32) total += partials[(long long)b * entries + e];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    total += __shfl_xor_sync(0xffffffffu, total, offset);
  }
  if (lane == 0) sum[e] = total;
}

template <class T, int Q>
void launch_tall_product(int p, unsigned blocks, cudaStream_t stream, const Reflectors<T>& v,
                         const T* x, long long ldx, int w, long long first_row,
                         long long end_row, T* partials) {
  if (p == 1) {
    tall_product<T, Q, 1><<<blocks, kThreads, 0, stream>>>(v, x, ldx, w, first_row, end_row, partials);
  } else if (p == 2) {
    tall_product<T, Q, 2><<<blocks, kThreads, 0, stream>>>(v, x, ldx, w, first_row, end_row, partials);
  } else {
    tall_product<T, Q, 4><<<blocks, kThreads, 0, stream>>>(v, x, ldx, w, first_row, end_row, partials);
  }
}

}  // namespace
}  // namespace wy

template <class T>
cudaError_t wy_tall_product(Reflectors<T> v, long long m, const T* x, long long ldx, int w,
                            long long first_row, long long rows, T* partials,
                            cudaStream_t stream) {
  const long long end_row = std::min(first_row + rows, m);
  const long long blocks = (end_row - first_row + kWyBlockRows - 1) / kWyBlockRows;
  if (blocks <= 0) return cudaSuccess;
  const int columns = x ? w : v.k, q = wy::sixteens(v.k), p = wy::sixteens(columns);
  if (q == 1) {
    wy::launch_tall_product<T, 1>(p, unsigned(blocks), stream, v, x, ldx, columns, first_row, end_row, partials);
  } else if (q == 2) {
    wy::launch_tall_product<T, 2>(p, unsigned(blocks), stream, v, x, ldx, columns, first_row, end_row, partials);
  } else {
    wy::launch_tall_product<T, 4>(p, unsigned(blocks), stream, v, x, ldx, columns, first_row, end_row, partials);
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t wy_sum_partials(const T* partials, int blocks, int entries, T* sum,
                            cudaStream_t stream) {
  constexpr int kWarps = wy::kSumWarps;
  wy::sum_partials<T><<<(entries + kWarps - 1) / kWarps, 32 * kWarps, 0, stream>>>(
      partials, blocks, entries, sum);
  return cudaGetLastError();
}

template cudaError_t wy_tall_product<float>(Reflectors<float>, long long, const float*, long long,
                                            int, long long, long long, float*, cudaStream_t);
template cudaError_t wy_tall_product<double>(Reflectors<double>, long long, const double*,
                                             long long, int, long long, long long, double*,
                                             cudaStream_t);
template cudaError_t wy_sum_partials<float>(const float*, int, int, float*, cudaStream_t);
template cudaError_t wy_sum_partials<double>(const double*, int, int, double*, cudaStream_t);

}  // namespace switchyard::kernels
