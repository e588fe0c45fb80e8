// Writes a symmetric matrix held internally in every input format of the
// public API, so that tests and tools can feed one problem through each
// path: CSR (0- or 1-based, full or lower triangle), SLAP triad and SLAP
// column (full or lower triangle), and DIA (full or lower half).
#pragma once

#include <vector>

#include "cg/matrix.hpp"
#include "switchyard.h"

namespace switchyard::cg {

// Arrays of one matrix in one format, and the descriptor that points at them
// (valid while this object lives and is not moved).
template <class V>
struct FormattedMatrix {
  std::vector<int> ia, ja, offsets;
  std::vector<V> values;
  switchyard_cg_matrix descriptor() const;
  int format = SWITCHYARD_CG_CSR, symmetry = SWITCHYARD_CG_FULL, n = 0, index_base = 0;
};

template <class V>
FormattedMatrix<V> to_csr(const LowerCsr<V>& lower, int symmetry, int index_base);
template <class V>
FormattedMatrix<V> to_slap_triad(const LowerCsr<V>& lower, int symmetry);
template <class V>
FormattedMatrix<V> to_slap_column(const LowerCsr<V>& lower, int symmetry);
template <class V>
FormattedMatrix<V> to_dia(const DiaHalf<V>& dia, int symmetry);

}  // namespace switchyard::cg
