// SLATEC SLAP DSDCG semantics: IERR 0..6, ITER, ERR, TOL reset, the triad
// converted to column format in place, IWORK(9) and IWORK(10).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "cg/convert.hpp"
#include "cg/fem_poisson.hpp"
#include "cg/formats_out.hpp"
#include "switchyard.h"

// COMMON /DSLBLK/ SOLN(*) as a Fortran program would define it: DSDCG's
// ITOL = 11 measures the error against it.
extern "C" {
double dslblk_[64];
}

namespace switchyard::cg {
namespace {

const double nan_value = std::numeric_limits<double>::quiet_NaN();

// The FEM problem on a 4 x 4 x 4 grid as a SLAP triad, lower triangle
// (ISYM = 1) or all entries (ISYM = 0), in reverse order.
struct SlapProblem {
  FemGrid g{4, 4, 4};
  int n = 64, nelt = 0, isym = 1;
  std::vector<int> ia, ja;
  std::vector<double> a, b, u, rwork = std::vector<double>(5 * 64, nan_value);
  std::vector<int> iwork = std::vector<int>(10, -1);

  explicit SlapProblem(int symmetric_storage = 1) : isym(symmetric_storage) {
    const DiaHalf<double> dia = fem_poisson_dia<double>(g, 1);
    const FormattedMatrix<double> t = to_slap_triad(
        lower_from_dia(dia, true), isym ? SWITCHYARD_CG_TRIANGLE : SWITCHYARD_CG_FULL);
    ia.assign(t.ia.rbegin(), t.ia.rend());
    ja.assign(t.ja.rbegin(), t.ja.rend());
    a.assign(t.values.rbegin(), t.values.rend());
    nelt = int(a.size());
    b = fem_poisson_rhs(g);
    u = fem_poisson_solution(g);
  }
};

struct Call {
  int itol = 1, itmax = 500, iter = -1, ierr = -1, iunit = 0;
  double tol = 1e-10, err = -1.0;
  int lenw = 5 * 64, leniw = 10;
  std::vector<double> x = std::vector<double>(64, 0.0);

  void run(SlapProblem& p) {
    dsdcg_(&p.n, p.b.data(), x.data(), &p.nelt, p.ia.data(), p.ja.data(), p.a.data(), &p.isym,
           &itol, &tol, &itmax, &iter, &err, &ierr, &iunit, p.rwork.data(), &lenw,
           p.iwork.data(), &leniw);
  }
};

double max_error(const std::vector<double>& x, const std::vector<double>& u) {
  double e = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i) e = std::max(e, std::abs(x[i] - u[i]));
  return e;
}

TEST(Dsdcg, ConvergesAndLeavesTheMatrixInColumnFormat) {
  for (int isym : {1, 0}) {
    SlapProblem p(isym);
    const std::vector<double> values_before = p.a;
    Call c;
    c.run(p);
    EXPECT_EQ(c.ierr, 0) << isym;
    EXPECT_GT(c.iter, 0);
    EXPECT_LE(c.iter, c.itmax);
    EXPECT_LE(c.err, c.tol);
    EXPECT_GE(c.err, 0.0);
    EXPECT_LT(max_error(c.x, p.u), 1e-8);
    EXPECT_EQ(p.iwork[8], 11);
    EXPECT_EQ(p.iwork[9], 5 * p.n + 1);
    // Column format: JA(N+1) = NELT + 1, each column's diagonal first, then
    // ascending rows; the same values, moved.
    ASSERT_EQ(p.ja[std::size_t(p.n)], p.nelt + 1);
    EXPECT_EQ(p.ja[0], 1);
    for (int j = 0; j < p.n; ++j) {
      const int first = p.ja[std::size_t(j)] - 1, end = p.ja[std::size_t(j) + 1] - 1;
      ASSERT_LT(first, end);
      EXPECT_EQ(p.ia[std::size_t(first)], j + 1);
      for (int k = first + 2; k < end; ++k) EXPECT_LT(p.ia[std::size_t(k) - 1], p.ia[std::size_t(k)]);
    }
    std::vector<double> sorted_before = values_before, sorted_after = p.a;
    std::sort(sorted_before.begin(), sorted_before.end());
    std::sort(sorted_after.begin(), sorted_after.end());
    EXPECT_EQ(sorted_before, sorted_after);

    // Called again on its column format, from the solution: no iteration.
    Call again;
    again.x = c.x;
    again.run(p);
    EXPECT_EQ(again.ierr, 0);
    EXPECT_EQ(again.iter, 0);
  }
}

TEST(Dsdcg, ItolTwoMeasuresThePreconditionedResidual) {
  SlapProblem p;
  Call c;
  c.itol = 2;
  c.run(p);
  EXPECT_EQ(c.ierr, 0);
  EXPECT_LE(c.err, c.tol);
  EXPECT_LT(max_error(c.x, p.u), 1e-8);
}

TEST(Dsdcg, ItolElevenMeasuresTheErrorAgainstDslblk) {
  SlapProblem p;
  std::copy(p.u.begin(), p.u.end(), dslblk_);
  Call c;
  c.itol = 11;
  c.tol = 1e-9;
  c.run(p);
  EXPECT_EQ(c.ierr, 0);
  EXPECT_LE(c.err, 1e-9);
  double e = 0.0, s = 0.0;
  for (int i = 0; i < p.n; ++i) {
    e += (c.x[std::size_t(i)] - p.u[std::size_t(i)]) * (c.x[std::size_t(i)] - p.u[std::size_t(i)]);
    s += p.u[std::size_t(i)] * p.u[std::size_t(i)];
  }
  EXPECT_NEAR(c.err, std::sqrt(e / s), 1e-3 * c.err + 1e-15);
}

TEST(Dsdcg, NoConvergenceGivesIerrTwoAndItmaxPlusOne) {
  SlapProblem p;
  Call c;
  c.itmax = 1;
  c.run(p);
  EXPECT_EQ(c.ierr, 2);
  EXPECT_EQ(c.iter, 2);
  EXPECT_GT(c.err, c.tol);
}

TEST(Dsdcg, TolBelowTheFloorIsResetWithIerrFour) {
  SlapProblem p;
  Call c;
  c.tol = 0.0;
  c.run(p);
  EXPECT_EQ(c.ierr, 4);
  EXPECT_EQ(c.tol, 500.0 * DBL_EPSILON / 2.0);
  EXPECT_GT(c.iter, 0);
  EXPECT_LE(c.err, c.tol);
}

TEST(Dsdcg, BadArgumentsGiveIerrThree) {
  {
    SlapProblem p;
    p.n = 0;
    Call c;
    c.run(p);
    EXPECT_EQ(c.ierr, 3);
  }
  {
    SlapProblem p;
    p.nelt = 0;
    Call c;
    c.run(p);
    EXPECT_EQ(c.ierr, 3);
  }
  {
    SlapProblem p;
    Call c;
    c.itol = 7;
    c.run(p);
    EXPECT_EQ(c.ierr, 3);
  }
  {
    SlapProblem p;
    const std::vector<int> ia_before = p.ia;
    p.ia[5] = 65;  // out of range: nothing is converted
    Call c;
    c.run(p);
    EXPECT_EQ(c.ierr, 3);
    EXPECT_EQ(p.ia[5], 65);
    EXPECT_NE(p.ja[std::size_t(p.n)], p.nelt + 1);
  }
  {
    SlapProblem p;
    p.isym = 2;
    Call c;
    c.run(p);
    EXPECT_EQ(c.ierr, 3);
  }
}

TEST(Dsdcg, WorkspaceTooSmallGivesIerrOne) {
  for (int which = 0; which < 2; ++which) {
    SlapProblem p;
    Call c;
    if (which == 0) c.lenw = 5 * p.n - 1;
    if (which == 1) c.leniw = 9;
    c.run(p);
    EXPECT_EQ(c.ierr, 1);
    EXPECT_EQ(c.iter, 0);
    EXPECT_EQ(c.err, DBL_MAX);
  }
}

TEST(Dsdcg, IndefiniteMatrixGivesIerrSixAndNegativeDiagonalFive) {
  // [[1, 2], [2, 1]] (eigenvalues 3, -1), b along the negative one.
  int n = 2, nelt = 3, isym = 1, itol = 1, itmax = 10, iter = -1, ierr = -1, iunit = 0;
  int lenw = 10, leniw = 10;
  double tol = 1e-10, err = -1;
  std::vector<int> ia = {1, 2, 2}, ja = {1, 1, 2}, iwork(10);
  std::vector<double> a = {1, 2, 1}, b = {1, -1}, x = {0, 0}, rwork(10);
  dsdcg_(&n, b.data(), x.data(), &nelt, ia.data(), ja.data(), a.data(), &isym, &itol, &tol,
         &itmax, &iter, &err, &ierr, &iunit, rwork.data(), &lenw, iwork.data(), &leniw);
  EXPECT_EQ(ierr, 6);
  EXPECT_EQ(iter, 1);

  // Now in column format (converted by the call above); a negative diagonal.
  a[2] = -1;
  x = {0, 0};
  dsdcg_(&n, b.data(), x.data(), &nelt, ia.data(), ja.data(), a.data(), &isym, &itol, &tol,
         &itmax, &iter, &err, &ierr, &iunit, rwork.data(), &lenw, iwork.data(), &leniw);
  EXPECT_EQ(ierr, 5);
  EXPECT_EQ(iter, 1);
}

// A triad's JA has NELT entries: with NELT <= N there is no JA(N+1) to read
// or write. Each JA here sits in a longer buffer whose entry N holds a
// sentinel that must stay as it is (and NELT + 1 would pass for column
// format's JA(N+1)).
TEST(Dsdcg, DiagonalTriadWithNeltEqualToNLeavesJaPastNeltAlone) {
  for (const int sentinel : {4, -77}) {
    int n = 3, nelt = 3, isym = 0, itol = 1, itmax = 10, iter = -1, ierr = -1, iunit = 0;
    int lenw = 15, leniw = 10;
    double tol = 1e-10, err = -1;
    std::vector<int> ia = {3, 1, 2}, ja = {3, 1, 2, sentinel}, iwork(10);
    std::vector<double> a = {4, 1, 2}, b = {1, 1, 1}, x = {0, 0, 0}, rwork(15);
    dsdcg_(&n, b.data(), x.data(), &nelt, ia.data(), ja.data(), a.data(), &isym, &itol, &tol,
           &itmax, &iter, &err, &ierr, &iunit, rwork.data(), &lenw, iwork.data(), &leniw);
    EXPECT_EQ(ierr, 0) << sentinel;
    EXPECT_EQ(ja[3], sentinel);
    EXPECT_EQ(ia, (std::vector<int>{1, 2, 3}));  // sorted by column in place
    EXPECT_EQ(std::vector<int>(ja.begin(), ja.begin() + 3), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(a, (std::vector<double>{1, 2, 4}));
    EXPECT_NEAR(x[0], 1.0, 1e-12);
    EXPECT_NEAR(x[1], 0.5, 1e-12);
    EXPECT_NEAR(x[2], 0.25, 1e-12);
  }
  // The same matrix in column format (JA(N+1) = NELT + 1) passes unchanged.
  int n = 3, nelt = 3, isym = 1, itol = 1, itmax = 10, iter = -1, ierr = -1, iunit = 0;
  int lenw = 15, leniw = 10;
  double tol = 1e-10, err = -1;
  std::vector<int> ia = {1, 2, 3}, ja = {1, 2, 3, 4}, iwork(10);
  std::vector<double> a = {1, 2, 4}, b = {1, 1, 1}, x = {0, 0, 0}, rwork(15);
  dsdcg_(&n, b.data(), x.data(), &nelt, ia.data(), ja.data(), a.data(), &isym, &itol, &tol,
         &itmax, &iter, &err, &ierr, &iunit, rwork.data(), &lenw, iwork.data(), &leniw);
  EXPECT_EQ(ierr, 0);
  EXPECT_EQ(ja, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_NEAR(x[2], 0.25, 1e-12);
}

TEST(Dsdcg, NeltBelowNOrAnOffDiagonalEntryWithNeltEqualToNGivesIerrThree) {
  for (const int sentinel : {3, 4, -77}) {
    for (const int nelt_given : {2, 3}) {
      int n = 3, nelt = nelt_given, isym = 0, itol = 1, itmax = 10, iter = -1, ierr = -1;
      int iunit = 0, lenw = 15, leniw = 10;
      double tol = 1e-10, err = -1;
      // NELT = 2: two diagonal entries; NELT = 3: (2, 1) in place of (2, 2).
      std::vector<int> ia = {1, nelt_given == 2 ? 3 : 2, 3, sentinel};
      std::vector<int> ja = {1, nelt_given == 2 ? 3 : 1, 3, sentinel}, iwork(10);
      ja[std::size_t(nelt_given)] = sentinel;
      const std::vector<int> ia_before = ia, ja_before = ja;
      std::vector<double> a = {1, 2, 4}, b = {1, 1, 1}, x = {5, 6, 7}, rwork(15);
      dsdcg_(&n, b.data(), x.data(), &nelt, ia.data(), ja.data(), a.data(), &isym, &itol, &tol,
             &itmax, &iter, &err, &ierr, &iunit, rwork.data(), &lenw, iwork.data(), &leniw);
      EXPECT_EQ(ierr, 3) << sentinel << " " << nelt_given;
      EXPECT_EQ(ia, ia_before);
      EXPECT_EQ(ja, ja_before);
      EXPECT_EQ(x, (std::vector<double>{5, 6, 7}));
    }
  }
}

// ITER = ITMAX + 1 has no int for ITMAX = INT_MAX: it stays INT_MAX.
TEST(Dsdcg, NoConvergenceWithItmaxIntMaxGivesIterIntMax) {
  SlapProblem p;
  p.b[3] = nan_value;  // stops at once
  Call c;
  c.itmax = std::numeric_limits<int>::max();
  c.run(p);
  EXPECT_EQ(c.ierr, 2);
  EXPECT_EQ(c.iter, std::numeric_limits<int>::max());
  EXPECT_TRUE(std::isnan(c.err));
}

}  // namespace
}  // namespace switchyard::cg
