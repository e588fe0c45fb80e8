// SLATEC SLAP's DSDCG, diagonally scaled (Jacobi) conjugate gradients, with
// its argument list and its ITOL, IERR, ITER and ERR semantics, running on
// Switchyard's CG (and so on the GPU when the route takes it):
//
//   IERR 0 converged; 1 LENW < 5N or LENIW < 10 (ITER = 0, ERR = huge);
//   2 no convergence in ITMAX iterations (ITER = ITMAX + 1, saturated at
//   INT_MAX), also on a NaN or infinity, which stops at once with ERR =
//   NaN; 3 N < 1, NELT < 1, ITOL not 1, 2 or 11, ISYM not 0 or 1, or a
//   matrix SLAP would misread (index out of range, duplicate entry, column
//   without its diagonal first, so also NELT < N, ISYM = 0 but not
//   symmetric); 4 TOL < 500 * 2^-53, reset to it, the solve goes on; 5
//   (r, z) <= 0 or a diagonal entry <= 0; 6 (p, Ap) <= 0. On 5 and 6 ITER
//   is the iteration that broke down.
//
// A triad matrix (JA(N+1) != NELT + 1) is converted to SLAP column format
// in place and left so, as SLATEC does: by columns, the diagonal first,
// then ascending rows; JA then holds the N + 1 column pointers. A triad's
// JA has only NELT entries, so JA(N+1) is read and written only where
// NELT > N; with NELT = N (a diagonal matrix) JA(N+1) = N + 1 is implied.
//
// ITOL = 11 measures the error against the true solution in COMMON /DSLBLK/
// SOLN(N): the library holds a weak reference to its symbol dslblk_, which
// binds to the program's block when the program is linked with the library
// (a preloading program exports it only if linked with -rdynamic); without
// it the call returns IERR = 3. IUNIT is ignored (no iteration log is written).
// RWORK and IWORK are only checked for size; IWORK(9) = 11 and IWORK(10) =
// 5N + 1 report the workspace SLATEC would use.
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <numeric>
#include <vector>

#include "cg/solve.hpp"
#include "export.hpp"
#include "switchyard.h"

// COMMON /DSLBLK/ SOLN(*) of the calling program, if it has one.
extern "C" double dslblk_[] __attribute__((weak, visibility("default")));

namespace switchyard::cg {
namespace {

// SLATEC's floor on TOL: 500 * D1MACH(3), D1MACH(3) = 2^-53.
constexpr double kTolFloor = 500.0 * DBL_EPSILON / 2.0;

enum Ierr { kOk = 0, kWorkspace = 1, kNoConvergence = 2, kBadInput = 3, kTolReset = 4,
            kPreconditionerNotSpd = 5, kNotSpd = 6 };

// DS2Y: triad to SLAP column format in place, when NELT > N (JA has NELT
// entries as a triad and N + 1 in column format, so only then is JA(N+1)
// the caller's either way). Returns false, changing nothing, when an index
// is out of range.
bool triad_to_column(int n, int nelt, int* ia, int* ja, double* a) {
  if (ja[n] == (long long)nelt + 1) return true;  // already column format (no int overflow)
  for (int k = 0; k < nelt; ++k) {
    if (ia[k] < 1 || ia[k] > n || ja[k] < 1 || ja[k] > n) return false;
  }
  const std::size_t count = std::size_t(nelt);
  std::vector<int> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    if (ja[x] != ja[y]) return ja[x] < ja[y];
    const bool x_diagonal = ia[x] == ja[x], y_diagonal = ia[y] == ja[y];
    if (x_diagonal != y_diagonal) return x_diagonal;
    return ia[x] < ia[y];
  });
  std::vector<int> rows(count), columns(count);
  std::vector<double> values(count);
  for (int k = 0; k < nelt; ++k) {
    rows[std::size_t(k)] = ia[order[std::size_t(k)]];
    columns[std::size_t(k)] = ja[order[std::size_t(k)]];
    values[std::size_t(k)] = a[order[std::size_t(k)]];
  }
  std::copy(rows.begin(), rows.end(), ia);
  std::copy(values.begin(), values.end(), a);
  // Column pointers: JA(J) is the first entry of column J, JA(N+1) = NELT+1.
  std::vector<int> pointers(std::size_t(n) + 1, 0);
  for (int c : columns) ++pointers[std::size_t(c)];
  pointers[0] = 1;
  for (int j = 1; j <= n; ++j) pointers[std::size_t(j)] += pointers[std::size_t(j) - 1];
  std::copy(pointers.begin(), pointers.end(), ja);
  return true;
}

// NELT = N, where a triad's JA has no JA(N+1): the matrix holds every
// diagonal entry, which SLAP reads first in each column, only if it is
// diagonal. Then it is sorted by column in place (IA(K) = JA(K) = K, the
// column format's first N pointers and a triad alike; JA(N+1) = N + 1 is
// implied, not written) and true returned; otherwise false, changing
// nothing. In column format only IA(K) = JA(K) = K is such a matrix, and
// it passes unchanged; column pointers that read as a permuted diagonal
// triad are taken as one, since without JA(N+1) the two cannot be told apart.
bool diagonal_to_column(int n, int* ia, int* ja, double* a) {
  std::vector<double> values(static_cast<std::size_t>(n));
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (int k = 0; k < n; ++k) {
    if (ia[k] != ja[k] || ja[k] < 1 || ja[k] > n || seen[std::size_t(ja[k] - 1)]) return false;
    seen[std::size_t(ja[k] - 1)] = 1;
    values[std::size_t(ja[k] - 1)] = a[k];
  }
  for (int k = 0; k < n; ++k) ia[k] = ja[k] = k + 1;
  std::copy(values.begin(), values.end(), a);
  return true;
}

const double* common_dslblk() { return dslblk_; }

}  // namespace
}  // namespace switchyard::cg

SWITCHYARD_EXPORT void dsdcg_(const int* n, const double* b, double* x, const int* nelt, int* ia,
                              int* ja, double* a, const int* isym, const int* itol, double* tol,
                              const int* itmax, int* iter, double* err, int* ierr,
                              const int* /*iunit*/, double* /*rwork*/, const int* lenw,
                              int* iwork, const int* leniw) {
  using namespace switchyard::cg;
  *ierr = kOk;
  if (*n < 1 || *nelt < 1) {
    *ierr = kBadInput;
    return;
  }
  // With NELT < N a column lacks its diagonal entry.
  std::vector<int> pointers;  // JA with JA(N+1), when NELT = N
  if (*nelt > *n ? !triad_to_column(*n, *nelt, ia, ja, a)
                 : *nelt < *n || !diagonal_to_column(*n, ia, ja, a)) {
    *ierr = kBadInput;
    return;
  }
  if (*nelt == *n) {
    pointers.resize(std::size_t(*n) + 1);
    std::iota(pointers.begin(), pointers.end(), 1);
  }
  if (*lenw < 5LL * *n || *leniw < 10) {
    *ierr = kWorkspace;
    *iter = 0;
    *err = DBL_MAX;
    return;
  }
  iwork[8] = 11;
  iwork[9] = 5 * *n + 1;

  *iter = 0;
  if (*tol < kTolFloor) {
    *tol = kTolFloor;
    *ierr = kTolReset;
  }
  SolveRequest q;
  q.caller = "dsdcg";
  q.params.tolerance = *tol;
  q.params.max_iterations = std::max(0, *itmax);
  q.params.jacobi = true;
  q.params.use_initial_guess = true;
  switch (*itol) {
    case 1: q.params.criterion = Criterion::residual; break;
    case 2: q.params.criterion = Criterion::preconditioned_residual; break;
    case 11:
      q.params.criterion = Criterion::error;
      q.params.solution = common_dslblk();
      if (q.params.solution) break;
      [[fallthrough]];
    default: *ierr = kBadInput; return;
  }
  if (*isym != 0 && *isym != 1) {
    *ierr = kBadInput;
    return;
  }

  switchyard_cg_matrix m{};
  m.format = SWITCHYARD_CG_SLAP_COLUMN;
  m.symmetry = *isym == 0 ? SWITCHYARD_CG_FULL : SWITCHYARD_CG_TRIANGLE;
  m.value_type = SWITCHYARD_CG_DOUBLE;
  m.n = *n;
  m.nelt = *nelt;
  m.ia = ia;
  m.ja = pointers.empty() ? ja : pointers.data();
  m.values = a;
  const SolveReport report = solve(m, b, x, q);
  const switchyard_cg_result& r = report.result;
  *err = report.error;
  switch (r.status) {
    case SWITCHYARD_CG_CONVERGED: *iter = r.iterations; break;
    case SWITCHYARD_CG_MAX_ITERATIONS:
    case SWITCHYARD_CG_NAN:
      *iter = *itmax < INT_MAX ? *itmax + 1 : INT_MAX;  // ITMAX + 1, saturated
      *ierr = kNoConvergence;
      break;
    case SWITCHYARD_CG_PRECONDITIONER_NOT_SPD:
      *iter = r.iterations + 1;
      *ierr = kPreconditionerNotSpd;
      break;
    case SWITCHYARD_CG_NOT_SPD:
      *iter = r.iterations + 1;
      *ierr = kNotSpd;
      break;
    case SWITCHYARD_CG_ERR_NO_MEMORY: *ierr = kWorkspace; break;
    default: *ierr = kBadInput; break;
  }
}
