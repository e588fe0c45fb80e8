// The internal forms of a symmetric matrix that the CG kernels run on, and
// the lower-triangle CSR every CSR or SLAP input is first read into.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard::cg {

using Index = std::int64_t;

// Half-storage DIA (compressed diagonal storage, symmetric lower half): the
// diagonal and the lower diagonals at distances offsets[d] > 0 (ascending),
// row-aligned, lower[d * n + i] = a(i, i - offsets[d]); entries of rows
// i < offsets[d] are padding and hold 0. By symmetry a(i, i + m) is
// lower[d * n + i + m], so each row reads what it needs without atomics.
template <class V>
struct DiaHalf {
  int n = 0;
  std::vector<V> diag;
  std::vector<int> offsets;
  std::vector<V> lower;

  int ndiag() const { return int(offsets.size()); }
  const V* lower_diagonal(int d) const { return lower.data() + std::size_t(d) * std::size_t(n); }
};

// A symmetric matrix with all its entries: CSR, 0-based, columns ascending
// in each row, row pointers 64-bit (the large grids exceed 2^31 entries).
template <class V>
struct CsrFull {
  int n = 0;
  std::vector<Index> row_ptr;
  std::vector<int> col;
  std::vector<V> val;
  std::vector<V> diag;  // a(i, i), 0 where absent: the Jacobi preconditioner reads it
};

// The lower triangle (diagonal included) of a checked input: CSR, 0-based,
// columns strictly ascending in each row.
template <class V>
struct LowerCsr {
  int n = 0;
  std::vector<Index> row_ptr;
  std::vector<int> col;
  std::vector<V> val;
};

}  // namespace switchyard::cg
