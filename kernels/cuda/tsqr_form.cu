// Applies each block's Q to [X_b; 0] as a block reflector: Y = [X_b; 0] - V Z with
// Z = T V1^T X_b, T the upper triangular factor of H(0) ... H(n-1) = I - V T V^T. T is never
// formed: T^-1 = diag(1 / tau) + strict upper triangle of V^T V, so Z is a back substitution
// Z_j = tau_j (S_j - sum_{l > j} (v_j^T v_l) Z_l) on S = V1^T X_b, which also holds for tau_j = 0.
// The product V Z, the bulk of the work, reads V and Z from shared memory; Layout says what
// it runs on.
#include <cuda_pipeline.h>

#include <type_traits>

#include "copy_async.cuh"
#include "mma_f64.cuh"
#include "shared_memory_opt_in.cuh"
#include "tsqr_tile.cuh"

namespace switchyard::kernels {
namespace tsqr {
namespace {

// The product V Z runs on the FP64 tensor cores in double up to N = 32; there the shared
// matrices are padded so that the fragments' reads hit 32 distinct banks. Otherwise (single
// precision, and double at N = 64, whose padded matrices would not fit) it runs on the
// register tile of tsqr_tile.cuh.
template <class T, int N>
struct Layout {
  static constexpr bool kTensorCores = std::is_same_v<T, double> && N <= 32;
  static constexpr int kVStride = kTsqrBlockRows + (kTensorCores ? 4 : 0);  // V's columns
  static constexpr int kStride = N + (kTensorCores ? 4 : 1);  // rows of the N x N matrices
  static constexpr size_t kBytes = sizeof(T) * (size_t(N) * kVStride + 3 * size_t(N) * kStride);
};

// The block's output: put(r, c, VZ(r, c)) writes [X_b; 0](r, c) - VZ(r, c) to row row0 + r
// of `out`, and says whether that value is a nonzero (or NaN) outside the whole matrix's first n
// rows (`out` starts rows_above rows into it); mark(c) records that for column c, once per
// thread. A full block (all kTsqrBlockRows rows, n = N) takes put_below(column(c), r, ...) for
// its rows r >= N: there X_b contributes nothing, nothing falls outside the matrix, and every
// row lies below the whole matrix's first n, so the value is written with no test and the
// nonzero test is the value's own.
template <class T, int N>
struct Output {
  int n, height;
  long long row0, rows_above;
  const T* xs;
  T* out;
  long long ld_out;
  int* marks;  // per column, in shared memory

  __device__ bool full() const { return height == kTsqrBlockRows && n == N; }
  __device__ bool put(int r, int c, T product) const {
    if (r >= height || c >= n) return false;
    const T top = r < N ? xs[r * Layout<T, N>::kStride + c] : T(0);
    const T value = top - product;
    out[row0 + r + c * ld_out] = value;
    return rows_above + row0 + r >= n && !(value == T(0));
  }
  __device__ bool put_below(T* column, int r, T product) const {
    column[r] = T(0) - product;  // as put writes it: +0, not -0, where the product is +0
    return !(product == T(0));
  }
  // Column c of the block's rows in `out`.
  __device__ T* column(int c) const { return out + row0 + c * ld_out; }
  __device__ void mark(int c) const { marks[c] = 1; }
};

// V Z on the tensor cores: warp w takes kRowTiles tiles of 16 rows by kColumnTiles tiles of 8
// columns, accumulated over the N reflectors 4 at a time (zero past n).
template <int N>
__device__ void product_on_tensor_cores(const double* vs, const double* zs,
                                        const Output<double, N>& output) {
  using L = Layout<double, N>;
  constexpr int kColumnTiles = N / 8 < 4 ? N / 8 : 4;
  constexpr int kRowTiles = 8 / kColumnTiles;
  constexpr int kColumnGroups = N / (8 * kColumnTiles);
  const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
  const int g = lane >> 2, t = lane & 3;
  const int row_base = (warp / kColumnGroups) * 16 * kRowTiles;
  const int column_base = (warp % kColumnGroups) * 8 * kColumnTiles;
  double c[kRowTiles][kColumnTiles][4] = {};
#pragma unroll
  for (int k = 0; k < N; k += 4) {
    const double* v_row = vs + (k + t) * L::kVStride + row_base + g;
    const double* z_row = zs + (k + t) * L::kStride + column_base + g;
    double a[kRowTiles][2], b[kColumnTiles];
#pragma unroll
    for (int i = 0; i < kRowTiles; ++i) {
      a[i][0] = v_row[16 * i];
      a[i][1] = v_row[16 * i + 8];
    }
#pragma unroll
    for (int j = 0; j < kColumnTiles; ++j) b[j] = z_row[8 * j];
#pragma unroll
    for (int i = 0; i < kRowTiles; ++i) {
#pragma unroll
      for (int j = 0; j < kColumnTiles; ++j) mma_16x8x4(c[i][j], a[i], b[j]);
    }
  }
  const bool below = output.full() && row_base >= N;  // the same for the whole warp
#pragma unroll
  for (int j = 0; j < kColumnTiles; ++j) {
    bool nonzero[2] = {false, false};
    if (below) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        double* column = output.column(column_base + 8 * j + 2 * t + e) + row_base + g;
#pragma unroll
        for (int i = 0; i < kRowTiles; ++i) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            nonzero[e] |= output.put_below(column, 16 * i + 8 * h, c[i][j][2 * h + e]);
          }
        }
      }
    } else {
#pragma unroll
      for (int i = 0; i < kRowTiles; ++i) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = row_base + 16 * i + g + 8 * (r / 2);
          nonzero[r % 2] |= output.put(row, column_base + 8 * j + 2 * t + r % 2, c[i][j][r]);
        }
      }
    }
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      if (nonzero[e]) output.mark(column_base + 8 * j + 2 * t + e);
    }
  }
}

// V Z on the register tile, with V and Z read from shared memory.
template <class T, int N>
__device__ void product_on_register_tile(int n, const T* vs, const T* zs,
                                         const Output<T, N>& output) {
  using L = Layout<T, N>;
  using Tile = tsqr::Tile<N>;
  T y[kRowsPerThread][kColumnsPerThread] = {};
  for (int kk = 0; kk < n; ++kk) {
    T vk[kRowsPerThread], zk[kColumnsPerThread];
#pragma unroll
    for (int s = 0; s < kRowsPerThread; ++s) vk[s] = vs[kk * L::kVStride + Tile::row(s)];
#pragma unroll
    for (int q = 0; q < kColumnsPerThread; ++q) zk[q] = zs[kk * L::kStride + Tile::column(q)];
#pragma unroll
    for (int s = 0; s < kRowsPerThread; ++s) {
#pragma unroll
      for (int q = 0; q < kColumnsPerThread; ++q) y[s][q] += vk[s] * zk[q];
    }
  }
  const bool full = output.full();
#pragma unroll
  for (int q = 0; q < kColumnsPerThread; ++q) {
    bool nonzero = false;
    T* column = output.column(Tile::column(q));
#pragma unroll
    for (int s = 0; s < kRowsPerThread; ++s) {
      // Rows 32 s + lane lie at or past N for s >= N / 32, which the compiler knows.
      nonzero |= full && 32 * s >= N ? output.put_below(column, Tile::row(s), y[s][q])
                                     : output.put(Tile::row(s), Tile::column(q), y[s][q]);
    }
    if (__any_sync(0xffffffffu, nonzero) && Tile::lane() == 0) output.mark(Tile::column(q));
  }
}

template <class T, int N>
__global__ void __launch_bounds__(Tile<N>::kThreads, Tile<N>::kBlocksPerSm)
form_blocks(int m, int n, const T* v, long long ldv, int first_block, const T* tau,
            const T* gram, const T* x, long long ldx, T* out, long long ld_out,
            int* nonzero_columns, long long rows_above) {
  using Tile = tsqr::Tile<N>;
  using L = Layout<T, N>;
  constexpr int kStride = L::kStride;
  extern __shared__ __align__(16) unsigned char shared_memory[];
  T* vs = reinterpret_cast<T*>(shared_memory);  // V, column k at vs + k * L::kVStride
  T* xs = vs + N * L::kVStride;                 // X_b, element (i, c) at i * kStride + c
  T* zs = xs + N * kStride;                     // S, then Z, likewise
  T* gs = zs + N * kStride;                     // the coefficients, (l, j) at j * kStride + l
  __shared__ int marks[N];                      // column c of the output has a nonzero

  const int block = first_block + int(blockIdx.x);
  const long long row0 = (long long)block * kTsqrBlockRows;
  const int height = block_height(m, block);
  const Output<T, N> output{n, height, row0, rows_above, xs, out, ld_out, marks};
  const int tid = int(threadIdx.x);
  if (tid < N) marks[tid] = 0;

  // Everything forming Z needs comes first, in one group of asynchronous copies: X_b, the top
  // N rows of V, and the back substitution's coefficients, whose column j (v_l^T v_j above the
  // diagonal, tau_j on it, zero past n) its step j reads. The rest of V, which only the
  // product V Z needs, follows in a second group and lands while Z is formed. In the top rows
  // of V the unit diagonal and the zeros above it are stored directly. Thread t takes rows
  // t + kRowThreads i of V's columns t / kRowThreads + kSplit k, so that where there are as
  // many threads as rows, each copies one row of every column, stepping a pointer.
  constexpr int kRowThreads = Tile::kThreads < kTsqrBlockRows ? Tile::kThreads : kTsqrBlockRows;
  constexpr int kSplit = Tile::kThreads / kRowThreads;
  const T* gram_block = gram + (long long)block * n * n;
  const T* tau_block = tau + (long long)block * n;
  for (int idx = tid; idx < N * N; idx += Tile::kThreads) {
    const int i = idx % N, c = idx / N;
    const bool inside = i < n && c < n;
    if (x) {
      const T* from = x + (long long)block * n + i + c * ldx;
      copy_async(xs + i * kStride + c, inside ? from : x, inside);
    } else {
      xs[i * kStride + c] = inside && i == c ? T(1) : T(0);
    }
    if (i <= c) {
      const bool stored = c < n;
      const T* from = i == c ? tau_block + c : gram_block + i + c * n;
      copy_async(gs + c * kStride + i, stored ? from : tau_block, stored);
    }
  }
  const T* v_block = v + row0;
  const int k0 = tid / kRowThreads;
#pragma unroll
  for (int i = 0; i < kTsqrBlockRows / kRowThreads; ++i) {
    const int r = tid % kRowThreads + kRowThreads * i;
    if (r >= N) continue;
#pragma unroll
    for (int kk = 0; kk < N / kSplit; ++kk) {
      const int k = k0 + kSplit * kk;
      T* to = vs + k * L::kVStride + r;
      if (k < r) {
        const bool valid = k < n && r < height;
        copy_async(to, valid ? v_block + r + k * ldv : v_block, valid);
      } else {
        *to = k < n && r == k ? T(1) : T(0);
      }
    }
  }
  __pipeline_commit();
  // A full block whose columns start on 16 bytes (every block but a level's last, in the usual
  // call) takes the rest of V in 16-byte pieces, with no tests; others element by element.
  constexpr int kPiece = 16 / int(sizeof(T));  // rows a piece
  constexpr int kPieces = kTsqrBlockRows / kPiece;
  constexpr int kPieceThreads = Tile::kThreads < kPieces ? Tile::kThreads : kPieces;
  constexpr int kPieceColumnStep = Tile::kThreads / kPieceThreads;
  const bool pieces = output.full() && ldv % kPiece == 0 &&
                      reinterpret_cast<unsigned long long>(v_block) % 16 == 0;
  if (pieces) {
#pragma unroll
    for (int i = 0; i < kPieces / kPieceThreads; ++i) {
      const int r = kPiece * (tid % kPieceThreads + kPieceThreads * i);
      if (r < N) continue;
      const int first_column = tid / kPieceThreads;
      const T* from = v_block + r + first_column * ldv;
#pragma unroll
      for (int k = first_column; k < N; k += kPieceColumnStep, from += kPieceColumnStep * ldv) {
        copy_async_16_past_l1(vs + k * L::kVStride + r, from);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < kTsqrBlockRows / kRowThreads; ++i) {
      const int r = tid % kRowThreads + kRowThreads * i;
      if (r < N) continue;
      const T* from = v_block + r + k0 * ldv;
#pragma unroll
      for (int kk = 0; kk < N / kSplit; ++kk, from += kSplit * ldv) {
        const int k = k0 + kSplit * kk;
        const bool valid = k < n && r < height;
        copy_async(vs + k * L::kVStride + r, valid ? from : v_block, valid);
      }
    }
  }
  __pipeline_commit();
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
      for (int kk = 0; kk < kPerThread; ++kk) sum[kk] += vs[(k0 + kk) * L::kVStride + i] * xi;
    }
#pragma unroll
    for (int kk = 0; kk < kPerThread; ++kk) zs[(k0 + kk) * kStride + c] = sum[kk];
  }
  __syncthreads();

  // Back substitution: z_j = tau_j r_j is final once the steps l > j have subtracted their
  // terms, and step j then subtracts (v_l^T v_j) z_j from every r_l, l < j. Each column of Z
  // is one lane's (four adjacent lanes' for N = 64, which pass z_j by an exchange, so that r
  // fits in registers): the steps form a chain, and spreading a column over more lanes adds
  // exchanges to it.
  {
    constexpr int kParts = N > 32 ? N / 16 : 1;
    constexpr int kPerLane = N / kParts;
    if (tid < N * kParts) {
      const int part = tid % kParts, c = tid / kParts, first = part * kPerLane;
      T r[kPerLane];
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) r[i] = zs[(first + i) * kStride + c];
#pragma unroll
      for (int j = N - 1; j >= 0; --j) {
        const T* g = gs + j * kStride;
        T z = g[j] * r[j % kPerLane];
        if (kParts > 1) {
          z = __shfl_sync(0xffffffffu, z, (Tile::lane() & ~(kParts - 1)) + j / kPerLane);
        }
        if (part == j / kPerLane) zs[j * kStride + c] = z;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
          if (first + i < j) r[i] -= g[first + i] * z;
        }
      }
    }
  }
  __pipeline_wait_prior(0);
  __syncthreads();

  if constexpr (L::kTensorCores) {
    product_on_tensor_cores<N>(vs, zs, output);
  } else {
    product_on_register_tile<T, N>(n, vs, zs, output);
  }
  if (!nonzero_columns) return;
  __syncthreads();
  if (tid < n && marks[tid]) atomicOr(nonzero_columns + tid, 1);
}

template <class T, int N>
cudaError_t launch(int m, int n, const T* v, long long ldv, int first_block, int blocks,
                   const T* tau, const T* gram, const T* x, long long ldx, T* out,
                   long long ld_out, int* nonzero_columns, long long rows_above,
                   cudaStream_t stream) {
  constexpr size_t bytes = Layout<T, N>::kBytes;
  const cudaError_t status = allow_shared_memory(form_blocks<T, N>, int(bytes));
  if (status != cudaSuccess) return status;
  form_blocks<T, N><<<blocks, Tile<N>::kThreads, bytes, stream>>>(
      m, n, v, ldv, first_block, tau, gram, x, ldx, out, ld_out, nonzero_columns, rows_above);
  return cudaGetLastError();
}

}  // namespace
}  // namespace tsqr

template <class T>
cudaError_t tsqr_form_blocks(int m, int n, const T* v, long long ldv, int first_block, int blocks,
                             const T* tau, const T* gram, const T* x, long long ldx, T* out,
                             long long ld_out, int* nonzero_columns, long long rows_above,
                             cudaStream_t stream) {
  if (blocks <= 0) return cudaSuccess;
  if (n <= 8) return tsqr::launch<T, 8>(m, n, v, ldv, first_block, blocks, tau, gram, x, ldx, out, ld_out, nonzero_columns, rows_above, stream);
  if (n <= 16) return tsqr::launch<T, 16>(m, n, v, ldv, first_block, blocks, tau, gram, x, ldx, out, ld_out, nonzero_columns, rows_above, stream);
  if (n <= 32) return tsqr::launch<T, 32>(m, n, v, ldv, first_block, blocks, tau, gram, x, ldx, out, ld_out, nonzero_columns, rows_above, stream);
  if (n <= 64) return tsqr::launch<T, 64>(m, n, v, ldv, first_block, blocks, tau, gram, x, ldx, out, ld_out, nonzero_columns, rows_above, stream);
  return cudaErrorInvalidValue;
}

template cudaError_t tsqr_form_blocks<float>(int, int, const float*, long long, int, int,
                                             const float*, const float*, const float*, long long,
                                             float*, long long, int*, long long,
                                             cudaStream_t);
template cudaError_t tsqr_form_blocks<double>(int, int, const double*, long long, int, int,
                                              const double*, const double*, const double*,
                                              long long, double*, long long, int*, long long,
                                              cudaStream_t);

}  // namespace switchyard::kernels
