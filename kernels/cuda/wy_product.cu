// V^T X over the rows of a tall matrix, as one k x w partial sum per block of kWyBlockRows
// rows, and the fixed-order sum of those partials.
#include <cuda_pipeline.h>

#include <algorithm>
#include <type_traits>

#include "copy_async.cuh"
#include "mma_f64.cuh"
#include "shared_memory_opt_in.cuh"
#include "wy_kernels.hpp"
#include "wy_masked.cuh"

namespace switchyard::kernels {
namespace wy {
namespace {

// 256 threads. The k x w output is cut into 16-wide slices, Q of them over k and P over w, the
// fewest that cover it: narrow products (the panels of a blocked QR) would otherwise spend most
// of their time on outputs that do not exist.
constexpr int kThreads = 256;
// Row pitch of the staged tiles: four past a multiple of 16 doubles, so that the lanes of a
// half-warp reading a tensor-core fragment (four rows by four columns) fall on 16 distinct
// banks.
constexpr int kPitch = kWyMaxReflectors + 4;

// Four consecutive elements of a staged tile row, 16-byte aligned, by 16-byte reads.
__device__ inline void load4(const float* at, float (&out)[4]) {
  const float4 x = *reinterpret_cast<const float4*>(at);
  out[0] = x.x, out[1] = x.y, out[2] = x.z, out[3] = x.w;
}
__device__ inline void load4(const double* at, double (&out)[4]) {
  const double2 x = *reinterpret_cast<const double2*>(at);
  const double2 y = *reinterpret_cast<const double2*>(at + 2);
  out[0] = x.x, out[1] = x.y, out[2] = y.x, out[3] = y.y;
}

// On FMAs: the 16Q x 16P output in 4 x 4 blocks, a thread each, in G = 4 / Q row groups of
// 64 Q threads (the blocks of the widest output, P = 4), group g summing the tile rows g,
// g + G, ...; their sums are added in group order on the way out. Each tile row then costs a
// thread two 16-byte reads for 16 FMAs. (A thread per 16-apart entries had read one element of
// V and one of X per FMA or two, and the shared memory, not the FMAs, set the pace:
// single-precision updates ran at a third of the rate of memory.) G does not depend on P, so
// an entry is summed in the same order whatever the width of X beside it: a blocked QR that
// updates a panel's columns alone (streamed_qr.hpp) gives the bits of one that updates them
// with the columns to their right.
template <class T, int Q, int P>
struct FmaProduct {
  static constexpr int kRowsOut = 16 * Q, kColumnsOut = 16 * P;
  static constexpr int kGroups = 4 / Q, kGroupThreads = kThreads / kGroups;
  static constexpr int kBlocks = (kRowsOut / 4) * (kColumnsOut / 4);
  static_assert(kBlocks <= kGroupThreads && kTileRows % kGroups == 0, "a block a thread");
  static_assert(kGroups * kRowsOut * kColumnsOut <= kWyMaxReflectors * kWyMaxReflectors,
                "the groups' sums fit the scratch");
  T sum[4][4] = {};

  __device__ static int block() { return int(threadIdx.x) % kGroupThreads; }
  __device__ static int group() { return int(threadIdx.x) / kGroupThreads; }
  __device__ static bool active() { return block() < kBlocks; }
  __device__ static int first_row() { return 4 * (block() % (kRowsOut / 4)); }
  __device__ static int first_column() { return 4 * (block() / (kRowsOut / 4)); }

  // V^T's element (j, r) at r kPitch + j, X's (r, c) at r kPitch + c.
  __device__ void add(const T* vs, const T* xs) {
    if (!active()) return;
    const T* v_at = vs + first_row();
    const T* x_at = xs + first_column();
#pragma unroll 4
    for (int r = group(); r < kTileRows; r += kGroups) {
      T vj[4], xc[4];
      load4(v_at + r * kPitch, vj);
      load4(x_at + r * kPitch, xc);
#pragma unroll
      for (int a = 0; a < 4; ++a) {
#pragma unroll
        for (int b = 0; b < 4; ++b) sum[a][b] += vj[a] * xc[b];
      }
    }
  }

  // out(j, c) at j + c k, for j < k and c < w: the groups' sums through `scratch`, added in
  // group order. Every thread must call it, after the block is done with the tiles `scratch`
  // overlaps.
  __device__ void write(T* out, int k, int w, T* scratch) const {
    constexpr int kPerGroup = kRowsOut * kColumnsOut;
    if (active()) {
      T* mine = scratch + group() * kPerGroup;
#pragma unroll
      for (int a = 0; a < 4; ++a) {
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          mine[first_row() + a + (first_column() + b) * kRowsOut] = sum[a][b];
        }
      }
    }
    __syncthreads();
    for (int idx = int(threadIdx.x); idx < k * w; idx += kThreads) {
      const int at = idx % k + (idx / k) * kRowsOut;
      T total = scratch[at];
      for (int g = 1; g < kGroups; ++g) total += scratch[g * kPerGroup + at];
      out[idx] = total;
    }
  }
};

// On the FP64 tensor cores (mma m16n8k4, mma_f64.cuh), for outputs of at least four 16 x 8
// tiles: the output's Q 16-row by 2P 8-column tiles are dealt to a kWj x kWc grid of warps
// (the warps past it, when there are fewer tiles than warps, only stage), each summing kTj by
// kTc tiles from kTj fragments of V^T and kTc of X per 4 rows.
template <int Q, int P>
struct MmaProduct {
  static_assert(Q * P >= 2, "fewer than four tiles");
  static constexpr int kWj = Q >= 2 ? 2 : 1, kWc = 2 * P < 8 / kWj ? 2 * P : 8 / kWj;
  static constexpr int kTj = Q / kWj, kTc = 2 * P / kWc;
  double sum[kTj][kTc][4] = {};

  __device__ static int warp() { return int(threadIdx.x) / 32; }
  __device__ static bool active() { return warp() < kWj * kWc; }
  __device__ static int first_row() { return 16 * kTj * (warp() % kWj); }
  __device__ static int first_column() { return 8 * kTc * (warp() / kWj); }

  // V^T is the tile read column-major (element (j, r) at r kPitch + j), X row-major.
  __device__ void add(const double* vs, const double* xs) {
    if (!active()) return;
    const int lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
    const double* v_at = vs + t * kPitch + first_row() + g;
    const double* x_at = xs + t * kPitch + first_column() + g;
#pragma unroll
    for (int r = 0; r < kTileRows; r += 4) {
      double vt[kTj][2], x[kTc];
#pragma unroll
      for (int a = 0; a < kTj; ++a) {
        vt[a][0] = v_at[r * kPitch + 16 * a];
        vt[a][1] = v_at[r * kPitch + 16 * a + 8];
      }
#pragma unroll
      for (int b = 0; b < kTc; ++b) x[b] = x_at[r * kPitch + 8 * b];
#pragma unroll
      for (int a = 0; a < kTj; ++a) {
#pragma unroll
        for (int b = 0; b < kTc; ++b) mma_16x8x4(sum[a][b], vt[a], x[b]);
      }
    }
  }

  // Through `scratch` (64 x 64, column-major), since k need not suit the fragments' stores.
  // Every thread must call it, after the block is done with the tiles `scratch` overlaps.
  __device__ void write(double* out, int k, int w, double* scratch) const {
    constexpr int kLd = kWyMaxReflectors;
    if (active()) {
      const int lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
      const int j0 = first_row() + g, c0 = first_column() + 2 * t;
#pragma unroll
      for (int a = 0; a < kTj; ++a) {
#pragma unroll
        for (int b = 0; b < kTc; ++b) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            scratch[j0 + 16 * a + 8 * (e / 2) + (c0 + 8 * b + e % 2) * kLd] = sum[a][b][e];
          }
        }
      }
    }
    __syncthreads();
    for (int idx = int(threadIdx.x); idx < k * w; idx += kThreads) {
      out[idx] = scratch[idx % k + (idx / k) * kLd];
    }
  }
};

template <class T, int Q, int P>
using Product = std::conditional_t<std::is_same_v<T, double> && Q * P >= 2, MmaProduct<Q, P>,
                                   FmaProduct<T, Q, P>>;

// The tile at row0 of [V X] into `tile` (element (r, c) at r * kPitch + c): columns c < prefix
// are V's, the rest X's column c - prefix. The stored values go by asynchronous copies, so that
// they land while the block multiplies the tile before, and so do the zeros of rows past the
// end; V's ones and zeros above its diagonal by plain stores. Each thread keeps to one row.
template <class T>
__device__ void stage(const Reflectors<T>& v, int prefix, const T* x, long long ldx, int columns,
                      long long end_row, long long row0, T* tile) {
  static_assert(kThreads % kTileRows == 0, "threads keep to their rows");
  const int r = int(threadIdx.x) % kTileRows;
  const long long i = row0 + r;
  const bool inside = i < end_row;
  for (int c = int(threadIdx.x) / kTileRows; c < columns; c += kThreads / kTileRows) {
    T* to = tile + r * kPitch + c;
    if (c >= prefix) {
      copy_async(to, inside ? x + i + (c - prefix) * ldx : x, inside);
    } else if (i + v.row0 > c || !inside) {
      copy_async(to, inside ? v.a + i + c * v.lda : v.a, inside);
    } else {
      *to = i + v.row0 == c ? T(1) : T(0);
    }
  }
}

// Tiles per buffer: V's and X's apart for V^T X; one for V^T V, and one [V X] for
// [V^T V | V^T X] (prefix > 0), whose first columns serve as V's. The kernel lays its shared
// memory out by this and the launcher sizes it by it.
__host__ __device__ inline int tiles_per_buffer(bool has_x, int prefix) {
  return has_x && prefix == 0 ? 2 : 1;
}

template <class T, int Q, int P>
__global__ void __launch_bounds__(kThreads)
    tall_product(Reflectors<T> v, int prefix, const T* x, long long ldx, int w, long long first_row,
                 long long end_row, T* partials) {
  // Two buffers, this tile's and the next's, of tiles_per_buffer tiles each.
  extern __shared__ __align__(128) unsigned char shared_memory[];
  T* const tiles = reinterpret_cast<T*>(shared_memory);
  constexpr int kTile = kTileRows * kPitch;
  const int per_buffer = tiles_per_buffer(x != nullptr, prefix);
  const bool separate_x = per_buffer == 2;
  const auto v_tile = [&](int b) { return tiles + b * per_buffer * kTile; };
  const auto x_tile = [&](int b) { return separate_x ? v_tile(b) + kTile : v_tile(b); };
  Product<T, Q, P> product;
  const long long block_first = first_row + (long long)blockIdx.x * kWyBlockRows;
  const long long block_end = min(block_first + kWyBlockRows, end_row);
  const auto stage_tiles = [&](long long row0, int b) {
    if (x && !separate_x) {
      stage<T>(v, prefix, x, ldx, w, block_end, row0, v_tile(b));
    } else {
      stage<T>(v, v.k, nullptr, 0, v.k, block_end, row0, v_tile(b));
      if (x) stage<T>(v, 0, x, ldx, w, block_end, row0, x_tile(b));
    }
    __pipeline_commit();
  };
  stage_tiles(block_first, 0);
  int buffer = 0;
  for (long long row0 = block_first; row0 < block_end; row0 += kTileRows, buffer ^= 1) {
    __syncthreads();  // the other buffers' tile has been read
    const bool more = row0 + kTileRows < block_end;
    if (more) stage_tiles(row0 + kTileRows, buffer ^ 1);
    if (more) {
      __pipeline_wait_prior(1);
    } else {
      __pipeline_wait_prior(0);
    }
    __syncthreads();  // this tile is in place
    product.add(v_tile(buffer), x_tile(buffer));
  }
  __syncthreads();  // the tiles are free for the product's way out
  product.write(partials + (first_row / kWyBlockRows + blockIdx.x) * (long long)v.k * w, v.k, w,
                tiles);
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

template <class T, int Q, int P>
cudaError_t launch_tall_product(unsigned blocks, cudaStream_t stream, const Reflectors<T>& v,
                                int prefix, const T* x, long long ldx, int w, long long first_row,
                                long long end_row, T* partials) {
  // Two or four tiles, and room for the tensor-core product's 64 x 64 way out; the kernel
  // opts in for four, whatever this call takes (shared_memory_opt_in.cuh).
  const auto bytes_for = [](int tiles) {
    return int(sizeof(T)) *
           std::max(kTileRows * kPitch * tiles, kWyMaxReflectors * kWyMaxReflectors);
  };
  const int bytes = bytes_for(2 * tiles_per_buffer(x != nullptr, prefix));
  const cudaError_t status = allow_shared_memory(tall_product<T, Q, P>, bytes_for(4));
  if (status != cudaSuccess) return status;
  tall_product<T, Q, P>
      <<<blocks, kThreads, bytes, stream>>>(v, prefix, x, ldx, w, first_row, end_row, partials);
  return cudaGetLastError();
}

template <class T, int Q>
cudaError_t launch_tall_product(int p, unsigned blocks, cudaStream_t stream, const Reflectors<T>& v,
                                int prefix, const T* x, long long ldx, int w, long long first_row,
                                long long end_row, T* partials) {
  if (p == 1)
    return launch_tall_product<T, Q, 1>(blocks, stream, v, prefix, x, ldx, w, first_row, end_row,
                                        partials);
  if (p == 2)
    return launch_tall_product<T, Q, 2>(blocks, stream, v, prefix, x, ldx, w, first_row, end_row,
                                        partials);
  return launch_tall_product<T, Q, 4>(blocks, stream, v, prefix, x, ldx, w, first_row, end_row,
                                      partials);
}

}  // namespace
}  // namespace wy

template <class T>
cudaError_t wy_tall_product(Reflectors<T> v, bool with_gram, long long m, const T* x, long long ldx,
                            int w, long long first_row, long long rows, T* partials,
                            cudaStream_t stream) {
  const long long end_row = std::min(first_row + rows, m);
  const long long blocks = (end_row - first_row + kWyBlockRows - 1) / kWyBlockRows;
  if (blocks <= 0) return cudaSuccess;
  const int prefix = x && with_gram ? v.k : 0;
  const int columns = x ? prefix + w : v.k, q = wy::sixteens(v.k), p = wy::sixteens(columns);
  if (q == 1)
    return wy::launch_tall_product<T, 1>(p, unsigned(blocks), stream, v, prefix, x, ldx, columns,
                                         first_row, end_row, partials);
  if (q == 2)
    return wy::launch_tall_product<T, 2>(p, unsigned(blocks), stream, v, prefix, x, ldx, columns,
                                         first_row, end_row, partials);
  return wy::launch_tall_product<T, 4>(p, unsigned(blocks), stream, v, prefix, x, ldx, columns,
                                       first_row, end_row, partials);
}

template <class T>
cudaError_t wy_sum_partials(const T* partials, int blocks, int entries, T* sum,
                            cudaStream_t stream) {
  constexpr int kWarps = wy::kSumWarps;
  wy::sum_partials<T>
      <<<(entries + kWarps - 1) / kWarps, 32 * kWarps, 0, stream>>>(partials, blocks, entries, sum);
  return cudaGetLastError();
}

template cudaError_t wy_tall_product<float>(Reflectors<float>, bool, long long, const float*,
                                            long long, int, long long, long long, float*,
                                            cudaStream_t);
template cudaError_t wy_tall_product<double>(Reflectors<double>, bool, long long, const double*,
                                             long long, int, long long, long long, double*,
                                             cudaStream_t);
template cudaError_t wy_sum_partials<float>(const float*, int, int, float*, cudaStream_t);
template cudaError_t wy_sum_partials<double>(const double*, int, int, double*, cudaStream_t);

}  // namespace switchyard::kernels
