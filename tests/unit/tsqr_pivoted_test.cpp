// Checks switchyard::tsqr::factor_pivoted_cpu against reference LAPACK's xGEQP3: the same pivots
// where the columns' norms are well apart (leading columns fixed by JPVT included), the
// factorization of A P judged by the LIN tests' measures, V, tau and R matching xGEQRF's of A P
// where R is well determined, R's diagonal non-increasing past the fixed columns, WORK(1) as
// xGEQP3 reports it, and rows past M left alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "pivoted_checks.hpp"
#include "tsqr/cpu_tsqr.hpp"

namespace switchyard::tsqr {
namespace {

using namespace checks;

// The worst ratios are printed with tsqr_cpu_test.cpp's, in the same program.
constexpr int kThreads = 4;
constexpr int kPadding = -99;  // rows m..lda-1, which must be left alone

// Our factorization with `block_rows` (0: the default split) on a copy of `input` whose leading
// dimension is m + 3, padding checked.
template <class T>
Pivoted<T> ours(const Matrix<double>& input, std::vector<int> jpvt, int block_rows) {
  Matrix<T> a = convert<T>(input, input.m + 3);
  for (int j = 0; j < a.n; ++j) std::fill(&a(0, j) + a.m, &a(0, j) + a.ld, T(kPadding));
  std::vector<T> tau(std::size_t(a.n), std::numeric_limits<T>::quiet_NaN());
  T work1 = std::numeric_limits<T>::quiet_NaN();
  const Lapack<T> lapack = Reference<T>::table();
  const int status = block_rows == 0 ? factor_pivoted_cpu(a.m, a.n, a.ptr(), a.ld, jpvt.data(),
                                                          tau.data(), lapack, kThreads, &work1)
                                     : factor_pivoted_cpu_with_block_rows(
                                           a.m, a.n, a.ptr(), a.ld, jpvt.data(), tau.data(), lapack,
                                           kThreads, block_rows, &work1);
  EXPECT_EQ(status, kOk);
  for (int j = 0; j < a.n; ++j) {
    EXPECT_TRUE(std::all_of(&a(0, j) + a.m, &a(0, j) + a.ld, [](T x) { return x == kPadding; }));
  }
  return {{convert<T>(a, a.m), tau}, jpvt, work1};
}

template <class T>
void check(const Matrix<double>& input, Expect expect, int block_rows = 0,
           std::vector<int> jpvt_in = {}) {
  SCOPED_TRACE(::testing::Message() << input.m << " x " << input.n << ", block rows " << block_rows
                                    << ", fixed " << fixed_count(jpvt_in));
  if (jpvt_in.empty()) jpvt_in.assign(std::size_t(input.n), 0);
  expect_pivoted_qr(input, expect, jpvt_in, ours<T>(input, jpvt_in, block_rows));
}

template <class T>
class TsqrPivoted : public ::testing::Test {};

using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TsqrPivoted, Precisions);

TYPED_TEST(TsqrPivoted, PivotsAsGeqp3) {
  check<TypeParam>(distinct_norms(30000, 20, 1), Expect::kSamePivots);
  check<TypeParam>(distinct_norms(30000, 20, 2), Expect::kSamePivots, 37);
  check<TypeParam>(distinct_norms(1000, 10, 3), Expect::kSamePivots, 10);
  check<TypeParam>(distinct_norms(4000, 64, 4), Expect::kSamePivots, 300);
}

TYPED_TEST(TsqrPivoted, FixedColumnsLead) {
  std::vector<int> jpvt(16, 0);
  jpvt[3] = 1;
  jpvt[9] = -4;  // any nonzero value fixes a column
  jpvt[15] = 7;
  check<TypeParam>(distinct_norms(6000, 16, 5), Expect::kSamePivots, 500, jpvt);
  check<TypeParam>(distinct_norms(6000, 16, 6), Expect::kSamePivots, 500,
                   std::vector<int>(16, 1));  // every column fixed: xGEQRF's order
}

TYPED_TEST(TsqrPivoted, RankDeficient) {
  check<TypeParam>(with_rank(5000, 16, 6, 7), Expect::kAnyPivots, 400);
  check<TypeParam>(with_zero_columns(5000, 12, {0, 5, 11}, 8), Expect::kAnyPivots, 400);
  check<TypeParam>(with_condition(5000, 16, 1e12, 9), Expect::kAnyPivots, 400);
}

TYPED_TEST(TsqrPivoted, GradedColumns) {
  check<TypeParam>(graded(8000, 12, 1, 10), Expect::kSamePivots, 1000);
}

// Fewer than two blocks' rows (two blocks need 2 n): the table's own xGEQP3 runs, bit for bit.
TYPED_TEST(TsqrPivoted, TooShortToSplitIsGeqp3Itself) {
  using T = TypeParam;
  const Matrix<double> input = distinct_norms(39, 20, 11);
  const std::vector<int> jpvt(20, 0);
  const Pivoted<T> got = ours<T>(input, jpvt, 0);
  const Pivoted<T> want = reference<T>(input, jpvt);
  EXPECT_EQ(got.jpvt, want.jpvt);
  EXPECT_EQ(got.f.a.data, want.f.a.data);
  EXPECT_EQ(got.f.tau, want.f.tau);
  EXPECT_EQ(got.work1, want.work1);
}

TYPED_TEST(TsqrPivoted, IncompleteTableTouchesNothing) {
  using T = TypeParam;
  Matrix<T> a = convert<T>(gaussian(2000, 8, 12), 2000);
  const Matrix<T> before = a;
  std::vector<T> tau(8, T(-7));
  std::vector<int> jpvt(8, 0);
  Lapack<T> lapack = Reference<T>::table();
  lapack.orgqr = nullptr;
  T work1 = T(-7);
  EXPECT_EQ(factor_pivoted_cpu(a.m, a.n, a.ptr(), a.ld, jpvt.data(), tau.data(), lapack, kThreads,
                               &work1),
            kIncompleteTable);
  EXPECT_EQ(a.data, before.data);
  EXPECT_EQ(jpvt, std::vector<int>(8, 0));
  EXPECT_EQ(tau, std::vector<T>(8, T(-7)));
  EXPECT_EQ(work1, T(-7));
}

}  // namespace
}  // namespace switchyard::tsqr
