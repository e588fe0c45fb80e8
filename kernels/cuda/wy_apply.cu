// out <- base - V W over the rows of a tall matrix: the second pass over V.
#include <algorithm>

#include "wy_kernels.hpp"
#include "wy_masked.cuh"

namespace switchyard::kernels {
namespace wy {
namespace {

// 8 x 16 threads, each computing 4 rows (r0 + 8 q) by P columns (c0 + 16 p) of a 32-row tile,
// P the fewest that cover w; W stays in shared memory for all the tiles a block takes.
constexpr int kThreads = 128;
constexpr int kMaxBlocks = 1024;

template <class T, int P>
__global__ void __launch_bounds__(kThreads)
apply(Reflectors<T> v, const T* w_matrix, int w, long long first_row, long long end_row,
      bool identity_base, T* out, long long ld_out) {
  constexpr int kWidth = 16 * P;  // the narrower, the more blocks fit an SM
  __shared__ T w_tile[kWyMaxReflectors * kWidth];    // W(j, c) at j * kWidth + c
  __shared__ T v_tile[kWyMaxReflectors * kTileRows];  // V(r, j) at j * kTileRows + r
  const int k = v.k, tid = int(threadIdx.x);
  for (int idx = tid; idx < k * w; idx += kThreads) {
    w_tile[(idx % k) * kWidth + idx / k] = w_matrix[idx];
  }
  const int r0 = tid / 16, c0 = tid % 16;
  const long long tiles = (end_row - first_row + kTileRows - 1) / kTileRows;
  for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const long long row0 = first_row + tile * kTileRows;
    __syncthreads();  // W is in place, the previous tile has been read
    for (int idx = tid; idx < kTileRows * k; idx += kThreads) {
      const int r = idx % kTileRows, j = idx / kTileRows;
      const long long i = row0 + r;
      v_tile[j * kTileRows + r] = i < end_row ? masked(v, i, j) : T(0);
    }
    __syncthreads();
    T sum[4][P] = {};
    for (int j = 0; j < k; ++j) {
      T vr[4], wc[P];
#pragma unroll
      for (int q = 0; q < 4; ++q) vr[q] = v_tile[j * kTileRows + r0 + 8 * q];
#pragma unroll
      for (int p = 0; p < P; ++p) wc[p] = w_tile[j * kWidth + c0 + 16 * p];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
#pragma unroll
        for (int p = 0; p < P; ++p) sum[q][p] += vr[q] * wc[p];
      }
    }
    // V W goes through shared memory, so that each warp then reads and writes 32 consecutive
    // rows of a column of out: straight from the registers, a warp's accesses would fall in 16
    // columns, a memory sector apiece. The XOR keeps both sides free of bank conflicts.
    __syncthreads();  // every thread is done with this tile's V
    T* vw = v_tile;   // (V W)(r, c) at c * kTileRows + (r ^ (c % kTileRows))
#pragma unroll
    for (int q = 0; q < 4; ++q) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const int r = r0 + 8 * q, c = c0 + 16 * p;
        if (c < w) vw[c * kTileRows + (r ^ (c % kTileRows))] = sum[q][p];
      }
    }
    __syncthreads();
    const int r = tid % kTileRows;
    const long long i = row0 + r;
    if (i < end_row) {
      for (int c = tid / kTileRows; c < w; c += kThreads / kTileRows) {
        T* at = out + i + c * ld_out;
        const T base = identity_base ? (i == c ? T(1) : T(0)) : *at;
        *at = base - vw[c * kTileRows + (r ^ (c % kTileRows))];
      }
    }
  }
}

}  // namespace
}  // namespace wy

template <class T>
cudaError_t wy_apply(Reflectors<T> v, long long m, const T* w_matrix, int w,
                     long long first_row, long long rows, bool identity_base, T* out,
                     long long ld_out, cudaStream_t stream) {
  const long long end_row = std::min(first_row + rows, m);
  const long long tiles = (end_row - first_row + wy::kTileRows - 1) / wy::kTileRows;
  if (tiles <= 0) return cudaSuccess;
  const unsigned blocks = unsigned(std::min<long long>(tiles, wy::kMaxBlocks));
  const int p = wy::sixteens(w);
  if (p == 1) {
    wy::apply<T, 1><<<blocks, wy::kThreads, 0, stream>>>(v, w_matrix, w, first_row, end_row,
                                                         identity_base, out, ld_out);
  } else if (p == 2) {
    wy::apply<T, 2><<<blocks, wy::kThreads, 0, stream>>>(v, w_matrix, w, first_row, end_row,
                                                         identity_base, out, ld_out);
  } else {
    wy::apply<T, 4><<<blocks, wy::kThreads, 0, stream>>>(v, w_matrix, w, first_row, end_row,
                                                         identity_base, out, ld_out);
  }
  return cudaGetLastError();
}

template cudaError_t wy_apply<float>(Reflectors<float>, long long, const float*, int, long long,
                                     long long, bool, float*, long long, cudaStream_t);
template cudaError_t wy_apply<double>(Reflectors<double>, long long, const double*, int, long long,
                                      long long, bool, double*, long long, cudaStream_t);

}  // namespace switchyard::kernels
