// V^T X over the rows of a tall matrix, as one k x w partial sum per block of kWyBlockRows
// rows, and the fixed-order sum of those partials.
#include <algorithm>

#include "wy_kernels.hpp"
#include "wy_masked.cuh"

namespace switchyard::kernels {
namespace wy {
namespace {

// 16 x 16 threads, each summing a 4 x 4 set of outputs: rows j0 + 16 q of V^T X and columns
// c0 + 16 p, so that the 16 threads of a half warp read 16 consecutive elements of a tile row.
constexpr int kThreads = 256;
constexpr int kPitch = kWyMaxReflectors + 1;

template <class T>
__device__ void load_tile(const Reflectors<T>& v, const T* x, long long ldx, int columns,
                          long long end_row, long long row0, T* tile) {
  for (int idx = int(threadIdx.x); idx < kTileRows * columns; idx += kThreads) {
    const int r = idx % kTileRows, c = idx / kTileRows;
    const long long i = row0 + r;
    T value = T(0);
    if (i < end_row) value = x ? x[i + c * ldx] : masked(v, i, c);
    tile[r * kPitch + c] = value;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
tall_product(Reflectors<T> v, const T* x, long long ldx, int w, long long first_row,
             long long end_row, T* partials) {
  __shared__ T v_tile[kTileRows * kPitch];
  __shared__ T x_tile[kTileRows * kPitch];
  const T* x_rows = x ? x_tile : v_tile;
  const int j0 = int(threadIdx.x) / 16, c0 = int(threadIdx.x) % 16;
  T sum[4][4] = {};
  const long long block_first = first_row + (long long)blockIdx.x * kWyBlockRows;
  const long long block_end = min(block_first + kWyBlockRows, end_row);
  for (long long row0 = block_first; row0 < block_end; row0 += kTileRows) {
    __syncthreads();  // the previous tile has been read
    load_tile<T>(v, nullptr, 0, v.k, block_end, row0, v_tile);
    if (x) load_tile<T>(v, x, ldx, w, block_end, row0, x_tile);
    __syncthreads();
#pragma unroll 4
    for (int r = 0; r < kTileRows; ++r) {
      T vj[4], xc[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) vj[q] = v_tile[r * kPitch + j0 + 16 * q];
#pragma unroll
      for (int p = 0; p < 4; ++p) xc[p] = x_rows[r * kPitch + c0 + 16 * p];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
#pragma unroll
        for (int p = 0; p < 4; ++p) sum[q][p] += vj[q] * xc[p];
      }
    }
  }
  const int k = v.k;
  T* out = partials + (first_row / kWyBlockRows + blockIdx.x) * (long long)k * w;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const int j = j0 + 16 * q, c = c0 + 16 * p;
      if (j < k && c < w) out[j + c * k] = sum[q][p];
    }
  }
}

template <class T>
__global__ void sum_partials(const T* partials, int blocks, int entries, T* sum) {
  const int e = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (e >= entries) return;
  T total = T(0);
  for (int b = 0; b < blocks; ++b) total += partials[(long long)b * entries + e];
  sum[e] = total;
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
  wy::tall_product<T><<<unsigned(blocks), wy::kThreads, 0, stream>>>(v, x, ldx, x ? w : v.k,
                                                                     first_row, end_row, partials);
  return cudaGetLastError();
}

template <class T>
cudaError_t wy_sum_partials(const T* partials, int blocks, int entries, T* sum,
                            cudaStream_t stream) {
  constexpr int kThreads = 128;
  wy::sum_partials<T><<<(entries + kThreads - 1) / kThreads, kThreads, 0, stream>>>(
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
