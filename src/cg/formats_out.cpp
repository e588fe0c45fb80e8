#include "cg/formats_out.hpp"

#include <type_traits>

#include "cg/convert.hpp"

namespace switchyard::cg {

template <class V>
switchyard_cg_matrix FormattedMatrix<V>::descriptor() const {
  switchyard_cg_matrix a{};
  a.format = format;
  a.symmetry = symmetry;
  a.value_type = std::is_same<V, float>::value ? SWITCHYARD_CG_FLOAT : SWITCHYARD_CG_DOUBLE;
  a.n = n;
  a.values = values.data();
  switch (format) {
    case SWITCHYARD_CG_CSR:
      a.index_base = index_base;
      a.row_ptr = ia.data();
      a.col_idx = ja.data();
      break;
    case SWITCHYARD_CG_DIA:
      a.ndiag = int(offsets.size());
      a.offsets = offsets.data();
      break;
    default:
      a.nelt = int(values.size());
      a.ia = ia.data();
      a.ja = ja.data();
  }
  return a;
}

template <class V>
FormattedMatrix<V> to_csr(const LowerCsr<V>& lower, int symmetry, int index_base) {
  FormattedMatrix<V> out;
  out.format = SWITCHYARD_CG_CSR;
  out.symmetry = symmetry;
  out.n = lower.n;
  out.index_base = index_base;
  if (symmetry == SWITCHYARD_CG_TRIANGLE) {
    for (Index p : lower.row_ptr) out.ia.push_back(int(p) + index_base);
    for (int c : lower.col) out.ja.push_back(c + index_base);
    out.values = lower.val;
    return out;
  }
  const CsrFull<V> full = csr_from_lower(lower);
  for (Index p : full.row_ptr) out.ia.push_back(int(p) + index_base);
  for (int c : full.col) out.ja.push_back(c + index_base);
  out.values = full.val;
  return out;
}

template <class V>
FormattedMatrix<V> to_slap_triad(const LowerCsr<V>& lower, int symmetry) {
  // By rows, 1-based: a valid triad; the tests shuffle it.
  FormattedMatrix<V> csr = to_csr(lower, symmetry, 1);
  FormattedMatrix<V> out;
  out.format = SWITCHYARD_CG_SLAP_TRIAD;
  out.symmetry = symmetry;
  out.n = lower.n;
  for (int i = 0; i < lower.n; ++i) {
    for (int k = csr.ia[std::size_t(i)] - 1; k < csr.ia[std::size_t(i) + 1] - 1; ++k) {
      out.ia.push_back(i + 1);
      out.ja.push_back(csr.ja[std::size_t(k)]);
      out.values.push_back(csr.values[std::size_t(k)]);
    }
  }
  return out;
}

template <class V>
FormattedMatrix<V> to_slap_column(const LowerCsr<V>& lower, int symmetry) {
  // Column j of a symmetric matrix is row j: the full rows, or for one
  // triangle the lower triangle's columns (upper triangle's rows). Each
  // column starts with its diagonal, then the other rows ascending.
  const CsrFull<V> full = csr_from_lower(lower);
  FormattedMatrix<V> out;
  out.format = SWITCHYARD_CG_SLAP_COLUMN;
  out.symmetry = symmetry;
  out.n = lower.n;
  out.ja.push_back(1);
  for (int j = 0; j < lower.n; ++j) {
    out.ia.push_back(j + 1);
    out.values.push_back(full.diag[std::size_t(j)]);
    for (Index k = full.row_ptr[std::size_t(j)]; k < full.row_ptr[std::size_t(j) + 1]; ++k) {
      const int i = full.col[std::size_t(k)];
      if (i == j || (symmetry == SWITCHYARD_CG_TRIANGLE && i < j)) continue;
      out.ia.push_back(i + 1);
      out.values.push_back(full.val[std::size_t(k)]);
    }
    out.ja.push_back(int(out.values.size()) + 1);
  }
  return out;
}

template <class V>
FormattedMatrix<V> to_dia(const DiaHalf<V>& dia, int symmetry) {
  const std::size_t n = std::size_t(dia.n);
  FormattedMatrix<V> out;
  out.format = SWITCHYARD_CG_DIA;
  out.symmetry = symmetry;
  out.n = dia.n;
  const std::size_t stored = std::size_t(dia.ndiag()) * (symmetry == SWITCHYARD_CG_FULL ? 2 : 1) + 1;
  out.offsets.reserve(stored);
  out.values.reserve(stored * n);  // the largest grids hold gigabytes: no regrowth
  const auto add = [&](int offset, auto value_at) {
    out.offsets.push_back(offset);
    for (std::size_t i = 0; i < n; ++i) out.values.push_back(value_at(i));
  };
  // Lower diagonals, a(i, i - m) at index i (padding 0 at the top).
  for (int d = dia.ndiag() - 1; d >= 0; --d) {
    add(-dia.offsets[std::size_t(d)], [&](std::size_t i) { return dia.lower_diagonal(d)[i]; });
  }
  add(0, [&](std::size_t i) { return dia.diag[i]; });
  if (symmetry == SWITCHYARD_CG_FULL) {
    // Upper diagonals, a(i, i + m) = a(i + m, i) at index i (padding 0 at the bottom).
    for (int d = 0; d < dia.ndiag(); ++d) {
      const std::size_t m = std::size_t(dia.offsets[std::size_t(d)]);
      add(int(m), [&](std::size_t i) { return i + m < n ? dia.lower_diagonal(d)[i + m] : V(0); });
    }
  }
  return out;
}

template struct FormattedMatrix<double>;
template struct FormattedMatrix<float>;
template FormattedMatrix<double> to_csr<double>(const LowerCsr<double>&, int, int);
template FormattedMatrix<float> to_csr<float>(const LowerCsr<float>&, int, int);
template FormattedMatrix<double> to_slap_triad<double>(const LowerCsr<double>&, int);
template FormattedMatrix<float> to_slap_triad<float>(const LowerCsr<float>&, int);
template FormattedMatrix<double> to_slap_column<double>(const LowerCsr<double>&, int);
template FormattedMatrix<float> to_slap_column<float>(const LowerCsr<float>&, int);
template FormattedMatrix<double> to_dia<double>(const DiaHalf<double>&, int);
template FormattedMatrix<float> to_dia<float>(const DiaHalf<float>&, int);

}  // namespace switchyard::cg
