#include "cpu_leaf.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>

#include "cpu_simd.hpp"

namespace switchyard::tsqr {
namespace {

using Index = std::ptrdiff_t;

using cpu_simd::chunk_times_w;
using cpu_simd::kChunkParts;
using cpu_simd::kChunkRows;
using cpu_simd::kVectorLanes;
using cpu_simd::load;
using cpu_simd::store;
using cpu_simd::Vector;

template <int Lanes, class T>
SWITCHYARD_INLINE T sum_lanes(T* sums) {
  for (int width = Lanes / 2; width > 0; width /= 2)
    for (int l = 0; l < width; ++l) sums[l] += sums[l + width];
  return sums[0];
}

// x^T y in four vectors of partial sums, enough to keep the FMA units busy; summed in a fixed
// order at the end, so the result never depends on timing.
template <class T>
SWITCHYARD_INLINE T dot(Index count, const T* x, const T* y) {
  constexpr int kL = kVectorLanes<T>;
  Vector<T> sums[4] = {}, x_part, y_part;
  Index i = 0;
  for (; i + 4 * kL <= count; i += 4 * kL) {
    for (int p = 0; p < 4; ++p) {
      load(x_part, x + i + p * kL);
      load(y_part, y + i + p * kL);
      sums[p] += x_part * y_part;
    }
  }
  for (; i + kL <= count; i += kL) {
    load(x_part, x + i);
    load(y_part, y + i);
    sums[0] += x_part * y_part;
  }
  sums[0] += sums[1];
  sums[2] += sums[3];
  sums[0] += sums[2];
  T lanes[kL];
  std::memcpy(lanes, &sums[0], sizeof lanes);
  for (int l = 0; i + l < count; ++l) lanes[l] += x[i + l] * y[i + l];
  return sum_lanes<kL>(lanes);
}

template <class T>
SWITCHYARD_INLINE void scale(Index count, T factor, T* x) {
  for (Index i = 0; i < count; ++i) x[i] *= factor;
}

// Whether a sum of squares gives the norm as it is: it lies safely inside the range, so that
// what the squares lost to underflow (at most half the smallest subnormal each) cannot matter
// and none overflowed; or it is NaN, which then propagates.
template <class T>
SWITCHYARD_INLINE bool sum_of_squares_is_safe(T sum) {
  constexpr T kSafeSum = std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  return std::isnan(sum) || (sum >= kSafeSum && sum <= std::numeric_limits<T>::max());
}

// xLAMCH('S') / xLAMCH('E'), the latter being half the machine epsilon: below it |beta| makes
// 1 / (alpha - beta) overflow, and xLARFG rescales.
template <class T>
constexpr T kSafeMin = std::numeric_limits<T>::min() / (std::numeric_limits<T>::epsilon() / 2);

// ||x||_2, kept accurate where squares would underflow or overflow: the plain sum of squares
// is used where it is safe, else the sum of squares of x / max |x|.
template <class T>
SWITCHYARD_INLINE T norm2(Index count, const T* x) {
  const T sum = dot(count, x, x);
  if (sum_of_squares_is_safe(sum)) return std::sqrt(sum);
  T largest = 0;
  for (Index i = 0; i < count; ++i) largest = std::max(largest, std::abs(x[i]));
  if (largest == T(0) || std::isinf(largest)) return largest;
  T sum_scaled = 0;
  for (Index i = 0; i < count; ++i) {
    const T scaled = x[i] / largest;
    sum_scaled += scaled * scaled;
  }
  return largest * std::sqrt(sum_scaled);
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
  constexpr int kMaxRescalings = 20;
  int rescalings = 0;
  if (std::abs(beta) < kSafeMin<T>) {
    do {
      ++rescalings;
      scale(count, 1 / kSafeMin<T>, x);
      beta *= 1 / kSafeMin<T>;
      alpha *= 1 / kSafeMin<T>;
    } while (std::abs(beta) < kSafeMin<T> && rescalings < kMaxRescalings);
    x_norm = norm2(count, x);
    beta = -std::copysign(hypotenuse(alpha, x_norm), alpha);
  }
  const T tau = (beta - alpha) / beta;
  scale(count, 1 / (alpha - beta), x);
  for (int i = 0; i < rescalings; ++i) beta *= kSafeMin<T>;
  alpha = beta;
  return tau;
}

// Reflectors per panel: a panel's reflectors are applied together to the columns right of it,
// so that each of those columns is read and written once per panel rather than once per
// reflector.
constexpr int kPanel = 8;

// Partial sums of kPanel dot products, kept as vectors of lanes across chunks of rows and
// summed once at the end (in a fixed order, as everywhere here).
template <class T>
constexpr int kPanelSums = kPanel* kVectorLanes<T>;

// Adds the products columns[i][r] x[r], rows r in [first, last), to the lanes of sum i in
// `partial` (kPanelSums elements), for i < Count.
template <class T, int Count = kPanel>
SWITCHYARD_INLINE void add_panel_dots(Index first, Index last, const T* const* columns, const T* x,
                                      T* partial) {
  constexpr int kL = kVectorLanes<T>;
  Vector<T> sums[Count], x_part, column_part;
  for (int i = 0; i < Count; ++i) load(sums[i], partial + i * kL);
  Index r = first;
  for (; r + kL <= last; r += kL) {
    load(x_part, x + r);
    for (int i = 0; i < Count; ++i) {
      load(column_part, columns[i] + r);
      sums[i] += column_part * x_part;
    }
  }
  for (int i = 0; i < Count; ++i) {
    store(partial + i * kL, sums[i]);
    for (int l = 0; r + l < last; ++l) partial[i * kL + l] += columns[i][r + l] * x[r + l];
  }
}

// out[i] += sum i of `partial`, for i < kPanel.
template <class T>
SWITCHYARD_INLINE void add_panel_sums(const T* partial, T* out) {
  constexpr int kL = kVectorLanes<T>;
  for (int i = 0; i < kPanel; ++i) {
    T lanes[kL];
    std::copy_n(partial + i * kL, kL, lanes);
    out[i] += sum_lanes<kL>(lanes);
  }
}

// y[r] -= sum of columns[i][r] w[i] over i < kPanel, for the rows r in [first, last).
template <class T>
SWITCHYARD_INLINE void subtract_panel_combination(Index first, Index last, const T* const* columns,
                                                  const T* w, T* __restrict y) {
  constexpr int kL = kVectorLanes<T>;
  Index r = first;
  Vector<T> y_part, column_part;
  for (; r + kL <= last; r += kL) {
    load(y_part, y + r);
    for (int i = 0; i < kPanel; ++i) {
      load(column_part, columns[i] + r);
      y_part -= column_part * w[i];
    }
    store(y + r, y_part);
  }
  for (; r < last; ++r) {
    T value = y[r];
    for (int i = 0; i < kPanel; ++i) value -= columns[i][r] * w[i];
    y[r] = value;
  }
}

template <class T>
SWITCHYARD_INLINE void panel_columns(const T* a, Index lda, int j0, const T** columns) {
  for (int i = 0; i < kPanel; ++i) columns[i] = a + (j0 + i) * lda;
}

// The sums over rows c + 1.. that the reflector of column c needs: sums[0] = ||x||^2 for x its
// part below the diagonal, sums[k] = x^T (the same rows of column c + k), 0 < k < Count. Vectors
// of lanes summed in a fixed order at the end, as in dot.
template <class T, int Count>
struct ColumnSums {
  static_assert(Count >= 1 && Count <= kPanel);
  Vector<T> lanes[Count] = {};

  // Adds rows [i, i + lanes) of the columns, `x` the first one's and `others[k - 1]` column
  // c + k's.
  SWITCHYARD_INLINE void add(const Vector<T>& x, const Vector<T>* others) {
    lanes[0] += x * x;
    for (int k = 1; k < Count; ++k) lanes[k] += x * others[k - 1];
  }

  // The totals, with the rows [i, h) past the last whole vector added one to each lane.
  SWITCHYARD_INLINE void finish(Index i, Index h, const T* x, const T* const* others, T* sums) {
    constexpr int kL = kVectorLanes<T>;
    for (int k = 0; k < Count; ++k) {
      const T* const y = k == 0 ? x : others[k - 1];
      T lane[kL];
      std::memcpy(lane, &lanes[k], sizeof lane);
      for (int l = 0; i + l < h; ++l) lane[l] += x[i + l] * y[i + l];
      sums[k] = sum_lanes<kL>(lane);
    }
  }
};

// The first column's sums (ColumnSums) over its rows below the diagonal, for a panel of Count
// columns from column c.
template <class T, int Count>
SWITCHYARD_INLINE void first_column_sums(Index h, int c, const T* a, Index lda, T* sums) {
  constexpr int kL = kVectorLanes<T>;
  const T* const x = a + c * lda;
  const T* others[kPanel];
  for (int k = 1; k < Count; ++k) others[k - 1] = a + (c + k) * lda;
  ColumnSums<T, Count> column_sums;
  Index i = c + 1;
  for (; i + kL <= h; i += kL) {
    Vector<T> x_part, other_parts[kPanel];
    load(x_part, x + i);
    for (int k = 1; k < Count; ++k) load(other_parts[k - 1], others[k - 1] + i);
    column_sums.add(x_part, other_parts);
  }
  column_sums.finish(i, h, x, others, sums);
}

// One pass down column j's rows below its diagonal, x: v = sigma x is stored over x, H(j) is
// applied to the Later columns right of j in the panel (column j + 1 + k less w[k] v), and the
// next column's sums (ColumnSums, over rows j + 2..) are taken from the updated columns as they
// go by, so that each column is read once per reflector rather than three times.
template <class T, int Later>
SWITCHYARD_INLINE void apply_reflector(Index h, int j, T* a, Index lda, T sigma, const T* w,
                                       T* sums) {
  constexpr int kL = kVectorLanes<T>;
  T* const x = a + j * lda;
  T* later[kPanel];
  for (int k = 0; k < Later; ++k) later[k] = a + (j + 1 + k) * lda;
  Index i = j + 1;
  if (i < h) {  // the next column's diagonal row: updated, not summed
    const T v = x[i] * sigma;
    x[i] = v;
    for (int k = 0; k < Later; ++k) later[k][i] -= w[k] * v;
    ++i;
  }
  if constexpr (Later == 0) {
    for (; i < h; ++i) x[i] *= sigma;
  } else {
    ColumnSums<T, Later> column_sums;
    for (; i + kL <= h; i += kL) {
      Vector<T> v, parts[Later];
      load(v, x + i);
      v *= sigma;
      store(x + i, v);
      for (int k = 0; k < Later; ++k) {
        load(parts[k], later[k] + i);
        parts[k] -= v * w[k];
        store(later[k] + i, parts[k]);
      }
      column_sums.add(parts[0], parts + 1);
    }
    for (Index r = i; r < h; ++r) {
      const T v = x[r] * sigma;
      x[r] = v;
      for (int k = 0; k < Later; ++k) later[k][r] -= w[k] * v;
    }
    column_sums.finish(i, h, later[0], later + 1, sums);
  }
}

// first_column_sums for a panel of `count` columns, 0 < count <= kPanel.
template <class T, int Count = 1>
SWITCHYARD_INLINE void first_column_sums_of(int count, Index h, int c, const T* a, Index lda,
                                            T* sums) {
  if constexpr (Count < kPanel) {
    if (count != Count) return first_column_sums_of<T, Count + 1>(count, h, c, a, lda, sums);
  }
  first_column_sums<T, Count>(h, c, a, lda, sums);
}

// apply_reflector with `later` columns right of j in the panel, 0 <= later < kPanel.
template <class T, int Later = 0>
SWITCHYARD_INLINE void apply_reflector_to(int later, Index h, int j, T* a, Index lda, T sigma,
                                          const T* w, T* sums) {
  if constexpr (Later + 1 < kPanel) {
    if (later != Later)
      return apply_reflector_to<T, Later + 1>(later, h, j, a, lda, sigma, w, sums);
  }
  apply_reflector<T, Later>(h, j, a, lda, sigma, w, sums);
}

// xLARFG's reflector for [alpha; x] from ||x||^2, where make_reflector would take that sum as it
// is and need no rescaling: sets tau, sigma = 1 / (alpha - beta), by which x becomes v, and
// alpha = beta, and returns true. Otherwise returns false, and make_reflector must choose it
// from x itself.
template <class T>
SWITCHYARD_INLINE bool reflector_from_sum(T squares, T& alpha, T& tau, T& sigma) {
  if (!sum_of_squares_is_safe(squares)) return false;
  const T beta = -std::copysign(hypotenuse(alpha, std::sqrt(squares)), alpha);
  if (std::abs(beta) < kSafeMin<T>) return false;
  tau = (beta - alpha) / beta;
  sigma = 1 / (alpha - beta);
  alpha = beta;
  return true;
}

// Reduces the panel's columns j0..j1-1 one reflector at a time, each applied to the panel's
// columns right of it. A reflector needs its column's norm and its products with the later
// columns, which the pass applying the reflector before takes on its way (apply_reflector).
// The products with the panel's earlier vectors, for T, are left to products_with_panels.
template <class T>
SWITCHYARD_INLINE void reduce_panel(int h, int j0, int j1, T* a, Index lda, T* tau) {
  T sums[kPanel];
  first_column_sums_of(j1 - j0, h, j0, a, lda, sums);
  for (int j = j0; j < j1; ++j) {
    T* const column = a + j * lda;
    T* const x = column + j + 1;
    const Index below = h - j - 1;
    const int later = j1 - j - 1;
    T tau_j = 0;
    T sigma = 1;
    T products[kPanel];  // v^T (rows j + 1.. of each later column)
    if (reflector_from_sum(sums[0], column[j], tau_j, sigma)) {
      for (int k = 0; k < later; ++k) products[k] = sigma * sums[k + 1];
    } else {
      tau_j = make_reflector(below, column[j], x);
      for (int k = 0; k < later; ++k) products[k] = dot(below, x, a + (j + 1 + k) * lda + j + 1);
    }
    tau[j] = tau_j;
    T w[kPanel];
    for (int k = 0; k < later; ++k) {
      T& top = a[j + (j + 1 + k) * lda];
      // H(j) = I leaves them as they are: nothing is subtracted, whatever they hold.
      w[k] = tau_j == T(0) ? T(0) : tau_j * (top + products[k]);
      top -= w[k];
    }
    apply_reflector_to(later, h, j, a, lda, sigma, w, sums);
  }
}

// Rows of a panel's vectors that stay in the L1 cache (16 KiB of them) while they meet the
// columns they are multiplied with.
template <class T>
constexpr int kPanelChunk = int(16384 / (kPanel * sizeof(T)));

// add_panel_dots for the first `count` columns only, 0 < count < kPanel: a panel's vectors
// meeting the earlier ones of the same panel.
template <class T, int Count = 1>
SWITCHYARD_INLINE void add_own_panel_dots(int count, Index first, Index last,
                                          const T* const* columns, const T* x, T* partial) {
  if constexpr (Count + 1 < kPanel) {
    if (count != Count) {
      return add_own_panel_dots<T, Count + 1>(count, first, last, columns, x, partial);
    }
  }
  add_panel_dots<T, Count>(first, last, columns, x, partial);
}

// The products [1; v(j)]^T v(k) with the earlier vectors k < j, into T(0:j-1, j) for the
// columns j of the panel j0..j1-1 (those with tau(j) != 0): a chunk of rows at a time, each
// chunk of a panel (the earlier ones, then this one) meeting all of this panel's vectors while it
// is in cache.
template <class T>
SWITCHYARD_INLINE void products_with_panels(int h, int j0, int j1, const T* a, Index lda,
                                            const T* tau, T* t, Index ldt) {
  for (int p = 0; p <= j0; p += kPanel) {
    const bool own = p == j0;
    const T* columns[kPanel];
    // This panel's columns past its end, where it is the block's last and narrower, stand in
    // for nothing: their products are not kept.
    for (int i = 0; i < kPanel; ++i) columns[i] = a + std::min(p + i, j1 - 1) * lda;
    T partial[kPanel][kPanelSums<T>] = {};
    for (Index first = j1; first < h; first += kPanelChunk<T>) {
      const Index last = std::min<Index>(h, first + kPanelChunk<T>);
      for (int j = j0; j < j1; ++j) {
        // The panel's first vector has no earlier one in it.
        if (tau[j] == T(0) || (own && j == j0)) continue;
        if (own) {
          add_own_panel_dots(j - j0, first, last, columns, a + j * lda, partial[j - j0]);
        } else {
          add_panel_dots(first, last, columns, a + j * lda, partial[j - j0]);
        }
      }
    }
    for (int j = j0; j < j1; ++j) {
      if (tau[j] == T(0)) continue;
      // Rows j..j1-1 of [1; v(j)]: the unit, then the part above the dense rows.
      T products[kPanel];
      for (int i = 0; i < kPanel; ++i) {
        T sum = columns[i][j];
        for (int r = j + 1; r < j1; ++r) sum += columns[i][r] * a[r + j * lda];
        products[i] = sum;
      }
      add_panel_sums(partial[j - j0], products);
      std::copy_n(products, own ? j - j0 : kPanel, t + j * ldt + p);
    }
  }
}

// T(0:j-1, j) = -tau(j) T(0:j-1, 0:j-1) V(:, 0:j-1)^T v(j) from the products in T(0:j-1, j),
// T(j, j) = tau(j); needs T's columns left of j. Where H(j) = I the column is zero, as xLARFT
// has it, even where other columns hold Inf or NaN.
template <class T>
SWITCHYARD_INLINE void form_t_column(int j, T tau_j, T* t, Index ldt) {
  T* const t_column = t + j * ldt;
  t_column[j] = tau_j;
  if (tau_j == T(0)) {
    std::fill_n(t_column, j, T(0));
    return;
  }
  // In place, top down: row i needs the products of rows i.. only.
  for (int i = 0; i < j; ++i) {
    T sum = 0;
    for (int k = i; k < j; ++k) sum += t[i + k * ldt] * t_column[k];
    t_column[i] = -tau_j * sum;
  }
}

// Applies (H(j0)...H(j0 + kPanel - 1))^T = I - V T^T V^T, V the panel's vectors and T their
// block of T, to the columns c0..n-1 right of the panel: C -= V (T^T (V^T C)). Both products
// run over chunks of rows, each chunk of V meeting all of C's columns while it is in cache.
// `work` holds (n - c0) (kPanelSums + kPanel) elements.
template <class T>
SWITCHYARD_INLINE void apply_panel(int h, int n, int j0, T* a, Index lda, const T* t, Index ldt,
                                   T* work) {
  const T* columns[kPanel];
  panel_columns<T>(a, lda, j0, columns);
  const int c0 = j0 + kPanel;  // the first column, and the first row below the unit triangle
  T* const partial = work;     // per column: kPanelSums partial sums of V^T C
  T* const weights = work + Index{n - c0} * kPanelSums<T>;  // per column: kPanel of T^T V^T C
  std::fill_n(partial, Index{n - c0} * kPanelSums<T>, T(0));
  for (Index first = c0; first < h; first += kPanelChunk<T>) {
    const Index last = std::min<Index>(h, first + kPanelChunk<T>);
    for (int c = c0; c < n; ++c) {
      add_panel_dots(first, last, columns, a + c * lda, partial + Index{c - c0} * kPanelSums<T>);
    }
  }
  for (int c = c0; c < n; ++c) {
    T* const y = a + c * lda;
    T products[kPanel];
    for (int i = 0; i < kPanel; ++i) {
      T sum = y[j0 + i];
      for (int r = i + 1; r < kPanel; ++r) sum += columns[i][j0 + r] * y[j0 + r];
      products[i] = sum;
    }
    add_panel_sums(partial + Index{c - c0} * kPanelSums<T>, products);
    T* const w = weights + Index{c - c0} * kPanel;
    for (int i = 0; i < kPanel; ++i) {
      T sum = 0;
      for (int k = 0; k <= i; ++k) sum += t[(j0 + k) + (j0 + i) * ldt] * products[k];
      w[i] = sum;
    }
    for (int r = 0; r < kPanel; ++r) {
      T sum = w[r];
      for (int i = 0; i < r; ++i) sum += columns[i][j0 + r] * w[i];
      y[j0 + r] -= sum;
    }
  }
  for (Index first = c0; first < h; first += kPanelChunk<T>) {
    const Index last = std::min<Index>(h, first + kPanelChunk<T>);
    for (int c = c0; c < n; ++c) {
      subtract_panel_combination(first, last, columns, weights + Index{c - c0} * kPanel,
                                 a + c * lda);
    }
  }
}

// Panel by panel: the panel's columns are reduced one at a time, its columns of T formed,
// then its reflectors applied to the columns right of it. Only the last panel can be narrower
// than kPanel, and nothing lies right of it.
template <class T>
SWITCHYARD_INLINE void factor_block_body(int h, int n, T* a, Index lda, T* tau, T* t, Index ldt,
                                         T* work) {
  for (int j0 = 0; j0 < n; j0 += kPanel) {
    const int j1 = std::min(n, j0 + kPanel);
    reduce_panel(h, j0, j1, a, lda, tau);
    products_with_panels(h, j0, j1, a, lda, tau, t, ldt);
    for (int j = j0; j < j1; ++j) form_t_column(j, tau[j], t, ldt);
    if (j1 - j0 == kPanel) apply_panel(h, n, j0, a, lda, t, ldt, work);
  }
}

// Columns of the result that multiply_q forms together (cpu_simd.hpp's tile).
constexpr int kTileColumns = 3;

// Columns c..c+Columns-1 of out = -rows W, rows and out kChunkRows x n (leading dimension
// kChunkRows).
template <class T, int Columns>
SWITCHYARD_INLINE void rows_times_w(int n, const T* rows, const T* w, int c, T* out) {
  Vector<T> sums[Columns][kChunkParts<T>];
  chunk_times_w<Columns>(n, rows, kChunkRows<T>, w, n, c, sums);
  for (int j = 0; j < Columns; ++j) {
    for (int p = 0; p < kChunkParts<T>; ++p) {
      sums[j][p] = -sums[j][p];
      store(out + Index{c + j} * kChunkRows<T> + p * kVectorLanes<T>, sums[j][p]);
    }
  }
}

// Q [S; 0] = [S; 0] - V W with W = T V1^T S, V1 the unit lower triangular top n x n of V.
// Row r of the result needs row r of V only, so the block is overwritten a chunk of rows at
// a time. Each chunk is copied out first: read in place, its n columns (lda apart, often a
// power of two) would compete for the same cache sets on every one of the n passes.
template <class T>
SWITCHYARD_INLINE void multiply_q_body(int h, int n, T* a, Index lda, const T* t, Index ldt,
                                       const T* s, Index lds, T* work) {
  constexpr int kRows = kChunkRows<T>;
  T* const w = work;                         // n x n
  T* const top = work + Index{n} * n;        // n x n: V1^T S, then the top n rows of the result
  T* const rows = top + Index{n} * n;        // kRows x n: rows of V below the top
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

// B = B inv(U), a chunk of rows at a time (copied out, as in multiply_q): column j of the
// chunk is (b(:, j) - sum over k < j of x(:, k) U(k, j)) / U(j, j), as xTRSM forms it.
template <class T>
SWITCHYARD_INLINE void divide_by_upper_body(int m, int n, const T* u, Index ldu, T* b, Index ldb,
                                            T* work) {
  constexpr int kRows = kChunkRows<T>;
  for (Index first = 0; first < m; first += kRows) {
    const int count = int(std::min<Index>(kRows, m - first));
    for (int k = 0; k < n; ++k) std::copy_n(b + first + k * ldb, count, work + Index{k} * kRows);
    for (int j = 0; j < n; ++j) {
      T* const x = work + Index{j} * kRows;
      for (int k = 0; k < j; ++k) {
        const T u_kj = u[k + j * ldu];
        const T* const x_k = work + Index{k} * kRows;
        for (int l = 0; l < count; ++l) x[l] -= x_k[l] * u_kj;
      }
      const T inverse = 1 / u[j + j * ldu];
      for (int l = 0; l < count; ++l) x[l] *= inverse;
    }
    for (int k = 0; k < n; ++k) std::copy_n(work + Index{k} * kRows, count, b + first + k * ldb);
  }
}

SWITCHYARD_LEVEL_CLONES void factor_block_float(int h, int n, float* a, int lda, float* tau,
                                                float* t, int ldt, float* work) {
  factor_block_body(h, n, a, lda, tau, t, ldt, work);
}

SWITCHYARD_LEVEL_CLONES void factor_block_double(int h, int n, double* a, int lda, double* tau,
                                                 double* t, int ldt, double* work) {
  factor_block_body(h, n, a, lda, tau, t, ldt, work);
}

SWITCHYARD_LEVEL_CLONES void multiply_q_float(int h, int n, float* a, Index lda, const float* t,
                                              int ldt, const float* s, int lds, float* work) {
  multiply_q_body(h, n, a, lda, t, ldt, s, lds, work);
}

SWITCHYARD_LEVEL_CLONES void multiply_q_double(int h, int n, double* a, Index lda, const double* t,
                                               int ldt, const double* s, int lds, double* work) {
  multiply_q_body(h, n, a, lda, t, ldt, s, lds, work);
}

SWITCHYARD_LEVEL_CLONES void divide_by_upper_float(int m, int n, const float* u, Index ldu,
                                                   float* b, Index ldb, float* work) {
  divide_by_upper_body(m, n, u, ldu, b, ldb, work);
}

SWITCHYARD_LEVEL_CLONES void divide_by_upper_double(int m, int n, const double* u, Index ldu,
                                                    double* b, Index ldb, double* work) {
  divide_by_upper_body(m, n, u, ldu, b, ldb, work);
}

}  // namespace

int multiply_q_work(int n) {
  return 2 * n * n + 2 * std::max(kChunkRows<float>, kChunkRows<double>) * n;
}

int factor_block_work(int n) {
  return n * (std::max(kPanelSums<float>, kPanelSums<double>) + kPanel);
}

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
void multiply_q<float>(int h, int n, float* a, Index lda, const float* t, int ldt, const float* s,
                       int lds, float* work) {
  multiply_q_float(h, n, a, lda, t, ldt, s, lds, work);
}

template <>
void multiply_q<double>(int h, int n, double* a, Index lda, const double* t, int ldt,
                        const double* s, int lds, double* work) {
  multiply_q_double(h, n, a, lda, t, ldt, s, lds, work);
}

int divide_by_upper_work(int n) { return std::max(kChunkRows<float>, kChunkRows<double>) * n; }

template <>
void divide_by_upper<float>(int m, int n, const float* u, Index ldu, float* b, Index ldb,
                            float* work) {
  divide_by_upper_float(m, n, u, ldu, b, ldb, work);
}

template <>
void divide_by_upper<double>(int m, int n, const double* u, Index ldu, double* b, Index ldb,
                             double* work) {
  divide_by_upper_double(m, n, u, ldu, b, ldb, work);
}

}  // namespace switchyard::tsqr
