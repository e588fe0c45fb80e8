#include "cpu_leaf.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>

// Each entry point is compiled for x86-64-v4 (AVX-512), v3 (AVX2, FMA) and the baseline, and
// the loader picks the best the CPU runs. The helpers are inlined into every copy, so that
// their loops are vectorised for each level.
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define SWITCHYARD_LEAF_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef SWITCHYARD_LEAF_CLONES
#define SWITCHYARD_LEAF_CLONES
#endif
#define SWITCHYARD_INLINE [[gnu::always_inline]] inline

namespace switchyard::tsqr {
namespace {

using Index = std::ptrdiff_t;

// Independent partial sums per dot product (four 512-bit vectors' worth), enough to keep the
// FMA units busy; summed in a fixed order at the end, so the result never depends on timing.
template <class T>
constexpr int kLanes = int(256 / sizeof(T));

// Rows of the block formed at a time by multiply_q: four 512-bit vectors per column.
template <class T>
constexpr int kChunkRows = kLanes<T>;

// 512-bit vectors in GCC's vector extension, for the loop nests that the compiler, left to
// itself, vectorises across the outer loop with strided loads. Where the CPU's vectors are
// narrower, the compiler splits them.
template <class T>
struct VectorOf {
  typedef T type __attribute__((vector_size(64)));
};
template <class T>
using Vector = typename VectorOf<T>::type;
template <class T>
constexpr int kVectorLanes = int(64 / sizeof(T));

// By reference: passed by value, these vectors would change the calling convention between
// the copies compiled for each level (they are inlined anyway).
template <class T>
SWITCHYARD_INLINE void load(Vector<T>& to, const T* from) {
  std::memcpy(&to, from, sizeof to);
}

template <class T>
SWITCHYARD_INLINE void store(T* to, const Vector<T>& from) {
  std::memcpy(to, &from, sizeof from);
}

template <int Lanes, class T>
SWITCHYARD_INLINE T sum_lanes(T* sums) {
  for (int width = Lanes / 2; width > 0; width /= 2)
    for (int l = 0; l < width; ++l) sums[l] += sums[l + width];
  return sums[0];
}

template <class T>
SWITCHYARD_INLINE T dot(Index count, const T* __restrict x, const T* __restrict y) {
  T sums[kLanes<T>] = {};
  Index i = 0;
  for (; i + kLanes<T> <= count; i += kLanes<T>)
    for (int l = 0; l < kLanes<T>; ++l) sums[l] += x[i + l] * y[i + l];
  for (int l = 0; i + l < count; ++l) sums[l] += x[i + l] * y[i + l];
  return sum_lanes<kLanes<T>>(sums);
}

// y -= w x
template <class T>
SWITCHYARD_INLINE void subtract_multiple(Index count, T w, const T* __restrict x,
                                         T* __restrict y) {
  for (Index i = 0; i < count; ++i) y[i] -= w * x[i];
}

template <class T>
SWITCHYARD_INLINE void scale(Index count, T factor, T* x) {
  for (Index i = 0; i < count; ++i) x[i] *= factor;
}

// ||x||_2, kept accurate where squares would underflow or overflow: the plain sum of squares
// is used where it lies safely inside the range, else the sum of squares of x / max |x|.
template <class T>
SWITCHYARD_INLINE T norm2(Index count, const T* x) {
  // Above this, the squares lost to underflow (each below min()) cannot matter.
  constexpr T kSafeSum = std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  const T sum = dot(count, x, x);
  if (std::isnan(sum) || (sum >= kSafeSum && sum <= std::numeric_limits<T>::max())) {
    return std::sqrt(sum);
  }
  T largest = 0;
  for (Index i = 0; i < count; ++i) largest = std::max(largest, std::abs(x[i]));
  if (largest == T(0) || std::isinf(largest)) return largest;
  T sums[kLanes<T>] = {};
  Index i = 0;
  for (; i + kLanes<T> <= count; i += kLanes<T>) {
    for (int l = 0; l < kLanes<T>; ++l) {
      const T scaled = x[i + l] / largest;
      sums[l] += scaled * scaled;
    }
  }
  for (int l = 0; i + l < count; ++l) {
    const T scaled = x[i + l] / largest;
    sums[l] += scaled * scaled;
  }
  return largest * std::sqrt(sum_lanes<kLanes<T>>(sums));
}

// sqrt(x^2 + y^2) as xLAPY2 computes it: NaN propagates, no needless overflow.
template <class T>
SWITCHYARD_INLINE T hypotenuse(T x, T y) {
  if (std::isnan(x)) return x;
  if (std::isnan(y)) return y;
  const T big = std::max(std::abs(x), std::abs(y));
  const T small = std::min(std::abs(x), std::abs(y));
  if (small == T(0) || big > std::numeric_limits<T>::max()) return big;
  const T ratio = small / big;
  return big * std::sqrt(1 + ratio * ratio);
}

// xLARFG: the reflector H = I - tau [1; v] [1; v]^T with H [alpha; x] = [beta; 0]. Overwrites
// alpha with beta and x with v; returns tau. beta = -sign(alpha) ||[alpha; x]||, so tau lies
// in [1, 2]; x = 0 gives H = I (tau 0). Where |beta| is below xLAMCH's safe minimum, alpha
// and x are scaled up first (at most 20 times), as in xLARFG, so that 1 / (alpha - beta)
// stays finite.
template <class T>
SWITCHYARD_INLINE T make_reflector(Index count, T& alpha, T* x) {
  T x_norm = norm2(count, x);
  if (x_norm == T(0)) return T(0);
  T beta = -std::copysign(hypotenuse(alpha, x_norm), alpha);
  // xLAMCH('S') / xLAMCH('E'), the latter being half the machine epsilon.
  constexpr T kSafeMin = std::numeric_limits<T>::min() / (std::numeric_limits<T>::epsilon() / 2);
  constexpr int kMaxRescalings = 20;
  int rescalings = 0;
  if (std::abs(beta) < kSafeMin) {
    do {
      ++rescalings;
      scale(count, 1 / kSafeMin, x);
      beta *= 1 / kSafeMin;
      alpha *= 1 / kSafeMin;
    } while (std::abs(beta) < kSafeMin && rescalings < kMaxRescalings);
    x_norm = norm2(count, x);
    beta = -std::copysign(hypotenuse(alpha, x_norm), alpha);
  }
  const T tau = (beta - alpha) / beta;
  scale(count, 1 / (alpha - beta), x);
  for (int i = 0; i < rescalings; ++i) beta *= kSafeMin;
  alpha = beta;
  return tau;
}

// Reflectors per panel: a panel's reflectors are applied together to the columns right of it,
// so that each of those columns is read and written once per panel rather than once per
// reflector.
constexpr int kPanel = 8;

// out[i] = sum of columns[i][r] x[r] over the rows r in [first, last), for i < kPanel.
template <class T>
SWITCHYARD_INLINE void panel_dots(Index first, Index last, const T* const* columns, const T* x,
                                  T* out) {
  constexpr int kL = kVectorLanes<T>;
  Vector<T> sums[kPanel] = {};
  Index r = first;
  for (; r + kL <= last; r += kL) {
    Vector<T> x_part, column_part;
    load(x_part, x + r);
    for (int i = 0; i < kPanel; ++i) {
      load(column_part, columns[i] + r);
      sums[i] += column_part * x_part;
    }
  }
  for (int i = 0; i < kPanel; ++i) {
    T lanes[kL];
    std::memcpy(lanes, &sums[i], sizeof lanes);
    for (int l = 0; r + l < last; ++l) lanes[l] += columns[i][r + l] * x[r + l];
    out[i] = sum_lanes<kL>(lanes);
  }
}

// y[r] -= sum of columns[i][r] w[i] over i < kPanel, for the rows r in [first, last).
template <class T>
SWITCHYARD_INLINE void subtract_panel_combination(Index first, Index last,
                                                  const T* const* columns, const T* w,
                                                  T* __restrict y) {
  for (Index r = first; r < last; ++r) {
    T value = y[r];
    for (int i = 0; i < kPanel; ++i) value -= columns[i][r] * w[i];
    y[r] = value;
  }
}

template <class T>
SWITCHYARD_INLINE void panel_columns(const T* a, Index lda, int j0, const T** columns) {
  for (int i = 0; i < kPanel; ++i) columns[i] = a + (j0 + i) * lda;
}

// Reduces column j of the panel starting at column j0 and ending before column j1: chooses
// H(j), applies it to the panel's columns right of j, and forms column j of T:
// T(0:j-1, j) = -tau(j) T(0:j-1, 0:j-1) V(:, 0:j-1)^T v(j), T(j, j) = tau(j).
template <class T>
SWITCHYARD_INLINE void reduce_column(int h, int j0, int j, int j1, T* a, Index lda, T* tau, T* t,
                                     Index ldt) {
  T* const column = a + j * lda;
  const Index below = h - j - 1;
  T* const v = column + j + 1;  // v(j) below its unit diagonal
  const T tau_j = make_reflector(below, column[j], v);
  tau[j] = tau_j;
  T* const t_column = t + j * ldt;
  t_column[j] = tau_j;
  if (tau_j == T(0)) {
    // H(j) = I: nothing to apply, and its column of T is zero (as xLARFT has it), even where
    // the other columns hold Inf or NaN.
    std::fill_n(t_column, j, T(0));
    return;
  }
  // [1; v]^T with the earlier vectors, kept in T(0:j-1, j) until T's column is formed: a whole
  // panel at a time for the earlier panels, one at a time for this one.
  for (int p = 0; p < j0; p += kPanel) {
    const T* columns[kPanel];
    panel_columns<T>(a, lda, p, columns);
    panel_dots(j + 1, h, columns, column, t_column + p);
    for (int i = 0; i < kPanel; ++i) t_column[p + i] += columns[i][j];
  }
  for (int k = j0; k < j; ++k) {
    const T* const other = a + k * lda;
    t_column[k] = other[j] + dot(below, v, other + j + 1);
  }
  for (int k = j + 1; k < j1; ++k) {
    T* const other = a + k * lda;
    const T w = tau_j * (other[j] + dot(below, v, other + j + 1));
    other[j] -= w;
    subtract_multiple(below, w, v, other + j + 1);
  }
  // In place, top down: row i needs the products of rows i.. only.
  for (int i = 0; i < j; ++i) {
    T sum = 0;
    for (int k = i; k < j; ++k) sum += t[i + k * ldt] * t_column[k];
    t_column[i] = -tau_j * sum;
  }
}

// Rows of a panel's vectors that stay in the L1 cache (16 KiB of them) while they meet every
// column right of the panel.
template <class T>
constexpr int kPanelChunk = int(16384 / (kPanel * sizeof(T)));

// Applies (H(j0)...H(j0 + kPanel - 1))^T = I - V T^T V^T, V the panel's vectors and T their
// block of T, to the columns c0..n-1 right of the panel: C -= V (T^T (V^T C)). Both products
// run over chunks of rows, each chunk of V meeting all of C's columns while it is in cache.
// `products` holds kPanel x (n - c0).
template <class T>
SWITCHYARD_INLINE void apply_panel(int h, int n, int j0, T* a, Index lda, const T* t, Index ldt,
                                   T* products) {
  const T* columns[kPanel];
  panel_columns<T>(a, lda, j0, columns);
  const int c0 = j0 + kPanel;  // the first column, and the first row below the unit triangle
  for (int c = c0; c < n; ++c) {
    const T* const y = a + c * lda;
    T* const p = products + Index{c - c0} * kPanel;
    for (int i = 0; i < kPanel; ++i) {
      T sum = y[j0 + i];
      for (int r = i + 1; r < kPanel; ++r) sum += columns[i][j0 + r] * y[j0 + r];
      p[i] = sum;
    }
  }
  for (Index first = c0; first < h; first += kPanelChunk<T>) {
    const Index last = std::min<Index>(h, first + kPanelChunk<T>);
    for (int c = c0; c < n; ++c) {
      T chunk[kPanel];
      panel_dots(first, last, columns, a + c * lda, chunk);
      T* const p = products + Index{c - c0} * kPanel;
      for (int i = 0; i < kPanel; ++i) p[i] += chunk[i];
    }
  }
  // W = T^T (V^T C) in place, bottom up: row i needs the products of rows ..i only.
  for (int c = c0; c < n; ++c) {
    T* const p = products + Index{c - c0} * kPanel;
    for (int i = kPanel - 1; i >= 0; --i) {
      T sum = 0;
      for (int k = 0; k <= i; ++k) sum += t[(j0 + k) + (j0 + i) * ldt] * p[k];
      p[i] = sum;
    }
  }
  for (int c = c0; c < n; ++c) {
    T* const y = a + c * lda;
    const T* const w = products + Index{c - c0} * kPanel;
    for (int r = 0; r < kPanel; ++r) {
      T sum = w[r];
      for (int i = 0; i < r; ++i) sum += columns[i][j0 + r] * w[i];
      y[j0 + r] -= sum;
    }
  }
  for (Index first = c0; first < h; first += kPanelChunk<T>) {
    const Index last = std::min<Index>(h, first + kPanelChunk<T>);
    for (int c = c0; c < n; ++c) {
      subtract_panel_combination(first, last, columns, products + Index{c - c0} * kPanel,
                                 a + c * lda);
    }
  }
}

// Panel by panel: the panel's columns are reduced one at a time, then its reflectors are
// applied to the columns right of it. Only the last panel can be narrower than kPanel, and
// nothing lies right of it.
template <class T>
SWITCHYARD_INLINE void factor_block_body(int h, int n, T* a, Index lda, T* tau, T* t, Index ldt,
                                         T* work) {
  for (int j0 = 0; j0 < n; j0 += kPanel) {
    const int j1 = std::min(n, j0 + kPanel);
    for (int j = j0; j < j1; ++j) reduce_column(h, j0, j, j1, a, lda, tau, t, ldt);
    if (j1 - j0 == kPanel) apply_panel(h, n, j0, a, lda, t, ldt, work);
  }
}

// Columns c..c+Columns-1 of out = -rows W, rows and out kChunkRows x n (leading dimension
// kChunkRows): each vector of `rows` loaded serves Columns columns of W.
template <class T, int Columns>
SWITCHYARD_INLINE void rows_times_w(int n, const T* rows, const T* w, int c, T* out) {
  constexpr int kParts = kChunkRows<T> / kVectorLanes<T>;
  Vector<T> sums[Columns][kParts] = {};
  for (int k = 0; k < n; ++k) {
    Vector<T> parts[kParts];
    for (int p = 0; p < kParts; ++p) {
      load(parts[p], rows + Index{k} * kChunkRows<T> + p * kVectorLanes<T>);
    }
    for (int j = 0; j < Columns; ++j) {
      const T w_kc = w[k + Index{c + j} * n];
      for (int p = 0; p < kParts; ++p) sums[j][p] += parts[p] * w_kc;
    }
  }
  for (int j = 0; j < Columns; ++j) {
    for (int p = 0; p < kParts; ++p) {
      sums[j][p] = -sums[j][p];
      store(out + Index{c + j} * kChunkRows<T> + p * kVectorLanes<T>, sums[j][p]);
    }
  }
}

// Columns of the result formed together by multiply_q: 4 x 4 vectors of sums.
constexpr int kTileColumns = 4;

// Q [S; 0] = [S; 0] - V W with W = T V1^T S, V1 the unit lower triangular top n x n of V.
// Row r of the result needs row r of V only, so the block is overwritten a chunk of rows at
// a time. Each chunk is copied out first: read in place, its n columns (lda apart, often a
// power of two) would compete for the same cache sets on every one of the n passes.
template <class T>
SWITCHYARD_INLINE void multiply_q_body(int h, int n, T* a, Index lda, const T* t, Index ldt,
                                       const T* s, Index lds, T* work) {
  constexpr int kRows = kChunkRows<T>;
  T* const w = work;                     // n x n
  T* const top = work + Index{n} * n;    // n x n: V1^T S, then the top n rows of the result
  T* const rows = top + Index{n} * n;    // kRows x n: rows of V below the top
  T* const chunk = rows + Index{kRows} * n;  // kRows x n: those rows of the result
  for (int c = 0; c < n; ++c) {
    const T* const s_column = s + c * lds;
    for (int i = 0; i < n; ++i) {
      top[i + Index{c} * n] = s_column[i] + dot(n - i - 1, a + i * lda + i + 1, s_column + i + 1);
    }
  }
  for (int c = 0; c < n; ++c) {
    T* const w_column = w + Index{c} * n;
    std::fill_n(w_column, n, T(0));
    for (int k = 0; k < n; ++k) {
      const T m_kc = top[k + Index{c} * n];
      for (int i = 0; i <= k; ++i) w_column[i] += t[i + k * ldt] * m_kc;
    }
  }
  for (int c = 0; c < n; ++c) {
    T* const top_column = top + Index{c} * n;
    const T* const w_column = w + Index{c} * n;
    for (int r = 0; r < n; ++r) top_column[r] = s[r + c * lds] - w_column[r];
    for (int k = 0; k < n; ++k) {
      const T* const v_column = a + k * lda;
      for (int r = k + 1; r < n; ++r) top_column[r] -= v_column[r] * w_column[k];
    }
  }
  for (int c = 0; c < n; ++c) std::copy_n(top + Index{c} * n, n, a + c * lda);

  for (Index first = n; first < h; first += kRows) {
    // The last chunk may be short: the rows past its end in `rows` are stale but finite,
    // and the results for them are not stored.
    const int count = int(std::min<Index>(kRows, h - first));
    for (int k = 0; k < n; ++k) std::copy_n(a + first + k * lda, count, rows + Index{k} * kRows);
    int c = 0;
    for (; c + kTileColumns <= n; c += kTileColumns) {
      rows_times_w<T, kTileColumns>(n, rows, w, c, chunk);
    }
    for (; c < n; ++c) rows_times_w<T, 1>(n, rows, w, c, chunk);
    for (int c = 0; c < n; ++c) std::copy_n(chunk + Index{c} * kRows, count, a + first + c * lda);
  }
}

SWITCHYARD_LEAF_CLONES void factor_block_float(int h, int n, float* a, int lda, float* tau,
                                               float* t, int ldt, float* work) {
  factor_block_body(h, n, a, lda, tau, t, ldt, work);
}

SWITCHYARD_LEAF_CLONES void factor_block_double(int h, int n, double* a, int lda, double* tau,
                                                double* t, int ldt, double* work) {
  factor_block_body(h, n, a, lda, tau, t, ldt, work);
}

SWITCHYARD_LEAF_CLONES void multiply_q_float(int h, int n, float* a, int lda, const float* t,
                                             int ldt, const float* s, int lds, float* work) {
  multiply_q_body(h, n, a, lda, t, ldt, s, lds, work);
}

SWITCHYARD_LEAF_CLONES void multiply_q_double(int h, int n, double* a, int lda, const double* t,
                                              int ldt, const double* s, int lds, double* work) {
  multiply_q_body(h, n, a, lda, t, ldt, s, lds, work);
}

}  // namespace

int multiply_q_work(int n) {
  return 2 * n * n + 2 * std::max(kChunkRows<float>, kChunkRows<double>) * n;
}

int factor_block_work(int n) { return kPanel * n; }

template <>
void factor_block<float>(int h, int n, float* a, int lda, float* tau, float* t, int ldt,
                         float* work) {
  factor_block_float(h, n, a, lda, tau, t, ldt, work);
}

template <>
void factor_block<double>(int h, int n, double* a, int lda, double* tau, double* t, int ldt,
                          double* work) {
  factor_block_double(h, n, a, lda, tau, t, ldt, work);
}

template <>
void multiply_q<float>(int h, int n, float* a, int lda, const float* t, int ldt, const float* s,
                       int lds, float* work) {
  multiply_q_float(h, n, a, lda, t, ldt, s, lds, work);
}

template <>
void multiply_q<double>(int h, int n, double* a, int lda, const double* t, int ldt,
                        const double* s, int lds, double* work) {
  multiply_q_double(h, n, a, lda, t, ldt, s, lds, work);
}

}  // namespace switchyard::tsqr
