// The register tile shared by the TSQR kernels: a thread block of 8 N threads holds a
// kTsqrBlockRows x N block, N / 4 warps of 32 lanes; warp g owns columns g + (N / 4) q,
// q < 4, and lane l owns rows l + 32 s, s < 8. Column reductions are then reductions over the
// lanes of one warp: no shared memory and no block-wide barrier.
#pragma once

#include <cuda_runtime.h>

#include "tsqr_kernels.hpp"

namespace switchyard::kernels::tsqr {

constexpr int kRowsPerThread = kTsqrBlockRows / 32;
constexpr int kColumnsPerThread = 4;

// Row s of the rows lane + 32 s that a lane holds.
__device__ inline int lane_row(int s) { return (int(threadIdx.x) & 31) + 32 * s; }

template <int N>
struct Tile {
  static_assert(N % kColumnsPerThread == 0 && N <= kTsqrMaxColumns, "unsupported width");
  static constexpr int kWarps = N / kColumnsPerThread;
  static constexpr int kThreads = 32 * kWarps;
  // Thread blocks per multiprocessor at 128 registers a thread, 64 K registers in all: the
  // bound that lets a kernel keep the tile in registers without giving up occupancy.
  static constexpr int kBlocksPerSm = 65536 / (128 * kThreads);
  static __device__ int lane() { return int(threadIdx.x) & 31; }
  static __device__ int warp() { return int(threadIdx.x) >> 5; }
  static __device__ int row(int s) { return lane_row(s); }
  static __device__ int column(int q) { return warp() + kWarps * q; }
};

// Rows of block `block` of an m-row matrix.
__device__ inline int block_height(int m, int block) {
  const int left = m - block * kTsqrBlockRows;
  return left < kTsqrBlockRows ? left : kTsqrBlockRows;
}

template <class T>
__device__ T warp_sum(T x) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) x += __shfl_xor_sync(0xffffffffu, x, mask);
  return x;
}

template <class T>
__device__ T warp_max(T x) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) x = fmax(x, __shfl_xor_sync(0xffffffffu, x, mask));
  return x;
}

// The sums over the warp's 32 lanes of four per-lane values, in every lane. A reduce-scatter
// (lanes halve the set of columns they carry at masks 16 and 8) then a gather: 10 exchanges
// instead of the 20 of four separate butterflies.
template <class T>
__device__ void warp_sum4(const T (&p)[4], T (&sum)[4]) {
  const unsigned all = 0xffffffffu;
  const int lane = int(threadIdx.x) & 31;
  const bool high16 = lane & 16;
  const T give0 = high16 ? p[0] : p[2];
  const T give1 = high16 ? p[1] : p[3];
  const T keep0 = (high16 ? p[2] : p[0]) + __shfl_xor_sync(all, give0, 16);
  const T keep1 = (high16 ? p[3] : p[1]) + __shfl_xor_sync(all, give1, 16);
  const bool high8 = lane & 8;
  // Lanes now carry columns {0, 1} (high16 clear) or {2, 3}; split once more.
  T mine = (high8 ? keep1 : keep0) + __shfl_xor_sync(all, high8 ? keep0 : keep1, 8);
  mine += __shfl_xor_sync(all, mine, 4);
  mine += __shfl_xor_sync(all, mine, 2);
  mine += __shfl_xor_sync(all, mine, 1);
  // Column c = 2 high16 + high8 is now complete in lanes with those two bits.
#pragma unroll
  for (int c = 0; c < 4; ++c) sum[c] = __shfl_sync(all, mine, (c >> 1) * 16 + (c & 1) * 8);
}

}  // namespace switchyard::kernels::tsqr
