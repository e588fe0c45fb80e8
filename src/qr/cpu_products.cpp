#include "cpu_products.hpp"

#include <algorithm>

#include "tsqr/cpu_simd.hpp"

namespace switchyard::qr {
namespace {

using Index = std::ptrdiff_t;
using cpu_simd::chunk_times_w;
using cpu_simd::kChunkParts;
using cpu_simd::kChunkRows;
using cpu_simd::kVectorLanes;
using cpu_simd::load;
using cpu_simd::store;
using cpu_simd::Vector;

// V^T C is formed in tiles of up to kTile x kTile: 9 vectors of sums and the 6 loaded fit
// AVX2's 16 registers, and each loaded vector serves 3 products.
constexpr int kTile = 3;

// out(i0.., j0..) += V(:, i0..i0+I-1)^T C(:, j0..j0+J-1) over h rows.
template <int I, int J, class T>
SWITCHYARD_INLINE void transposed_tile(Index h, const T* v, Index ldv, const T* c, Index ldc,
                                       int i0, int j0, T* out, int ldo) {
  constexpr int kL = kVectorLanes<T>;
  const T* vs[I];
  const T* cs[J];
  for (int i = 0; i < I; ++i) vs[i] = v + Index{i0 + i} * ldv;
  for (int j = 0; j < J; ++j) cs[j] = c + Index{j0 + j} * ldc;
  Vector<T> sums[I][J] = {};
  Index r = 0;
  for (; r + kL <= h; r += kL) {
    Vector<T> v_part[I], c_part[J];
#pragma GCC unroll 3
    for (int i = 0; i < I; ++i) load(v_part[i], vs[i] + r);
#pragma GCC unroll 3
    for (int j = 0; j < J; ++j) load(c_part[j], cs[j] + r);
#pragma GCC unroll 3
    for (int i = 0; i < I; ++i) {
#pragma GCC unroll 3
      for (int j = 0; j < J; ++j) sums[i][j] += v_part[i] * c_part[j];
    }
  }
  for (int i = 0; i < I; ++i) {
    for (int j = 0; j < J; ++j) {
      T lanes[kL];
      store(lanes, sums[i][j]);
      for (Index t = r; t < h; ++t) lanes[t - r] += vs[i][t] * cs[j][t];
      for (int width = kL / 2; width > 0; width /= 2) {
        for (int l = 0; l < width; ++l) lanes[l] += lanes[l + width];
      }
      out[(i0 + i) + Index{j0 + j} * ldo] += lanes[0];
    }
  }
}

// The tiles of the J columns of C from j0, over every column of V.
template <int J, class T>
SWITCHYARD_INLINE void transposed_columns(Index h, int k, const T* v, Index ldv, const T* c,
                                          Index ldc, int j0, T* out, int ldo) {
  int i0 = 0;
  for (; i0 + kTile <= k; i0 += kTile)
    transposed_tile<kTile, J>(h, v, ldv, c, ldc, i0, j0, out, ldo);
  if (k - i0 == 2) transposed_tile<2, J>(h, v, ldv, c, ldc, i0, j0, out, ldo);
  if (k - i0 == 1) transposed_tile<1, J>(h, v, ldv, c, ldc, i0, j0, out, ldo);
}

template <class T>
SWITCHYARD_INLINE void add_transposed_product_body(Index h, int k, const T* v, Index ldv, int nc,
                                                   const T* c, Index ldc, T* out, int ldo) {
  int j0 = 0;
  for (; j0 + kTile <= nc; j0 += kTile) {
    transposed_columns<kTile>(h, k, v, ldv, c, ldc, j0, out, ldo);
  }
  if (nc - j0 == 2) transposed_columns<2>(h, k, v, ldv, c, ldc, j0, out, ldo);
  if (nc - j0 == 1) transposed_columns<1>(h, k, v, ldv, c, ldc, j0, out, ldo);
}

// C(r0.., j0..j0+J-1) -= V W(:, j0..) for the kChunkRows rows from r0 (cpu_simd.hpp's tile).
template <int J, class T>
SWITCHYARD_INLINE void subtract_chunk(Index r0, int k, const T* v, Index ldv, const T* w, int ldw,
                                      int j0, T* c, Index ldc) {
  Vector<T> sums[J][kChunkParts<T>];
  chunk_times_w<J>(k, v + r0, ldv, w, ldw, j0, sums);
  for (int j = 0; j < J; ++j) {
    T* const c_column = c + Index{j0 + j} * ldc + r0;
    for (int p = 0; p < kChunkParts<T>; ++p) {
      Vector<T> c_part;
      load(c_part, c_column + p * kVectorLanes<T>);
      c_part -= sums[j][p];
      store(c_column + p * kVectorLanes<T>, c_part);
    }
  }
}

template <class T>
SWITCHYARD_INLINE void subtract_product_body(Index h, int k, const T* v, Index ldv, int nc,
                                             const T* w, int ldw, T* c, Index ldc) {
  Index r0 = 0;
  for (; r0 + kChunkRows<T> <= h; r0 += kChunkRows<T>) {
    int j0 = 0;
    for (; j0 + kTile <= nc; j0 += kTile) subtract_chunk<kTile>(r0, k, v, ldv, w, ldw, j0, c, ldc);
    if (nc - j0 == 2) subtract_chunk<2>(r0, k, v, ldv, w, ldw, j0, c, ldc);
    if (nc - j0 == 1) subtract_chunk<1>(r0, k, v, ldv, w, ldw, j0, c, ldc);
  }
  // The last rows, fewer than a chunk, one at a time.
  for (int j = 0; j < nc; ++j) {
    T* const c_column = c + Index{j} * ldc;
    for (Index r = r0; r < h; ++r) {
      T sum = 0;
      for (int kk = 0; kk < k; ++kk) sum += v[r + Index{kk} * ldv] * w[kk + Index{j} * ldw];
      c_column[r] -= sum;
    }
  }
}

SWITCHYARD_LEVEL_CLONES void add_transposed_product_float(Index h, int k, const float* v, Index ldv,
                                                          int nc, const float* c, Index ldc,
                                                          float* out, int ldo) {
  add_transposed_product_body(h, k, v, ldv, nc, c, ldc, out, ldo);
}

SWITCHYARD_LEVEL_CLONES void add_transposed_product_double(Index h, int k, const double* v,
                                                           Index ldv, int nc, const double* c,
                                                           Index ldc, double* out, int ldo) {
  add_transposed_product_body(h, k, v, ldv, nc, c, ldc, out, ldo);
}

SWITCHYARD_LEVEL_CLONES void subtract_product_float(Index h, int k, const float* v, Index ldv,
                                                    int nc, const float* w, int ldw, float* c,
                                                    Index ldc) {
  subtract_product_body(h, k, v, ldv, nc, w, ldw, c, ldc);
}

SWITCHYARD_LEVEL_CLONES void subtract_product_double(Index h, int k, const double* v, Index ldv,
                                                     int nc, const double* w, int ldw, double* c,
                                                     Index ldc) {
  subtract_product_body(h, k, v, ldv, nc, w, ldw, c, ldc);
}

}  // namespace

template <>
void add_transposed_product<float>(Index h, int k, const float* v, Index ldv, int nc,
                                   const float* c, Index ldc, float* out, int ldo) {
  add_transposed_product_float(h, k, v, ldv, nc, c, ldc, out, ldo);
}

template <>
void add_transposed_product<double>(Index h, int k, const double* v, Index ldv, int nc,
                                    const double* c, Index ldc, double* out, int ldo) {
  add_transposed_product_double(h, k, v, ldv, nc, c, ldc, out, ldo);
}

template <>
void subtract_product<float>(Index h, int k, const float* v, Index ldv, int nc, const float* w,
                             int ldw, float* c, Index ldc) {
  subtract_product_float(h, k, v, ldv, nc, w, ldw, c, ldc);
}

template <>
void subtract_product<double>(Index h, int k, const double* v, Index ldv, int nc, const double* w,
                              int ldw, double* c, Index ldc) {
  subtract_product_double(h, k, v, ldv, nc, w, ldw, c, ldc);
}

}  // namespace switchyard::qr
