// The exported CG entry points of switchyard.h: the C API and its Fortran 77
// forms (all arguments by reference, double values).
#include <cmath>

#include "cg/solve.hpp"
#include "export.hpp"
#include "switchyard.h"

namespace switchyard::cg {
namespace {

SolveRequest request_from(const switchyard_cg_options& o) {
  SolveRequest q;
  q.backend = o.backend;
  q.kernel = o.kernel;
  q.params.tolerance = o.tolerance;
  q.params.max_iterations = o.max_iterations;
  q.params.jacobi = o.jacobi != 0;
  q.params.use_initial_guess = o.use_initial_guess != 0;
  return q;
}

// The Fortran 77 entry points: one matrix description each, the same tail.
struct FortranTail {
  const double* tol;
  const int* max_iterations;
  const int* jacobi;
  const int* use_initial_guess;
  const int* backend;
  int* iterations;
  double* relative_residual;
  int* status;
};

void solve_from_fortran(const switchyard_cg_matrix& a, const double* b, double* x,
                        const FortranTail& t) {
  switchyard_cg_options o;
  switchyard_cg_options_default(&o);
  o.tolerance = *t.tol;
  o.max_iterations = *t.max_iterations;
  o.jacobi = *t.jacobi;
  o.use_initial_guess = *t.use_initial_guess;
  o.backend = *t.backend;
  switchyard_cg_result r;
  *t.status = switchyard_cg_solve(&a, b, x, &o, &r);
  *t.iterations = r.iterations;
  *t.relative_residual = r.relative_residual;
}

switchyard_cg_matrix fortran_matrix(int format, int n, const int* isym, const double* values) {
  switchyard_cg_matrix a{};
  a.format = format;
  a.n = n;
  // ISYM as SLAP has it: 0 all entries, 1 one triangle; anything else is
  // passed on to be rejected.
  a.symmetry = *isym == 0 ? SWITCHYARD_CG_FULL : *isym == 1 ? SWITCHYARD_CG_TRIANGLE : -1;
  a.value_type = SWITCHYARD_CG_DOUBLE;
  a.values = values;
  return a;
}

}  // namespace
}  // namespace switchyard::cg

using switchyard::cg::FortranTail;

SWITCHYARD_EXPORT void switchyard_cg_options_default(switchyard_cg_options* options) {
  if (!options) return;
  options->tolerance = 1e-12;
  options->max_iterations = 10000;
  options->jacobi = 1;
  options->use_initial_guess = 0;
  options->backend = SWITCHYARD_CG_AUTO;
  options->kernel = SWITCHYARD_CG_KERNEL_AUTO;
}

SWITCHYARD_EXPORT int switchyard_cg_solve(const switchyard_cg_matrix* a, const double* b,
                                          double* x, const switchyard_cg_options* options,
                                          switchyard_cg_result* result) {
  switchyard_cg_options defaults;
  switchyard_cg_options_default(&defaults);
  const switchyard_cg_options& o = options ? *options : defaults;
  switchyard_cg_result r{};
  if (!a) {
    r.status = SWITCHYARD_CG_ERR_ARGUMENT;
    r.relative_residual = NAN;
    r.bad_entry = -1;
  } else {
    r = switchyard::cg::solve(*a, b, x, switchyard::cg::request_from(o)).result;
  }
  if (result) *result = r;
  return r.status;
}

SWITCHYARD_EXPORT const char* switchyard_cg_status_string(int status) {
  switch (status) {
    case SWITCHYARD_CG_CONVERGED: return "converged";
    case SWITCHYARD_CG_MAX_ITERATIONS: return "not converged in max_iterations";
    case SWITCHYARD_CG_NOT_SPD: return "matrix not positive definite (p'Ap <= 0)";
    case SWITCHYARD_CG_PRECONDITIONER_NOT_SPD:
      return "Jacobi preconditioner not positive definite (a diagonal entry <= 0, or r'z <= 0)";
    case SWITCHYARD_CG_NAN: return "NaN or infinity in the matrix, b, x or an iterate";
    case SWITCHYARD_CG_ERR_N: return "n <= 0, or no entries";
    case SWITCHYARD_CG_ERR_INDEX: return "index or offset out of range, or pointers decreasing";
    case SWITCHYARD_CG_ERR_UNSORTED: return "entries out of the order the format requires";
    case SWITCHYARD_CG_ERR_DUPLICATE: return "an entry given twice";
    case SWITCHYARD_CG_ERR_NOT_SYMMETRIC: return "full storage but a(i,j) != a(j,i)";
    case SWITCHYARD_CG_ERR_ARGUMENT: return "null pointer, unknown enumerator or bad option";
    case SWITCHYARD_CG_ERR_NO_MEMORY: return "host memory ran out";
  }
  return "unknown status";
}

SWITCHYARD_EXPORT void switchyard_cg_csr_(const int* n, const int* row_ptr, const int* col_idx,
                                          const double* a, const int* index_base,
                                          const int* isym, const double* b, double* x,
                                          const double* tol, const int* max_iterations,
                                          const int* jacobi, const int* use_initial_guess,
                                          const int* backend, int* iterations,
                                          double* relative_residual, int* status) {
  switchyard_cg_matrix m = switchyard::cg::fortran_matrix(SWITCHYARD_CG_CSR, *n, isym, a);
  m.index_base = *index_base;
  m.row_ptr = row_ptr;
  m.col_idx = col_idx;
  switchyard::cg::solve_from_fortran(m, b, x,
                                     FortranTail{tol, max_iterations, jacobi, use_initial_guess,
                                                 backend, iterations, relative_residual, status});
}

SWITCHYARD_EXPORT void switchyard_cg_slap_triad_(
    const int* n, const int* nelt, const int* ia, const int* ja, const double* a, const int* isym,
    const double* b, double* x, const double* tol, const int* max_iterations, const int* jacobi,
    const int* use_initial_guess, const int* backend, int* iterations, double* relative_residual,
    int* status) {
  switchyard_cg_matrix m = switchyard::cg::fortran_matrix(SWITCHYARD_CG_SLAP_TRIAD, *n, isym, a);
  m.nelt = *nelt;
  m.ia = ia;
  m.ja = ja;
  switchyard::cg::solve_from_fortran(m, b, x,
                                     FortranTail{tol, max_iterations, jacobi, use_initial_guess,
                                                 backend, iterations, relative_residual, status});
}

SWITCHYARD_EXPORT void switchyard_cg_slap_column_(
    const int* n, const int* nelt, const int* ia, const int* ja, const double* a, const int* isym,
    const double* b, double* x, const double* tol, const int* max_iterations, const int* jacobi,
    const int* use_initial_guess, const int* backend, int* iterations, double* relative_residual,
    int* status) {
  switchyard_cg_matrix m = switchyard::cg::fortran_matrix(SWITCHYARD_CG_SLAP_COLUMN, *n, isym, a);
  m.nelt = *nelt;
  m.ia = ia;
  m.ja = ja;
  switchyard::cg::solve_from_fortran(m, b, x,
                                     FortranTail{tol, max_iterations, jacobi, use_initial_guess,
                                                 backend, iterations, relative_residual, status});
}

SWITCHYARD_EXPORT void switchyard_cg_dia_(const int* n, const int* ndiag, const int* offsets,
                                          const double* diags, const int* isym, const double* b,
                                          double* x, const double* tol,
                                          const int* max_iterations, const int* jacobi,
                                          const int* use_initial_guess, const int* backend,
                                          int* iterations, double* relative_residual,
                                          int* status) {
  switchyard_cg_matrix m = switchyard::cg::fortran_matrix(SWITCHYARD_CG_DIA, *n, isym, diags);
  m.ndiag = *ndiag;
  m.offsets = offsets;
  switchyard::cg::solve_from_fortran(m, b, x,
                                     FortranTail{tol, max_iterations, jacobi, use_initial_guess,
                                                 backend, iterations, relative_residual, status});
}
