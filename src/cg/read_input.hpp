// Checks a switchyard_cg_matrix completely and reads it into an internal
// form, before any solver work: CSR and SLAP into the lower-triangle CSR,
// DIA straight into half-storage DIA (no CSR on the way, so a large banded
// matrix never needs one).
#pragma once

#include "cg/matrix.hpp"
#include "switchyard.h"

namespace switchyard::cg {

struct InputError {
  int status = 0;          // 0 or a SWITCHYARD_CG_ERR_* value
  long long bad_entry = -1;
};

// The descriptor's own fields: enumerators, n, the pointers its format needs.
InputError check_descriptor(const switchyard_cg_matrix& a);

// CSR, SLAP triad or SLAP column (format checked by check_descriptor).
template <class V>
InputError read_sparse(const switchyard_cg_matrix& a, LowerCsr<V>& out);

// DIA, full or one triangle.
template <class V>
InputError read_dia(const switchyard_cg_matrix& a, DiaHalf<V>& out);

}  // namespace switchyard::cg
