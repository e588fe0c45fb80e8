// Bad input is rejected before any work, with the status that names the
// problem and the entry at fault, and x untouched; a matrix that is not SPD
// or holds a NaN stops the solve with its status instead of hanging.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "switchyard.h"

namespace {

const double nan_value = std::numeric_limits<double>::quiet_NaN();
const double poison = -7.25;

// A 4 x 4 SPD tridiagonal matrix, CSR full, 0-based.
struct Tridiagonal {
  std::vector<int> row_ptr = {0, 2, 5, 8, 10};
  std::vector<int> col = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
  std::vector<double> val = {4, -1, -1, 4, -1, -1, 4, -1, -1, 4};
  switchyard_cg_matrix descriptor() const {
    switchyard_cg_matrix a{};
    a.format = SWITCHYARD_CG_CSR;
    a.symmetry = SWITCHYARD_CG_FULL;
    a.value_type = SWITCHYARD_CG_DOUBLE;
    a.n = 4;
    a.row_ptr = row_ptr.data();
    a.col_idx = col.data();
    a.values = val.data();
    return a;
  }
};

struct Outcome {
  int status;
  long long bad_entry;
  bool x_untouched;
};

Outcome solve(const switchyard_cg_matrix& a, std::vector<double> b = {1, 2, 3, 4},
              const switchyard_cg_options* o = nullptr) {
  std::vector<double> x(b.size() + 1, poison);
  switchyard_cg_result r;
  r.bad_entry = -99;
  const int status = switchyard_cg_solve(&a, b.data(), x.data(), o, &r);
  EXPECT_EQ(status, r.status);
  bool untouched = true;
  for (double e : x) untouched = untouched && e == poison;
  return {status, r.bad_entry, untouched};
}

void expect_rejected(const Outcome& o, int status, long long bad_entry) {
  EXPECT_EQ(o.status, status) << switchyard_cg_status_string(o.status);
  EXPECT_EQ(o.bad_entry, bad_entry);
  EXPECT_TRUE(o.x_untouched);
}

TEST(CgErrors, TheValidMatrixSolves) {
  Tridiagonal t;
  EXPECT_EQ(solve(t.descriptor()).status, SWITCHYARD_CG_CONVERGED);
}

TEST(CgErrors, NonPositiveOrder) {
  Tridiagonal t;
  switchyard_cg_matrix a = t.descriptor();
  a.n = 0;
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_N, -1);
  a.n = -3;
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_N, -1);
}

TEST(CgErrors, CsrIndexOutOfRangeUnsortedDuplicate) {
  {
    Tridiagonal t;
    t.col[4] = 4;
    expect_rejected(solve(t.descriptor()), SWITCHYARD_CG_ERR_INDEX, 4);
  }
  {
    Tridiagonal t;
    t.col[6] = -1;
    expect_rejected(solve(t.descriptor()), SWITCHYARD_CG_ERR_INDEX, 6);
  }
  {
    Tridiagonal t;
    t.row_ptr[2] = 1;  // row pointers decreasing
    expect_rejected(solve(t.descriptor()), SWITCHYARD_CG_ERR_INDEX, 2);
  }
  {
    Tridiagonal t;
    std::swap(t.col[2], t.col[3]);
    std::swap(t.val[2], t.val[3]);
    expect_rejected(solve(t.descriptor()), SWITCHYARD_CG_ERR_UNSORTED, 3);
  }
  {
    Tridiagonal t;
    t.col[7] = 2;
    expect_rejected(solve(t.descriptor()), SWITCHYARD_CG_ERR_DUPLICATE, 7);
  }
  {
    Tridiagonal t;
    switchyard_cg_matrix a = t.descriptor();
    a.index_base = 1;  // row_ptr[0] = 0 is out of range for 1-based
    expect_rejected(solve(a), SWITCHYARD_CG_ERR_INDEX, 0);
  }
}

TEST(CgErrors, FullStorageMustBeSymmetric) {
  Tridiagonal t;
  t.val[1] = -1.5;  // a(0,1) != a(1,0)
  expect_rejected(solve(t.descriptor()), SWITCHYARD_CG_ERR_NOT_SYMMETRIC, 1);
}

TEST(CgErrors, OneTriangleWithBothMirrorsIsADuplicate) {
  Tridiagonal t;
  switchyard_cg_matrix a = t.descriptor();
  a.symmetry = SWITCHYARD_CG_TRIANGLE;
  const Outcome o = solve(a);
  EXPECT_EQ(o.status, SWITCHYARD_CG_ERR_DUPLICATE);
  EXPECT_TRUE(o.x_untouched);
}

TEST(CgErrors, SlapTriadAndColumn) {
  // Lower triangle of the tridiagonal matrix, ISYM = 1.
  std::vector<int> ia = {1, 2, 2, 3, 3, 4, 4}, ja = {1, 1, 2, 2, 3, 3, 4};
  std::vector<double> v = {4, -1, 4, -1, 4, -1, 4};
  switchyard_cg_matrix a{};
  a.format = SWITCHYARD_CG_SLAP_TRIAD;
  a.symmetry = SWITCHYARD_CG_TRIANGLE;
  a.n = 4;
  a.nelt = 7;
  a.ia = ia.data();
  a.ja = ja.data();
  a.values = v.data();
  EXPECT_EQ(solve(a).status, SWITCHYARD_CG_CONVERGED);
  ia[5] = 5;
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_INDEX, 5);
  ia[5] = 4, ja[5] = 3;
  ia[6] = 3, ja[6] = 4;  // the mirror of entry 5
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_DUPLICATE, 6);
  a.nelt = 0;
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_N, -1);

  // Column format: JA holds column pointers, the diagonal first.
  std::vector<int> rows = {1, 2, 2, 3, 3, 4, 4}, pointers = {1, 3, 5, 7, 8};
  a.format = SWITCHYARD_CG_SLAP_COLUMN;
  a.nelt = 7;
  a.ia = rows.data();
  a.ja = pointers.data();
  EXPECT_EQ(solve(a).status, SWITCHYARD_CG_CONVERGED);
  std::swap(rows[2], rows[3]);  // column 2 starts with row 3
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_UNSORTED, 2);
  std::swap(rows[2], rows[3]);
  pointers[4] = 9;
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_INDEX, 4);
  // A count the pointers do not end at, even the largest int (nelt + 1 once
  // overflowed), is an index error found before any row is read.
  pointers[4] = 8;
  a.nelt = std::numeric_limits<int>::max();
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_INDEX, 4);
}

TEST(CgErrors, DiaOffsets) {
  std::vector<int> offsets = {-1, 0, 1};
  std::vector<double> diags = {0, -1, -1, -1, 4, 4, 4, 4, -1, -1, -1, 0};
  switchyard_cg_matrix a{};
  a.format = SWITCHYARD_CG_DIA;
  a.symmetry = SWITCHYARD_CG_FULL;
  a.n = 4;
  a.ndiag = 3;
  a.offsets = offsets.data();
  a.values = diags.data();
  EXPECT_EQ(solve(a).status, SWITCHYARD_CG_CONVERGED);
  diags[9] = -2;  // a(1,2) != a(2,1)
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_NOT_SYMMETRIC, 0);
  diags[9] = -1;
  offsets[2] = 4;
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_INDEX, 2);
  offsets[2] = 0;
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_DUPLICATE, 2);
  offsets[2] = 1;
  a.symmetry = SWITCHYARD_CG_TRIANGLE;  // -1 and +1 both given
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_DUPLICATE, 2);
  a.ndiag = 2;  // the lower half alone
  EXPECT_EQ(solve(a).status, SWITCHYARD_CG_CONVERGED);
}

TEST(CgErrors, BadArguments) {
  Tridiagonal t;
  switchyard_cg_matrix a = t.descriptor();
  std::vector<double> b = {1, 2, 3, 4}, x(4, poison);
  EXPECT_EQ(switchyard_cg_solve(nullptr, b.data(), x.data(), nullptr, nullptr),
            SWITCHYARD_CG_ERR_ARGUMENT);
  EXPECT_EQ(switchyard_cg_solve(&a, nullptr, x.data(), nullptr, nullptr),
            SWITCHYARD_CG_ERR_ARGUMENT);
  EXPECT_EQ(switchyard_cg_solve(&a, b.data(), nullptr, nullptr, nullptr),
            SWITCHYARD_CG_ERR_ARGUMENT);
  switchyard_cg_options o;
  switchyard_cg_options_default(&o);
  o.tolerance = -1;
  expect_rejected(solve(a, b, &o), SWITCHYARD_CG_ERR_ARGUMENT, -1);
  o.tolerance = nan_value;
  expect_rejected(solve(a, b, &o), SWITCHYARD_CG_ERR_ARGUMENT, -1);
  switchyard_cg_options_default(&o);
  o.backend = 7;
  expect_rejected(solve(a, b, &o), SWITCHYARD_CG_ERR_ARGUMENT, -1);
  a.format = 9;
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_ARGUMENT, -1);
  a = t.descriptor();
  a.value_type = 5;
  expect_rejected(solve(a), SWITCHYARD_CG_ERR_ARGUMENT, -1);
}

TEST(CgBreakdown, IndefiniteMatrixStopsWithNotSpd) {
  // [[1, 2], [2, 1]] has eigenvalues 3 and -1; b along the negative one.
  std::vector<int> row_ptr = {0, 2, 4}, col = {0, 1, 0, 1};
  std::vector<double> val = {1, 2, 2, 1};
  switchyard_cg_matrix a{};
  a.format = SWITCHYARD_CG_CSR;
  a.n = 2;
  a.row_ptr = row_ptr.data();
  a.col_idx = col.data();
  a.values = val.data();
  EXPECT_EQ(solve(a, {1, -1}).status, SWITCHYARD_CG_NOT_SPD);
  switchyard_cg_options o;
  switchyard_cg_options_default(&o);
  o.jacobi = 0;
  EXPECT_EQ(solve(a, {1, -1}, &o).status, SWITCHYARD_CG_NOT_SPD);
}

TEST(CgBreakdown, NonPositiveDiagonalStopsJacobi) {
  Tridiagonal t;
  t.val[6] = -4;  // a(2,2)
  EXPECT_EQ(solve(t.descriptor()).status, SWITCHYARD_CG_PRECONDITIONER_NOT_SPD);
  t.val[6] = 0;
  EXPECT_EQ(solve(t.descriptor()).status, SWITCHYARD_CG_PRECONDITIONER_NOT_SPD);
}

TEST(CgBreakdown, NanOrInfinityAnywhereStops) {
  for (int where = 0; where < 3; ++where) {
    Tridiagonal t;
    std::vector<double> b = {1, 2, 3, 4};
    switchyard_cg_options o;
    switchyard_cg_options_default(&o);
    if (where == 0) t.val[3] = nan_value;                                 // the diagonal
    if (where == 1) t.val[4] = t.val[5] = std::numeric_limits<double>::infinity();  // a(1,2), a(2,1)
    if (where == 2) b[2] = nan_value;
    for (int jacobi : {0, 1}) {
      o.jacobi = jacobi;
      switchyard_cg_matrix a = t.descriptor();
      std::vector<double> x(4, 0.0);
      switchyard_cg_result r;
      EXPECT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &r), SWITCHYARD_CG_NAN)
          << where << " jacobi " << jacobi;
      EXPECT_LE(r.iterations, 1);
    }
  }
}

TEST(CgErrors, StatusStringsAreDistinct) {
  const int statuses[] = {0, 1, 2, 3, 4, -1, -2, -3, -4, -5, -6, -7};
  for (int s : statuses) {
    for (int t : statuses) {
      if (s != t) EXPECT_STRNE(switchyard_cg_status_string(s), switchyard_cg_status_string(t));
    }
  }
  EXPECT_STREQ(switchyard_cg_status_string(42), "unknown status");
}

}  // namespace
