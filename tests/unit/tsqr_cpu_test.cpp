// Checks switchyard::tsqr::factor_cpu against reference LAPACK: the factorization must satisfy
// xGEQRF's output contract, judged the way LAPACK's LIN tests judge it (Q rebuilt with xORGQR
// and applied with xORMQR from the strict lower part and tau), and match xGEQRF's R where R is
// well determined.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "tsqr/cpu_row_blocks.hpp"
#include "tsqr/cpu_tsqr.hpp"
#include "tsqr_checks.hpp"

namespace switchyard::tsqr {
namespace {

using namespace checks;

[[maybe_unused]] const auto* const kPrintWorstRatios =
    ::testing::AddGlobalTestEnvironment(new PrintWorstRatios);

constexpr int kThreads = 4;
constexpr int kDefaultBlockRows = 0;

struct Run {
  int threads = kThreads;
  int block_rows = kDefaultBlockRows;
  int extra_lead = 0;  // lda - m
};

template <class T>
Factored<T> factor(const Matrix<double>& input, const Run& run) {
  return factor_padded<T>(input, run.extra_lead, [&](Matrix<T>& a, std::vector<T>& tau) {
    const Lapack<T> lapack = Reference<T>::table();
    const int status = run.block_rows == kDefaultBlockRows
                           ? factor_cpu(a.m, a.n, a.ptr(), a.ld, tau.data(), lapack, run.threads)
                           : factor_cpu_with_block_rows(a.m, a.n, a.ptr(), a.ld, tau.data(),
                                                        lapack, run.threads, run.block_rows);
    EXPECT_EQ(status, kOk);
  });
}

enum class CompareToGeqrf { kYes, kNo };

template <class T>
void check(const Matrix<double>& input, CompareToGeqrf compare, const Run& run = {}) {
  SCOPED_TRACE(::testing::Message() << input.m << " x " << input.n << ", " << run.threads
                                    << " threads, block rows " << run.block_rows);
  const Factored<T> f = factor<T>(input, run);
  const Matrix<T> a = convert<T>(input, input.m);
  const Factored<T> packed{convert<T>(f.a, f.a.m), f.tau};
  expect_lapack_contract(a, packed);
  if (compare == CompareToGeqrf::kYes) expect_matches_reference(a, packed);
}

template <class T>
class TsqrCpu : public ::testing::Test {};

using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TsqrCpu, Precisions);

TYPED_TEST(TsqrCpu, Random) {
  check<TypeParam>(gaussian(30000, 20, 1), CompareToGeqrf::kYes);
  check<TypeParam>(gaussian(30000, 20, 1), CompareToGeqrf::kYes, {kThreads, 37, 0});
  check<TypeParam>(gaussian(1000, 10, 2), CompareToGeqrf::kYes, {kThreads, 10, 5});
}

// Leaves of n rows make stacks of R factors cut into groups of 2 n rows: 4096 leaves reduce in
// eleven parallel levels before the top stack, two R factors, is factored whole.
TYPED_TEST(TsqrCpu, ManyLevelsOfStacks) {
  check<TypeParam>(gaussian(1 << 14, 4, 18), CompareToGeqrf::kYes, {kThreads, 4, 0});
  check<TypeParam>(gaussian(3000, 7, 19), CompareToGeqrf::kYes, {kThreads, 9, 0});
}

TYPED_TEST(TsqrCpu, ThreadCounts) {
  for (int threads : {1, 2, 3, 8, 64})
    check<TypeParam>(gaussian(5000, 16, 3), CompareToGeqrf::kYes, {threads, 100, 0});
}

// A short matrix gives fewer threads a leaf than it has: none shorter than 1024 rows or 32768
// elements; a long one gives each thread its leaves of a cache's size.
TEST(TsqrCpuLeaves, NoLeafShorterThanItsWorthOnManyThreads) {
  EXPECT_EQ(leaf_block_rows(4096, 256, 16, sizeof(double)), 1024);
  EXPECT_EQ(leaf_block_rows(8192, 128, 16, sizeof(double)), 1024);
  EXPECT_EQ(leaf_block_rows(8192, 16, 16, sizeof(double)), 2048);
  EXPECT_EQ(split_rows(4096, leaf_block_rows(4096, 8, 16, sizeof(double))).count, 1);
  EXPECT_EQ(leaf_block_rows(4096, 256, 2, sizeof(double)), 2048);
  EXPECT_EQ(leaf_block_rows(1 << 22, 64, 16, sizeof(double)), 4096);
  EXPECT_EQ(leaf_block_rows(1 << 22, 8, 16, sizeof(float)), 32768);
}

// The result depends on the blocks only, never on which thread factors which block or when.
TYPED_TEST(TsqrCpu, SameBitsForAnyThreadCount) {
  const Matrix<double> input = gaussian(20000, 24, 17);
  const Factored<TypeParam> one = factor<TypeParam>(input, {1, 500, 0});
  for (int threads : {1, 2, 3, 8}) {
    const Factored<TypeParam> many = factor<TypeParam>(input, {threads, 500, 0});
    EXPECT_EQ(many.a.data, one.a.data) << threads;
    EXPECT_EQ(many.tau, one.tau) << threads;
  }
}

TYPED_TEST(TsqrCpu, GradedColumns) {
  for (int step : {1, 2}) {
    check<TypeParam>(graded(20000, 12, step, 4), CompareToGeqrf::kYes);
    check<TypeParam>(graded(600, 12, step, 5), CompareToGeqrf::kYes, {kThreads, 12, 0});
  }
}

TYPED_TEST(TsqrCpu, IllConditioned) {
  for (double condition : {1e12, 1e15}) {
    check<TypeParam>(with_condition(20000, 16, condition, 6), CompareToGeqrf::kNo);
    check<TypeParam>(with_condition(500, 16, condition, 7), CompareToGeqrf::kNo, {kThreads, 16, 0});
  }
}

TYPED_TEST(TsqrCpu, RankDeficient) {
  check<TypeParam>(with_rank(20000, 16, 7, 8), CompareToGeqrf::kNo);
  check<TypeParam>(with_rank(500, 16, 1, 9), CompareToGeqrf::kNo, {kThreads, 16, 0});
}

TYPED_TEST(TsqrCpu, ZeroColumns) {
  check<TypeParam>(with_zero_columns(20000, 12, {0, 5, 11}, 10), CompareToGeqrf::kNo);
  check<TypeParam>(with_zero_columns(300, 12, {0, 1, 7, 11}, 11), CompareToGeqrf::kNo,
                   {kThreads, 12, 0});
  check<TypeParam>(Matrix<double>(20000, 12), CompareToGeqrf::kYes);
}

TYPED_TEST(TsqrCpu, VeryThin) { check<TypeParam>(gaussian(1 << 18, 8, 12), CompareToGeqrf::kYes); }

TYPED_TEST(TsqrCpu, SmallShapeSweep) {
  for (int n = 1; n <= 16; ++n) {
    for (int m : {n, n + 1, 2 * n, 132}) {
      const Matrix<double> a = gaussian(m, n, unsigned(100 * n + m));
      check<TypeParam>(a, CompareToGeqrf::kYes, {kThreads, n, 0});
      check<TypeParam>(a, CompareToGeqrf::kYes);
    }
  }
}

// Already reduced columns get tau = 0 and keep their sign in R, as from xGEQRF, so an upper
// triangular matrix comes back bit for bit unchanged.
TYPED_TEST(TsqrCpu, AlreadyReducedColumnsGiveZeroTau) {
  const Matrix<double> input = upper_triangular(400, 10, 13);
  const Factored<TypeParam> f = factor<TypeParam>(input, {kThreads, 10, 0});
  for (int j = 0; j < input.n; ++j) {
    EXPECT_EQ(f.tau[j], TypeParam(0)) << j;
    for (int i = 0; i < input.m; ++i) EXPECT_EQ(f.a(i, j), TypeParam(input(i, j))) << i << "," << j;
  }
}

TYPED_TEST(TsqrCpu, ReducedFirstColumnKeepsItsSign) {
  for (double corner : {3.0, -3.0}) {
    Matrix<double> input = gaussian(400, 6, 14);
    std::fill_n(&input(0, 0), input.m, 0.0);
    input(0, 0) = corner;
    const Factored<TypeParam> f = factor<TypeParam>(input, {kThreads, 40, 0});
    EXPECT_EQ(f.tau[0], TypeParam(0));
    for (int k = 0; k < input.n; ++k) EXPECT_EQ(f.a(0, k), TypeParam(input(0, k))) << k;
    check<TypeParam>(input, CompareToGeqrf::kYes, {kThreads, 40, 0});
  }
}

TYPED_TEST(TsqrCpu, NonFiniteInputPropagates) {
  using T = TypeParam;
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    for (int row : {0, 3, 777}) {
      Matrix<double> input = gaussian(1000, 8, 15);
      input(row, 2) = bad;
      const Factored<T> f = factor<T>(input, {kThreads, 50, 0});
      const bool any_nan =
          std::any_of(f.a.data.begin(), f.a.data.end(), [](T x) { return std::isnan(x); }) ||
          std::any_of(f.tau.begin(), f.tau.end(), [](T x) { return std::isnan(x); });
      EXPECT_TRUE(any_nan) << "bad value " << bad << " at row " << row;
    }
  }
}

TYPED_TEST(TsqrCpu, RefusesWithoutTouchingA) {
  using T = TypeParam;
  const Matrix<T> input = convert<T>(gaussian(100, 4, 16), 100);
  Matrix<T> a = input;
  std::vector<T> tau(4, T(-7));
  const Lapack<T> lapack = Reference<T>::table();
  Lapack<T> incomplete = lapack;
  incomplete.geqrf = nullptr;

  EXPECT_EQ(factor_cpu(100, 4, a.ptr(), 100, tau.data(), incomplete, 2), kIncompleteTable);
  EXPECT_EQ(factor_cpu(3, 4, a.ptr(), 100, tau.data(), lapack, 2), kInvalidArgument);
  EXPECT_EQ(factor_cpu(100, 0, a.ptr(), 100, tau.data(), lapack, 2), kInvalidArgument);
  EXPECT_EQ(factor_cpu(100, 4, a.ptr(), 99, tau.data(), lapack, 2), kInvalidArgument);
  EXPECT_EQ(factor_cpu(100, 4, a.ptr(), 100, tau.data(), lapack, 0), kInvalidArgument);
  EXPECT_EQ(factor_cpu_with_block_rows(100, 4, a.ptr(), 100, tau.data(), lapack, 2, 3),
            kInvalidArgument);
  EXPECT_EQ(a.data, input.data);
  EXPECT_EQ(tau, std::vector<T>(4, T(-7)));
}

}  // namespace
}  // namespace switchyard::tsqr
