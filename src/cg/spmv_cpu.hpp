// Host SpMV on a range of rows, y = A x, returning the sum of x[i] y[i]
// over those rows: the CG folds its p'Ap into the product this way.
#pragma once

#include <algorithm>

#include "cg/matrix.hpp"

namespace switchyard::cg {

// Rows are done in chunks small enough that a chunk of y stays in L1 while
// every diagonal is added to it; each diagonal's loop is then a contiguous,
// vectorisable stream.
inline constexpr Index kDiaChunkRows = 512;

// Half storage: y[i] = D[i] x[i] + sum_d L_d[i] x[i - m_d] + L_d[i + m_d] x[i + m_d].
template <class V>
double spmv_rows(const DiaHalf<V>& a, const double* x, double* y, Index r0, Index r1) {
  const Index n = a.n;
  double dot = 0.0;
  for (Index c0 = r0; c0 < r1; c0 += kDiaChunkRows) {
    const Index c1 = std::min(c0 + kDiaChunkRows, r1);
    for (Index i = c0; i < c1; ++i) y[i] = double(a.diag[std::size_t(i)]) * x[i];
    for (int d = 0; d < a.ndiag(); ++d) {
      const Index m = a.offsets[std::size_t(d)];
      const V* l = a.lower_diagonal(d);
      for (Index i = std::max(c0, m); i < c1; ++i) y[i] += double(l[i]) * x[i - m];
      const Index upper_end = std::min(c1, n - m);
      for (Index i = c0; i < upper_end; ++i) y[i] += double(l[i + m]) * x[i + m];
    }
    for (Index i = c0; i < c1; ++i) dot += x[i] * y[i];
  }
  return dot;
}

template <class V>
double spmv_rows(const CsrFull<V>& a, const double* x, double* y, Index r0, Index r1) {
  double dot = 0.0;
  for (Index i = r0; i < r1; ++i) {
    double s = 0.0;
    for (Index k = a.row_ptr[std::size_t(i)]; k < a.row_ptr[std::size_t(i) + 1]; ++k) {
      s += double(a.val[std::size_t(k)]) * x[a.col[std::size_t(k)]];
    }
    y[i] = s;
    dot += x[i] * s;
  }
  return dot;
}

}  // namespace switchyard::cg
