// Checks the CPU TSQR's leaf kernels (tsqr/cpu_leaf.hpp) against reference LAPACK on single
// blocks: factor_block must give xGEQRF's V, tau and R up to rounding, judged as LAPACK's LIN
// tests judge a factorization, with T as xLARFT defines it; multiply_q must give xORGQR's Q
// times S, divide_by_upper B inv(U). Outputs start poisoned, and what the kernels must not
// write is checked untouched.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tsqr/cpu_leaf.hpp"
#include "tsqr_checks.hpp"

namespace switchyard::tsqr {
namespace {

using namespace checks;

[[maybe_unused]] const auto* const kPrintWorstRatios =
    ::testing::AddGlobalTestEnvironment(new PrintWorstRatios);

template <class T>
constexpr T kPoison = std::numeric_limits<T>::quiet_NaN();
template <class T>
constexpr T kPadding = -99;  // rows h..lda-1, which the kernels must leave alone

template <class T>
struct Leaf {
  Factored<T> f;        // packed: leading dimension h
  Matrix<T> t;          // n x n, strict lower part still poisoned
  Matrix<T> unpacked;   // as factor_block left it, rows h..lda-1 included
};

template <class T>
Leaf<T> factor_leaf(const Matrix<double>& input, int extra_lead = 0) {
  const int h = input.m, n = input.n;
  Matrix<T> a = convert<T>(input, h + extra_lead);
  for (int j = 0; j < n; ++j) std::fill(&a(0, j) + h, &a(0, j) + a.ld, kPadding<T>);
  std::vector<T> tau(std::size_t(n), kPoison<T>);
  Matrix<T> t(n, n);
  std::fill(t.data.begin(), t.data.end(), kPoison<T>);
  std::vector<T> work(std::size_t(factor_block_work(n)), kPoison<T>);
  factor_block(h, n, a.ptr(), a.ld, tau.data(), t.ptr(), t.ld, work.data());
  for (int j = 0; j < n; ++j) {
    EXPECT_TRUE(std::all_of(&a(0, j) + h, &a(0, j) + a.ld, [](T x) { return x == kPadding<T>; }));
  }
  return {{convert<T>(a, h), tau}, t, a};
}

// T is upper triangular with tau on its diagonal, and H(1)...H(n) = I - V T V^T: checked
// through the first n columns, Q [I; 0] = [I; 0] - V T V1^T, against xORGQR's Q.
template <class T>
void expect_t_matches_reflectors(const Leaf<T>& leaf) {
  const Matrix<T>& v = leaf.f.a;
  const int h = v.m, n = v.n;
  for (int j = 0; j < n; ++j) {
    EXPECT_EQ(leaf.t(j, j), leaf.f.tau[j]) << j;
    for (int i = j + 1; i < n; ++i) EXPECT_TRUE(std::isnan(leaf.t(i, j))) << i << "," << j;
  }
  const Matrix<T> q = reference_q(v, leaf.f.tau);
  auto v_at = [&](int i, int j) -> long double { return i == j ? 1 : i > j ? v(i, j) : 0; };
  double worst = 0;
  for (int c = 0; c < n; ++c) {
    // (T V1^T)(:, c) = sum over k <= c of T(:, k) v(c, k)
    std::vector<long double> tv(std::size_t(n), 0);
    for (int k = 0; k <= c; ++k)
      for (int i = 0; i <= k; ++i) tv[i] += (long double)leaf.t(i, k) * v_at(c, k);
    for (int r = 0; r < h; ++r) {
      long double value = r == c ? 1 : 0;
      for (int i = 0; i < n; ++i) value -= v_at(r, i) * tv[i];
      worst = std::max(worst, double(std::fabs(value - q(r, c))));
    }
  }
  const double ratio = worst / h / unit_roundoff<T>();
  note_ratio<T>("|Q_T - Q_orgqr|_max/(h eps)", ratio);
  EXPECT_LT(ratio, kLapackThreshold);
}

template <class T>
void check_factor(const Matrix<double>& input, int extra_lead = 0) {
  SCOPED_TRACE(::testing::Message() << input.m << " x " << input.n << ", lda - h " << extra_lead);
  const Leaf<T> leaf = factor_leaf<T>(input, extra_lead);
  const Matrix<T> a = convert<T>(input, input.m);
  expect_lapack_contract(a, leaf.f);
  expect_matches_reference(a, leaf.f);
  expect_t_matches_reflectors(leaf);
}

template <class T>
class TsqrCpuLeaf : public ::testing::Test {};

using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TsqrCpuLeaf, Precisions);

// Shapes around the kernels' edges: one column, panels of eight with a narrower last one,
// row counts that are not whole vectors or chunks, square blocks.
TYPED_TEST(TsqrCpuLeaf, Random) {
  const int shapes[][2] = {{1, 1},   {2, 1},    {5, 1},    {1000, 1}, {8, 8},     {9, 8},
                           {37, 8},  {64, 9},   {70, 16},  {300, 17}, {513, 24},  {777, 31},
                           {2053, 32}, {1000, 64}, {64, 64}, {4099, 40}, {130, 100}};
  unsigned seed = 1;
  for (const auto& [h, n] : shapes) check_factor<TypeParam>(gaussian(h, n, seed++));
  check_factor<TypeParam>(gaussian(500, 20, seed++), 7);
}

// Columns scaled to the edges of the normal range take xLARFG's rescaling (|beta| below the
// safe minimum) and the scaled norm (squares that underflow or overflow). Subnormal inputs
// are left out: they carry too few digits for the measures to mean anything, for xGEQRF too.
TYPED_TEST(TsqrCpuLeaf, ScaledColumns) {
  using T = TypeParam;
  const double tiny = sizeof(T) == 4 ? 1e-36 : 1e-300;
  const double huge = sizeof(T) == 4 ? 1e36 : 1e300;
  for (const auto& [h, n] : {std::pair{300, 12}, std::pair{40, 1}, std::pair{1500, 20}}) {
    Matrix<double> a = gaussian(h, n, unsigned(h + n));
    for (int j = 0; j < n; ++j) {
      const double scale = j % 3 == 0 ? tiny : j % 3 == 1 ? huge : 1;
      for (int i = 0; i < h; ++i) a(i, j) *= scale;
    }
    check_factor<T>(a);
    for (double scale : {tiny, huge}) {
      Matrix<double> uniform = gaussian(h, n, unsigned(h * n));
      for (double& x : uniform.data) x *= scale;
      check_factor<T>(uniform);
    }
  }
}

// A column that is zero below the diagonal gets tau = 0 (H = I) and keeps its sign, as from
// xGEQRF; so does a zero column, and a zero block comes back zero.
TYPED_TEST(TsqrCpuLeaf, ZeroColumns) {
  using T = TypeParam;
  check_factor<T>(with_zero_columns(200, 12, {0, 5, 8, 11}, 3));
  check_factor<T>(with_zero_columns(20, 1, {0}, 4));
  // Across many panels of reflectors: zero columns at a panel's start (0, 32), inside one (45)
  // and last (71).
  check_factor<T>(with_zero_columns(300, 72, {0, 32, 45, 71}, 8));
  const Leaf<T> zero = factor_leaf<T>(Matrix<double>(100, 10));
  for (T x : zero.f.a.data) EXPECT_EQ(x, T(0));
  for (T x : zero.f.tau) EXPECT_EQ(x, T(0));

  const Matrix<double> triangular = upper_triangular(90, 10, 5);
  const Leaf<T> leaf = factor_leaf<T>(triangular);
  for (int j = 0; j < triangular.n; ++j) {
    EXPECT_EQ(leaf.f.tau[j], T(0)) << j;
    for (int i = 0; i < triangular.m; ++i) EXPECT_EQ(leaf.f.a(i, j), T(triangular(i, j)));
  }
  expect_t_matches_reflectors(leaf);
}

TYPED_TEST(TsqrCpuLeaf, RankDeficient) {
  using T = TypeParam;
  // Rank 5 of 16, and rank 20 of 80, whose columns past the rank lie in many later panels.
  for (const Matrix<double>& a : {with_rank(400, 16, 5, 6), with_rank(600, 80, 20, 9)}) {
    const Leaf<T> leaf = factor_leaf<T>(a);
    expect_lapack_contract(convert<T>(a, a.m), leaf.f);
    expect_t_matches_reflectors(leaf);
  }
}

TYPED_TEST(TsqrCpuLeaf, NonFiniteInputPropagates) {
  using T = TypeParam;
  for (double bad : {std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    Matrix<double> input = gaussian(300, 10, 7);
    input(123, 3) = bad;
    const Leaf<T> leaf = factor_leaf<T>(input);
    EXPECT_TRUE(std::isnan(leaf.f.tau[3]) || std::any_of(leaf.f.a.data.begin(), leaf.f.a.data.end(),
                                                         [](T x) { return std::isnan(x); }));
  }
}

TYPED_TEST(TsqrCpuLeaf, SameBitsEveryRun) {
  using T = TypeParam;
  const Matrix<double> input = gaussian(3000, 33, 8);
  const Leaf<T> first = factor_leaf<T>(input);
  const Leaf<T> second = factor_leaf<T>(input);
  EXPECT_EQ(first.f.a.data, second.f.a.data);
  EXPECT_EQ(first.f.tau, second.f.tau);
  for (int j = 0; j < input.n; ++j)
    for (int i = 0; i <= j; ++i) EXPECT_EQ(first.t(i, j), second.t(i, j));
}

// multiply_q(S) = Q(:, 1:n) S, with Q from xORGQR on the same reflectors.
template <class T>
void check_multiply_q(int h, int n, unsigned seed, int extra_lead = 0) {
  SCOPED_TRACE(::testing::Message() << h << " x " << n << ", lda - h " << extra_lead);
  const Leaf<T> leaf = factor_leaf<T>(gaussian(h, n, seed), extra_lead);
  const Matrix<T> s = convert<T>(gaussian(n, n, seed + 1), n + 3);
  Matrix<T> product = leaf.unpacked;
  std::vector<T> work(std::size_t(multiply_q_work(n)), kPoison<T>);
  multiply_q(h, n, product.ptr(), product.ld, leaf.t.ptr(), leaf.t.ld, s.ptr(), s.ld, work.data());
  for (int j = 0; j < n; ++j) {
    EXPECT_TRUE(std::all_of(&product(0, j) + h, &product(0, j) + product.ld,
                            [](T x) { return x == kPadding<T>; }));
  }
  const Matrix<T> q = reference_q(leaf.f.a, leaf.f.tau);
  long double worst = 0, s_max = 0;
  for (int c = 0; c < n; ++c) {
    for (int k = 0; k < n; ++k) s_max = std::max(s_max, (long double)std::fabs(s(k, c)));
    for (int r = 0; r < h; ++r) {
      long double value = 0;
      for (int k = 0; k < n; ++k) value += (long double)q(r, k) * s(k, c);
      worst = std::max(worst, std::fabs(value - product(r, c)));
    }
  }
  const double ratio = double(worst / s_max / n / std::sqrt((long double)h) / unit_roundoff<T>());
  note_ratio<T>("|QS - Q_orgqr S|_max/(|S|_max n sqrt(h) eps)", ratio);
  EXPECT_LT(ratio, kLapackThreshold);
}

TYPED_TEST(TsqrCpuLeaf, MultiplyQ) {
  const int shapes[][2] = {{1, 1}, {7, 1}, {8, 8}, {40, 9}, {33, 32}, {100, 31},
                           {1000, 32}, {2053, 64}, {64, 64}, {500, 70}};
  unsigned seed = 20;
  for (const auto& [h, n] : shapes) check_multiply_q<TypeParam>(h, n, seed += 2);
  check_multiply_q<TypeParam>(300, 12, 99, 5);
}

// divide_by_upper(B) X satisfies X U = B, U as the reconstruction has it: its diagonal of
// magnitude at least 1.
template <class T>
void check_divide_by_upper(int m, int n, unsigned seed, int extra_lead = 0) {
  SCOPED_TRACE(::testing::Message() << m << " x " << n << ", ldb - m " << extra_lead);
  Matrix<T> u = convert<T>(gaussian(n, n, seed), n + 2);
  for (int j = 0; j < n; ++j) {
    u(j, j) = std::copysign(T(1) + std::fabs(u(j, j)), u(j, j));
    for (int i = j + 1; i < n; ++i) u(i, j) = kPoison<T>;  // not to be read
  }
  const Matrix<T> b = convert<T>(gaussian(m, n, seed + 1), m + extra_lead);
  Matrix<T> x = b;
  for (int j = 0; j < n; ++j) std::fill(&x(0, j) + m, &x(0, j) + x.ld, kPadding<T>);
  std::vector<T> work(std::size_t(divide_by_upper_work(n)), kPoison<T>);
  divide_by_upper(m, n, u.ptr(), u.ld, x.ptr(), x.ld, work.data());
  long double worst = 0, scale = 0;
  for (int j = 0; j < n; ++j) {
    EXPECT_TRUE(std::all_of(&x(0, j) + m, &x(0, j) + x.ld, [](T v) { return v == kPadding<T>; }));
    for (int i = 0; i < m; ++i) {
      long double value = 0, size = 0;
      for (int k = 0; k <= j; ++k) {
        value += (long double)x(i, k) * u(k, j);
        size += std::fabs((long double)x(i, k) * u(k, j));
      }
      worst = std::max(worst, std::fabs(value - b(i, j)));
      scale = std::max(scale, size);
    }
  }
  const double ratio = double(worst / scale / n / unit_roundoff<T>());
  note_ratio<T>("|XU - B|_max/(max |X||U| n eps)", ratio);
  EXPECT_LT(ratio, kLapackThreshold);
}

TYPED_TEST(TsqrCpuLeaf, DivideByUpper) {
  const int shapes[][2] = {{1, 1}, {5, 1}, {31, 8}, {32, 8}, {100, 33}, {1000, 64}, {7, 70}};
  unsigned seed = 40;
  for (const auto& [m, n] : shapes) check_divide_by_upper<TypeParam>(m, n, seed += 2);
  check_divide_by_upper<TypeParam>(300, 12, 77, 9);
}

}  // namespace
}  // namespace switchyard::tsqr
