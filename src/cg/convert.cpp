#include "cg/convert.hpp"

#include <algorithm>

namespace switchyard::cg {

template <class V>
double dia_product_bytes(int n, int ndiag) {
  return double(n) * ((1.0 + ndiag) * sizeof(V) + 2.0 * sizeof(double));
}

template <class V>
double csr_product_bytes(int n, double full_nnz) {
  return full_nnz * double(sizeof(V) + sizeof(int)) + (n + 1.0) * sizeof(Index) +
         2.0 * n * sizeof(double);
}

template <class V>
KernelChoice choose_kernel(const LowerCsr<V>& lower, double dia_max_ratio, const Kernel* forced) {
  const int n = lower.n;
  std::vector<char> seen(std::size_t(n), 0);
  KernelChoice c;
  double off_diagonal = 0.0, diagonal = 0.0;
  for (int i = 0; i < n; ++i) {
    for (Index k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
      const int m = i - lower.col[std::size_t(k)];
      if (m == 0) {
        diagonal += 1.0;
        continue;
      }
      off_diagonal += 1.0;
      if (!seen[std::size_t(m)]) {
        seen[std::size_t(m)] = 1;
        ++c.ndiag;
      }
    }
  }
  c.dia_bytes = dia_product_bytes<V>(n, c.ndiag);
  c.csr_bytes = csr_product_bytes<V>(n, diagonal + 2.0 * off_diagonal);
  if (forced) {
    c.kernel = *forced;
  } else {
    c.kernel = c.dia_bytes <= dia_max_ratio * c.csr_bytes ? Kernel::dia : Kernel::csr;
  }
  return c;
}

template <class V>
DiaHalf<V> dia_from_lower(const LowerCsr<V>& lower) {
  const int n = lower.n;
  DiaHalf<V> dia;
  dia.n = n;
  dia.diag.assign(std::size_t(n), V(0));
  std::vector<int> slot(std::size_t(n), -1);  // slot[m]: which stored diagonal has offset m
  for (int i = 0; i < n; ++i) {
    for (Index k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
      const int m = i - lower.col[std::size_t(k)];
      if (m > 0) slot[std::size_t(m)] = 0;
    }
  }
  for (int m = 1; m < n; ++m) {
    if (slot[std::size_t(m)] == 0) {
      slot[std::size_t(m)] = dia.ndiag();
      dia.offsets.push_back(m);
    }
  }
  dia.lower.assign(dia.offsets.size() * std::size_t(n), V(0));
  for (int i = 0; i < n; ++i) {
    for (Index k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
      const int m = i - lower.col[std::size_t(k)];
      const V v = lower.val[std::size_t(k)];
      if (m == 0) {
        dia.diag[std::size_t(i)] = v;
      } else {
        dia.lower[std::size_t(slot[std::size_t(m)]) * std::size_t(n) + std::size_t(i)] = v;
      }
    }
  }
  return dia;
}

template <class V>
CsrFull<V> csr_from_lower(const LowerCsr<V>& lower) {
  const int n = lower.n;
  CsrFull<V> csr;
  csr.n = n;
  csr.diag.assign(std::size_t(n), V(0));
  csr.row_ptr.assign(std::size_t(n) + 1, 0);
  // Row i holds lower row i (columns <= i) and then the mirrors of column i
  // of the lower triangle (columns > i), which come out ascending when the
  // lower rows are visited in order.
  for (int i = 0; i < n; ++i) {
    for (Index k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
      const int j = lower.col[std::size_t(k)];
      ++csr.row_ptr[std::size_t(i) + 1];
      if (j != i) ++csr.row_ptr[std::size_t(j) + 1];
    }
  }
  for (int i = 0; i < n; ++i) csr.row_ptr[std::size_t(i) + 1] += csr.row_ptr[std::size_t(i)];
  const std::size_t nnz = std::size_t(csr.row_ptr[std::size_t(n)]);
  csr.col.resize(nnz);
  csr.val.resize(nnz);
  std::vector<Index> fill(csr.row_ptr.begin(), csr.row_ptr.end() - 1);
  for (int i = 0; i < n; ++i) {
    for (Index k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
      const Index at = fill[std::size_t(i)]++;
      csr.col[std::size_t(at)] = lower.col[std::size_t(k)];
      csr.val[std::size_t(at)] = lower.val[std::size_t(k)];
    }
  }
  for (int i = 0; i < n; ++i) {
    for (Index k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
      const int j = lower.col[std::size_t(k)];
      const V v = lower.val[std::size_t(k)];
      if (j == i) {
        csr.diag[std::size_t(i)] = v;
        continue;
      }
      const Index at = fill[std::size_t(j)]++;
      csr.col[std::size_t(at)] = i;
      csr.val[std::size_t(at)] = v;
    }
  }
  return csr;
}

template <class V>
LowerCsr<V> lower_from_dia(const DiaHalf<V>& dia, bool drop_zeros) {
  const int n = dia.n;
  LowerCsr<V> lower;
  lower.n = n;
  lower.row_ptr.assign(std::size_t(n) + 1, 0);
  // Diagonals by decreasing offset give ascending columns in each row.
  std::vector<int> by_column(std::size_t(dia.ndiag()));
  for (int d = 0; d < dia.ndiag(); ++d) by_column[std::size_t(d)] = dia.ndiag() - 1 - d;
  const auto keep = [&](V v) { return !drop_zeros || v != V(0); };
  for (int pass = 0; pass < 2; ++pass) {
    Index k = 0;
    for (int i = 0; i < n; ++i) {
      for (int d : by_column) {
        const int m = dia.offsets[std::size_t(d)];
        if (i < m) continue;
        const V v = dia.lower_diagonal(d)[i];
        if (!keep(v)) continue;
        if (pass == 1) {
          lower.col[std::size_t(k)] = i - m;
          lower.val[std::size_t(k)] = v;
        }
        ++k;
      }
      const V v = dia.diag[std::size_t(i)];
      if (keep(v)) {
        if (pass == 1) {
          lower.col[std::size_t(k)] = i;
          lower.val[std::size_t(k)] = v;
        }
        ++k;
      }
      if (pass == 0) lower.row_ptr[std::size_t(i) + 1] = k;
    }
    if (pass == 0) {
      lower.col.resize(std::size_t(k));
      lower.val.resize(std::size_t(k));
    }
  }
  return lower;
}

template double dia_product_bytes<double>(int, int);
template double csr_product_bytes<double>(int, double);
template KernelChoice choose_kernel<double>(const LowerCsr<double>&, double, const Kernel*);
template DiaHalf<double> dia_from_lower<double>(const LowerCsr<double>&);
template CsrFull<double> csr_from_lower<double>(const LowerCsr<double>&);
template LowerCsr<double> lower_from_dia<double>(const DiaHalf<double>&, bool);
template double dia_product_bytes<float>(int, int);
template double csr_product_bytes<float>(int, double);
template KernelChoice choose_kernel<float>(const LowerCsr<float>&, double, const Kernel*);
template DiaHalf<float> dia_from_lower<float>(const LowerCsr<float>&);
template CsrFull<float> csr_from_lower<float>(const LowerCsr<float>&);
template LowerCsr<float> lower_from_dia<float>(const DiaHalf<float>&, bool);

}  // namespace switchyard::cg
