// Deterministic sums for the row kernels, without atomics: each block adds
// its threads' values (warp shuffles, then one shared-memory pass) and
// writes one partial per value; a later kernel adds the partials of all
// blocks, always in the same order, so every block that needs a total
// computes the same bits.
#pragma once

#include <cuda_runtime.h>

#include "dia_rows.cuh"

namespace switchyard::cg::cuda {

inline constexpr int kWarps = kBlock / 32;

// Adds each of the N values over the block; every thread gets the totals.
// Every thread of the block must call it.
template <int N>
__device__ void block_total(double (&v)[N]) {
  __shared__ double warp_sums[N][kWarps];
  __shared__ double totals[N];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], off);
    if (lane == 0) warp_sums[k][warp] = v[k];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k) {
      double s = lane < kWarps ? warp_sums[k][lane] : 0.0;
      for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
      if (lane == 0) totals[k] = s;
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = totals[k];
  __syncthreads();  // totals may be written again by the next call
}

// Writes the block's totals of the N values to partials[(first + k) * stride
// + blockIdx.x].
template <int N>
__device__ void write_partials(double (&v)[N], double* partials, int stride, int first) {
  block_total(v);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k) partials[(first + k) * stride + blockIdx.x] = v[k];
  }
}

// out[k] = the sum of the `count` partials of value first + k; every thread
// of the block must call it and gets the totals.
template <int N>
__device__ void sum_partials(const double* partials, int stride, int count, int first,
                             double (&out)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    out[k] = 0.0;
    for (int b = threadIdx.x; b < count; b += kBlock) out[k] += partials[(first + k) * stride + b];
  }
  block_total(out);
}

}  // namespace switchyard::cg::cuda
