// out <- base - V W over the rows of a tall matrix: the second pass over V.
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

// 128 threads work on a 32-row tile at a time, over 16 P columns, P the fewest 16-wide slices
// that cover w; W stays in shared memory for all the tiles a block takes. V and W are padded
// with zeros to a multiple of 4 reflectors, the tensor cores' step.
constexpr int kThreads = 128;
// Pitches in shared memory: V's tile keeps each reflector as a column of kVPitch, W each row
// as kWidth + kWPad. Four past a multiple of 16 doubles, the lanes of a half-warp reading a
// tensor-core fragment (four rows by four columns) fall on 16 distinct banks.
constexpr int kVPitch = kTileRows + 4;
constexpr int kWPad = 4;

__host__ __device__ inline int multiple_of_4(int k) { return (k + 3) / 4 * 4; }

// On FMAs, in single precision: 8 x 16 threads, each computing 4 consecutive rows (4 r0 + q)
// by P columns (c0 + 16 p), so that one 16-byte read gives a thread its rows of a reflector.
// The reflectors go four at a time, V and W being padded to a multiple of 4 with zeros.
template <int P>
struct FmaApply {
  static constexpr int kWidth = 16 * P;
  float sum[4][P] = {};

  __device__ void add(const float* v_tile, const float* w_tile, int k) {
    const int r0 = int(threadIdx.x) / 16, c0 = int(threadIdx.x) % 16;
    const float* v_at = v_tile + 4 * r0;
    const float* w_at = w_tile + c0;
#pragma unroll 1
    for (int j0 = 0; j0 < k; j0 += 4) {
#pragma unroll
      for (int j = j0; j < j0 + 4; ++j) {
        const float4 vr = *reinterpret_cast<const float4*>(v_at + j * kVPitch);
        float wc[P];
#pragma unroll
        for (int p = 0; p < P; ++p) wc[p] = w_at[j * (kWidth + kWPad) + 16 * p];
#pragma unroll
        for (int p = 0; p < P; ++p) {
          sum[0][p] += vr.x * wc[p];
          sum[1][p] += vr.y * wc[p];
          sum[2][p] += vr.z * wc[p];
          sum[3][p] += vr.w * wc[p];
        }
      }
    }
  }

  // Where (V W)(r, c) goes in shared memory. Straight from the registers, a warp's stores would
  // fall in a few banks; the XOR spreads them, and keeps the column reads free of conflicts too.
  __device__ static int at(int r, int c) { return c * kVPitch + (r ^ (c % kTileRows)); }

  __device__ void write(float* vw) const {
    const int r0 = int(threadIdx.x) / 16, c0 = int(threadIdx.x) % 16;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
#pragma unroll
      for (int p = 0; p < P; ++p) vw[at(4 * r0 + q, c0 + 16 * p)] = sum[q][p];
    }
  }
};

// On the FP64 tensor cores (mma m16n8k4, mma_f64.cuh): the 4 warps form a 2 x 2 grid, and
// each sums one 16-row tile by P 8-column tiles.
template <int P>
struct MmaApply {
  static constexpr int kWidth = 16 * P;
  double sum[P][4] = {};

  __device__ static int first_row() { return 16 * ((int(threadIdx.x) / 32) % 2); }
  __device__ static int first_column() { return 8 * P * ((int(threadIdx.x) / 32) / 2); }

  // V's tile is column-major (ld kVPitch), W row-major (ld kWidth + kWPad).
  __device__ void add(const double* v_tile, const double* w_tile, int k) {
    const int lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
    const double* v_at = v_tile + t * kVPitch + first_row() + g;
    const double* w_at = w_tile + t * (kWidth + kWPad) + first_column() + g;
    for (int j = 0; j < k; j += 4) {
      const double v[2] = {v_at[j * kVPitch], v_at[j * kVPitch + 8]};
      double w[P];
#pragma unroll
      for (int p = 0; p < P; ++p) w[p] = w_at[j * (kWidth + kWPad) + 8 * p];
#pragma unroll
      for (int p = 0; p < P; ++p) mma_16x8x4(sum[p], v, w[p]);
    }
  }

  __device__ static int at(int r, int c) { return c * kVPitch + r; }

  __device__ void write(double* vw) const {
    const int lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
    const int r0 = first_row() + g, c0 = first_column() + 2 * t;
#pragma unroll
    for (int p = 0; p < P; ++p) {
#pragma unroll
      for (int e = 0; e < 4; ++e) vw[at(r0 + 8 * (e / 2), c0 + 8 * p + e % 2)] = sum[p][e];
    }
  }
};

template <class T, int P>
using Apply = std::conditional_t<std::is_same_v<T, double>, MmaApply<P>, FmaApply<P>>;

// Puts the tile of V at row0 into `tile` (V(r, j) at j * kVPitch + r): the stored vectors,
// and the zeros of rows past the end, by asynchronous copies, so that they land while the block
// works on the tile before; the mask's ones and zeros by plain stores. Each thread keeps to
// the rows one 16-byte copy moves (two of double, four of float), and copies them so where
// `wide` allows and they lie inside the matrix and below V's diagonal.
template <class T>
__device__ void stage_v(const Reflectors<T>& v, bool wide, long long row0, long long end_row,
                        T* tile) {
  constexpr int kRows = 16 / int(sizeof(T)), kLines = kTileRows / kRows;
  static_assert(kThreads % kLines == 0, "threads keep to their rows");
  const int r = kRows * (int(threadIdx.x) % kLines);
  const long long i = row0 + r;
  for (int j = int(threadIdx.x) / kLines; j < multiple_of_4(v.k); j += kThreads / kLines) {
    T* to = tile + j * kVPitch + r;
    if (wide && j < v.k && i + kRows <= end_row && i + v.row0 > j) {
      copy_async_16(to, v.a + i + j * v.lda);
      continue;
    }
#pragma unroll 1
    for (int e = 0; e < kRows; ++e) {
      const bool inside = i + e < end_row;
      if (j < v.k && (i + e + v.row0 > j || !inside)) {
        copy_async(to + e, inside ? v.a + i + e + j * v.lda : v.a, inside);
      } else {
        to[e] = j < v.k && i + e + v.row0 == j ? T(1) : T(0);
      }
    }
  }
  __pipeline_commit();
}

// Columns of kVPitch a V tile takes: its reflectors, or V W's 16 P columns after them.
template <int P>
__host__ __device__ int tile_columns(int k) {
  return multiple_of_4(k) > 16 * P ? multiple_of_4(k) : 16 * P;
}

// The shared memory of a block: W, then two V tiles. Sized by k, not by kWyMaxReflectors: the
// update between a blocked QR's 16-column panels (k = 16) then fits 9 blocks on an SM in double
// (their registers' limit) where 64 reflectors' worth of tiles fit 4, and runs at about 3.5 TB/s
// where it ran at 3.2.
template <int P>
__host__ __device__ int shared_elements(int k) {
  return multiple_of_4(k) * (16 * P + kWPad) + 2 * tile_columns<P>(k) * kVPitch;
}

template <class T, int P>
__global__ void __launch_bounds__(kThreads)
    apply(Reflectors<T> v, bool wide, const T* w_matrix, int w, long long first_row,
          long long end_row, bool identity_base, T* out, long long ld_out) {
  constexpr int kWidth = 16 * P;  // the narrower, the more blocks fit an SM
  // The output phase: thread tid takes row tid % kTileRows of columns tid / kTileRows + 4 e.
  constexpr int kColumnStep = kThreads / kTileRows;
  constexpr int kOutputs = kWidth / kColumnStep;
  extern __shared__ __align__(128) unsigned char shared_memory[];
  T* w_tile = reinterpret_cast<T*>(shared_memory);  // W(j, c) at j * (kWidth + kWPad) + c
  const int k = v.k, tid = int(threadIdx.x);
  // This tile's V and the next's, after W (shared_elements<P>(k) in all).
  const auto v_tiles = [&](int b) {
    return w_tile + multiple_of_4(k) * (kWidth + kWPad) + b * tile_columns<P>(k) * kVPitch;
  };
  for (int idx = tid; idx < multiple_of_4(k) * kWidth; idx += kThreads) {
    const int j = idx / kWidth, c = idx % kWidth;
    w_tile[j * (kWidth + kWPad) + c] = j < k && c < w ? w_matrix[j + c * k] : T(0);
  }
  const long long tiles = (end_row - first_row + kTileRows - 1) / kTileRows;
  if (blockIdx.x < tiles) stage_v(v, wide, first_row + blockIdx.x * kTileRows, end_row, v_tiles(0));
  int buffer = 0;
  for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x, buffer ^= 1) {
    const long long row0 = first_row + tile * kTileRows;
    __syncthreads();  // the other buffer's last use, as V W, is over
    const long long next = tile + gridDim.x;
    if (next < tiles) {
      stage_v(v, wide, first_row + next * kTileRows, end_row, v_tiles(buffer ^ 1));
    }
    // This tile's rows of the output, fetched now so that they too arrive during the product.
    const int r = tid % kTileRows;
    const long long i = row0 + r;
    T base[kOutputs];
#pragma unroll
    for (int e = 0; e < kOutputs; ++e) {
      const int c = tid / kTileRows + kColumnStep * e;
      base[e] = T(0);
      if (i < end_row && c < w) {
        base[e] = identity_base ? (i + v.row0 == c ? T(1) : T(0)) : out[i + c * ld_out];
      }
    }
    if (next < tiles) {
      __pipeline_wait_prior(1);
    } else {
      __pipeline_wait_prior(0);
    }
    __syncthreads();  // this tile's V (and, the first time, W) is in place
    Apply<T, P> product;
    product.add(v_tiles(buffer), w_tile, k);
    // V W goes through shared memory, so that each warp then reads and writes 32 consecutive
    // rows of a column of out: a memory sector apiece.
    __syncthreads();  // every thread is done with this tile's V
    T* vw = v_tiles(buffer);
    product.write(vw);
    __syncthreads();
    if (i < end_row) {
#pragma unroll
      for (int e = 0; e < kOutputs; ++e) {
        const int c = tid / kTileRows + kColumnStep * e;
        if (c < w) out[i + c * ld_out] = base[e] - vw[Apply<T, P>::at(r, c)];
      }
    }
  }
}

// As many blocks as the GPU holds at once (each then takes every so many tiles), no more than
// there are tiles: a grid of several waves would leave the last one part empty.
template <class T, int P>
cudaError_t launch_apply(long long tiles, cudaStream_t stream, const Reflectors<T>& v, bool wide,
                         const T* w_matrix, int w, long long first_row, long long end_row,
                         bool identity_base, T* out, long long ld_out) {
  // The kernel opts in for the most reflectors, whatever this call applies
  // (shared_memory_opt_in.cuh).
  const int bytes = int(sizeof(T)) * shared_elements<P>(v.k);
  cudaError_t status =
      allow_shared_memory(apply<T, P>, int(sizeof(T)) * shared_elements<P>(kWyMaxReflectors));
  int device = 0, multiprocessors = 0, per_multiprocessor = 0;
  if (status == cudaSuccess) status = cudaGetDevice(&device);
  if (status == cudaSuccess) {
    status = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
  }
  if (status == cudaSuccess) {
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, apply<T, P>,
                                                           kThreads, bytes);
  }
  if (status != cudaSuccess) return status;
  const long long resident = std::max(1LL, (long long)multiprocessors * per_multiprocessor);
  const unsigned blocks = unsigned(std::min(tiles, resident));
  apply<T, P><<<blocks, kThreads, bytes, stream>>>(v, wide, w_matrix, w, first_row, end_row,
                                                   identity_base, out, ld_out);
  return cudaGetLastError();
}

}  // namespace
}  // namespace wy

template <class T>
cudaError_t wy_apply(Reflectors<T> v, long long m, const T* w_matrix, int w, long long first_row,
                     long long rows, bool identity_base, T* out, long long ld_out,
                     cudaStream_t stream) {
  const long long end_row = std::min(first_row + rows, m);
  const long long tiles = (end_row - first_row + wy::kTileRows - 1) / wy::kTileRows;
  if (tiles <= 0) return cudaSuccess;
  const bool wide = wy::rows_start_on_16_bytes(v.a, v.lda, first_row);
  const int p = wy::sixteens(w);
  if (p == 1)
    return wy::launch_apply<T, 1>(tiles, stream, v, wide, w_matrix, w, first_row, end_row,
                                  identity_base, out, ld_out);
  if (p == 2)
    return wy::launch_apply<T, 2>(tiles, stream, v, wide, w_matrix, w, first_row, end_row,
                                  identity_base, out, ld_out);
  // On FMAs, 48 columns take 48: the tensor cores' 64 cost nothing beside the memory they wait
  // on, FMAs a quarter more.
  if constexpr (std::is_same_v<T, float>) {
    if (w <= 48)
      return wy::launch_apply<T, 3>(tiles, stream, v, wide, w_matrix, w, first_row, end_row,
                                    identity_base, out, ld_out);
  }
  return wy::launch_apply<T, 4>(tiles, stream, v, wide, w_matrix, w, first_row, end_row,
                                identity_base, out, ld_out);
}

template cudaError_t wy_apply<float>(Reflectors<float>, long long, const float*, int, long long,
                                     long long, bool, float*, long long, cudaStream_t);
template cudaError_t wy_apply<double>(Reflectors<double>, long long, const double*, int, long long,
                                      long long, bool, double*, long long, cudaStream_t);

}  // namespace switchyard::kernels
