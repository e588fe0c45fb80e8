// Device building blocks of the half-storage DIA kernels (the FEM Poisson
// seed's symmetric CDS): which rows a thread owns, the product of one row
// (diagonal by diagonal, or with all its loads issued at once), the unroll
// bucket for a matrix's diagonal count, and the grid of a row kernel.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "cg_kernels.hpp"

namespace switchyard::cg::cuda {

inline constexpr int kBlock = 256;  // threads per block of every row kernel

// Rows are dealt out in chunks of kBlock * R consecutive rows, round-robin
// over the blocks of the grid (the grid is no larger than what fits on the
// device at once, so the chunks in flight are a contiguous front and the
// mirrored lower diagonals read ahead by one row are still in L2 when their
// own row reads them). Inside a chunk, thread t takes rows t, t + kBlock, ...:
// every load is coalesced, and the neighbours one grid line away of the
// next row group are the L1-resident rows of the previous one.
template <int R, class F>
__device__ __forceinline__ void for_each_row(long long n, F&& f) {
  constexpr long long chunk = static_cast<long long>(kBlock) * R;
  for (long long c = static_cast<long long>(blockIdx.x) * chunk; c < n;
       c += static_cast<long long>(gridDim.x) * chunk) {
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      const long long i = c + r * kBlock + threadIdx.x;
      if (i < n) f(i);
    }
  }
}

// (A v)_i with v_j = value_at(j): the diagonal, then for each lower
// diagonal its own entry of row i and, by symmetry, the entry of row i + m
// (the host SpMV's order, so both round alike). Matrix loads go through
// the read-only cache; the loop is unrolled for the bucket kDiagonals.
template <class V, int kDiagonals, class ValueAt>
__device__ __forceinline__ double dia_row(const DeviceDia<V>& a, long long i, double vi,
                                          ValueAt&& value_at) {
  double y = double(__ldg(a.diag + i)) * vi;
#pragma unroll
  for (int d = 0; d < kDiagonals; ++d) {
    if (d < a.ndiag) {
      const long long m = a.offsets[d];
      const V* l = a.lower + d * a.n;
      if (i >= m) y += double(__ldg(l + i)) * value_at(i - m);
      if (i + m < a.n) y += double(__ldg(l + i + m)) * value_at(i + m);
    }
  }
  return y;
}

// Rows of at most this many lower diagonals (the FEM problem's 13) can
// hold all their loads in registers: dia_row_batched.
inline constexpr int kBatchedDiagonals = 13;

// dia_row with every load of the row issued before its first product. An
// entry outside the matrix (i < m, i + m >= n, or a diagonal past ndiag in
// the bucket) reads a valid row instead and is left out of the sum, so
// nothing branches between the loads. Taken diagonal by diagonal behind
// branches, each diagonal costs the row a round trip to L2 and the product
// is bound by latency (switchyard bench cg, 256^3 on the H200: 0.74 ms that
// way, 0.59 ms batched). The sums are dia_row's, in its order.
template <class V, int kDiagonals, class ValueAt>
__device__ __forceinline__ double dia_row_batched(const DeviceDia<V>& a, long long i, double vi,
                                                  ValueAt&& value_at) {
  static_assert(kDiagonals <= kBatchedDiagonals, "more loads than registers");
  double y = double(__ldg(a.diag + i)) * vi;
  double own[kDiagonals], from_below[kDiagonals], mirrored[kDiagonals], from_above[kDiagonals];
  bool below[kDiagonals], above[kDiagonals];
#pragma unroll
  for (int d = 0; d < kDiagonals; ++d) {
    const bool present = d < a.ndiag;
    const long long m = present ? a.offsets[d] : 0;
    const V* l = present ? a.lower + d * a.n : a.diag;  // n valid rows either way
    below[d] = present && i >= m;
    above[d] = present && i + m < a.n;
    own[d] = double(__ldg(l + i));
    from_below[d] = value_at(below[d] ? i - m : i);
    mirrored[d] = double(__ldg(l + (above[d] ? i + m : i)));
    from_above[d] = value_at(above[d] ? i + m : i);
  }
#pragma unroll
  for (int d = 0; d < kDiagonals; ++d) {
    if (below[d]) y += own[d] * from_below[d];
    if (above[d]) y += mirrored[d] * from_above[d];
  }
  return y;
}

// Calls f with the unroll bucket for a.ndiag (<= kMaxGpuDiagonals).
template <class V, class F>
void with_bucket(const DeviceDia<V>& a, F&& f) {
  if (a.ndiag <= 16) {
    f(std::integral_constant<int, 16>());
  } else if (a.ndiag <= 32) {
    f(std::integral_constant<int, 32>());
  } else {
    f(std::integral_constant<int, kMaxGpuDiagonals>());
  }
}

// The blocks of kKernel that fit on the device at once, at most max_blocks:
// the grid of a row kernel whose registers allow fewer blocks per SM than
// grid_blocks assumes (eight of 256), so that its rows in flight stay one
// contiguous front (blocks past the first round would otherwise wait for
// the first ones to finish all their chunks). The query may load the
// kernel's module, which a stream capture forbids: call it outside one.
template <auto kKernel>
int resident_blocks(int max_blocks) {
  static const int fit = [] {
    int per_sm = 0, device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kKernel, kBlock, 0);
    return std::max(1, per_sm) * std::max(1, sms);
  }();
  return std::min(fit, max_blocks);
}

// Blocks for n rows in chunks of kBlock * R, at most max_blocks.
inline unsigned grid_for(long long n, int rows_per_thread, int max_blocks) {
  const long long chunk = static_cast<long long>(kBlock) * rows_per_thread;
  const long long chunks = (n + chunk - 1) / chunk;
  return unsigned(chunks < max_blocks ? (chunks > 0 ? chunks : 1) : max_blocks);
}

}  // namespace switchyard::cg::cuda
