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

template <class T>
struct RowValues {
  T at[kRowsPerThread];  // a lane's rows lane + 32 s of one column
};

// Whether a lane's row lane + 32 s lies below, or on, the diagonal of column j < kTsqrMaxColumns:
// past the first kTsqrMaxColumns rows the answers are known at compile time.
static_assert(kTsqrMaxColumns <= 64 && kRowsPerThread >= 2, "the diagonal lies in rows s < 2");
__device__ __forceinline__ bool below_diagonal(int s, int j) {
  return 32 * s >= kTsqrMaxColumns || lane_row(s) > j;
}
__device__ __forceinline__ bool on_diagonal(int s, int j) {
  return 32 * s < kTsqrMaxColumns && lane_row(s) == j;
}

// ||x|| over rows j + 1 and below of a column staged in shared memory, in every lane of the
// warp, scaled by the largest magnitude first so that no square underflows or overflows. NaN
// propagates.
template <class T>
__device__ __forceinline__ T scaled_norm_below(const T* column, int j) {
  T x[kRowsPerThread];
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) x[s] = column[lane_row(s)];
  T largest = 0;
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) {
    largest = below_diagonal(s, j) ? fmax(largest, fabs(x[s])) : largest;
  }
  largest = warp_max(largest);
  T scaled = 0, squares = 0;
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) {
    const bool below = below_diagonal(s, j);
    const T y = x[s] / largest;
    scaled += below ? y * y : T(0);
    squares += below ? x[s] * x[s] : T(0);
  }
  // All zero, infinite, or NaN: the plain sum says which.
  if (!(largest > T(0)) || isinf(largest)) return sqrt(warp_sum(squares));
  return largest * sqrt(warp_sum(scaled));
}

// 1 / sqrt(x) and 1 / x from the hardware's estimates, refined by Newton's iteration to within
// an ulp or two, for finite x whose results are normal. Unlike sqrt and division they carry no
// checks for other operands: branches that made up a third of the instructions on the path that
// builds each reflector, while the block's other warps wait for it.
__device__ __forceinline__ double estimated_rsqrt(double x) {
  double y;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  // y (1 + e / 2 + 3 e^2 / 8) with e = 1 - x y^2: the relative error goes from e to O(e^3).
  const double e = fma(-x, y * y, 1.0);
  return fma(fma(0.375, e, 0.5) * e, y, y);
}
__device__ __forceinline__ float estimated_rsqrt(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return fmaf(0.5f * fmaf(-x, y * y, 1.0f), y, y);
}
__device__ __forceinline__ double estimated_reciprocal(double x) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  double e = fma(-x, y, 1.0);
  y = fma(fma(e, e, e), y, y);  // y (1 + e + e^2): the error goes from e to O(e^3)
  e = fma(-x, y, 1.0);
  return fma(e, y, y);
}
__device__ __forceinline__ float estimated_reciprocal(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return fmaf(fmaf(-x, y, 1.0f), y, y);
}

template <class T>
struct Reflector {
  T beta, tau, scale;
};

// The reflector of a column staged in shared memory, as xLARFG builds it for rows j and below
// (alpha its row j), with the scaled norm, hypot and IEEE divisions: for sums of squares that
// may have lost digits to underflow, or that overflowed. Out of line, so that the rare path
// costs the usual one neither registers nor room in the instruction cache.
template <class T>
__device__ __noinline__ Reflector<T> careful_reflector(const T* column, int j, T alpha) {
  const T norm = scaled_norm_below(column, j);
  __syncwarp();  // every lane has read the column before the reflector is written over it
  if (norm == T(0)) return {alpha, T(0), T(1)};
  const T beta = -copysign(hypot(alpha, norm), alpha);
  return {beta, (beta - alpha) / beta, T(1) / (alpha - beta)};
}

// The reflector of the column in the owning warp's `column` (lanes hold rows lane + 32 s), as
// xLARFG builds it for rows j and below: beta = -sign(alpha) ||(alpha, x)||,
// tau = (beta - alpha) / beta, v = x / (alpha - beta); tau = 0 (H = I) when x is already zero.
// The usual case takes one reciprocal square root of alpha^2 + ||x||^2 and one reciprocal; the
// others stage the column in `scratch` (kTsqrBlockRows values the warp may overwrite) for
// careful_reflector.
template <class T>
__device__ __forceinline__ Reflector<T> make_reflector(const RowValues<T>& column, int j,
                                                       T* scratch) {
  T squares[kRowsPerThread];
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) {
    squares[s] = below_diagonal(s, j) ? column.at[s] * column.at[s] : T(0);
  }
  const T mine = j < 32 ? column.at[0] : column.at[1];  // row j is lane j % 32's
  // Pairwise, so that the sum is a tree of additions rather than a chain.
#pragma unroll
  for (int width = kRowsPerThread / 2; width > 0; width /= 2) {
#pragma unroll
    for (int s = 0; s < width; ++s) squares[s] += squares[s + width];
  }
  const T alpha = __shfl_sync(0xffffffffu, mine, j % 32);
  const T below = warp_sum(squares[0]);
  const T total = alpha * alpha + below;
  if (below >= Limits<T>::kSmallSquares && !isinf(total)) {
    // With w = ||(alpha, x)|| = |beta|: tau = 1 + |alpha| / w and alpha - beta =
    // sign(alpha) (|alpha| + w), so one reciprocal square root and one reciprocal serve.
    const T inverse = estimated_rsqrt(total);
    T whole = total * inverse;
    whole = fma(fma(-whole, whole, total), T(0.5) * inverse, whole);  // one Newton step on w
    return {-copysign(whole, alpha), fma(fabs(alpha), inverse, T(1)),
            copysign(estimated_reciprocal(fabs(alpha) + whole), alpha)};
  }
#pragma unroll
  for (int s = 0; s < kRowsPerThread; ++s) scratch[lane_row(s)] = column.at[s];
  __syncwarp();
  return careful_reflector(scratch, j, alpha);
}

// Blocks per SM the register budget is set for: in single precision the tile takes half the
// registers, and half as many blocks again fit.
template <class T, int N>
constexpr int kFactorBlocksPerSm = Tile<N>::kBlocksPerSm * (sizeof(T) == 4 ? 3 : 2) / 2;

template <class T, int N>
__global__ void __launch_bounds__(Tile<N>::kThreads, (kFactorBlocksPerSm<T, N>))
factor_blocks(int m, int n, T* a, long long lda, int first_block, T* tau, T* gram, T* r_out,
              long long ld_r) {
  using Tile = tsqr::Tile<N>;
  const int block = first_block + int(blockIdx.x);
  const long long row0 = (long long)block * kTsqrBlockRows;
  const int height = block_height(m, block);
  T* tau_block = tau + (long long)block * n;
  T* gram_block = gram + (long long)block * n * n;
  const int warp = Tile::warp();

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
  // Column j = owner + kWarps qj: walking qj in the unrolled outer loop keeps the owner's
  // register column a compile-time index. The inner loop stays rolled: unrolled, the kernel's
  // code no longer fits the instruction cache, and a block at the tree's top, alone on its SM,
  // waits on fetching each instruction.
#pragma unroll
  for (int qj = 0; qj < kColumnsPerThread; ++qj) {
#pragma unroll 1
    for (int owner = 0; owner < Tile::kWarps; ++owner) {
      const int j = owner + Tile::kWarps * qj;
      if (j >= n) break;
      const int buffer = j & 1;
      if (warp == owner) {
        RowValues<T> column;
#pragma unroll
        for (int s = 0; s < kRowsPerThread; ++s) column.at[s] = x[s][qj];
        const Reflector<T> h = make_reflector(column, j, v[buffer]);
#pragma unroll
        for (int s = 0; s < kRowsPerThread; ++s) {
          const bool below = below_diagonal(s, j), on = on_diagonal(s, j);
          const T scaled = column.at[s] * h.scale;
          v[buffer][Tile::row(s)] = below ? scaled : on ? T(1) : T(0);
          x[s][qj] = below ? scaled : on ? h.beta : x[s][qj];
        }
        if (Tile::lane() == 0) {
          tau_shared[buffer] = h.tau;
          tau_block[j] = h.tau;
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
      T* gram_column = gram_block + (long long)j * n;
#pragma unroll
      for (int q = 0; q < kColumnsPerThread; ++q) {
        // Column k = warp + kWarps q lies left of j for q < qj and right of it for q > qj,
        // which the compiler knows; for q == qj the warp's place beside the owner's says.
        // Column k < j holds v_k below its diagonal, and v_j vanishes above row j > k.
        // Columns at or past n are zero padding that is never written out: they are updated
        // with the rest rather than tested.
        const bool left = q < qj || (q == qj && warp < owner);
        const bool right = q > qj || (q == qj && warp > owner);
        if (left && Tile::lane() == 0) gram_column[Tile::column(q)] = dot[q];
        if (right) {
          const T scaled_dot = t * dot[q];
#pragma unroll
          for (int s = 0; s < kRowsPerThread; ++s) x[s][q] -= scaled_dot * vj[s];
        }
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
