// From the lower-triangle CSR of a checked input to the form the kernels
// run on, and the rule that picks it.
//
// Half-storage DIA moves (1 + ndiag) * n values per product, padding
// included, and no indices; full CSR moves every entry of both triangles
// with its column index, plus the row pointers. Both read x and write y.
// DIA is chosen when its bytes are at most `dia_max_ratio` times CSR's
// (SWITCHYARD_CG_DIA_MAX_RATIO, default kDefaultDiaMaxRatio): equal bytes
// favour DIA, whose loads are contiguous and need no index. For the
// 27-point FEM matrix DIA moves 0.37 of CSR's bytes; a random sparse band
// pads so much that CSR wins.
#pragma once

#include "cg/matrix.hpp"

namespace switchyard::cg {

inline constexpr double kDefaultDiaMaxRatio = 1.0;

enum class Kernel { dia, csr };

struct KernelChoice {
  Kernel kernel = Kernel::csr;
  int ndiag = 0;            // distinct lower diagonals (offsets > 0)
  double dia_bytes = 0.0;   // bytes one product moves in each form
  double csr_bytes = 0.0;
};

template <class V>
double dia_product_bytes(int n, int ndiag);
template <class V>
double csr_product_bytes(int n, double full_nnz);

// Measures both forms for `lower` and picks one; `forced` (if not null)
// overrides the ratio rule.
template <class V>
KernelChoice choose_kernel(const LowerCsr<V>& lower, double dia_max_ratio, const Kernel* forced);

template <class V>
DiaHalf<V> dia_from_lower(const LowerCsr<V>& lower);

template <class V>
CsrFull<V> csr_from_lower(const LowerCsr<V>& lower);

// The stored lower triangle of a half DIA matrix, padding left out; entries
// that are zero inside the band are kept unless drop_zeros.
template <class V>
LowerCsr<V> lower_from_dia(const DiaHalf<V>& dia, bool drop_zeros);

}  // namespace switchyard::cg
