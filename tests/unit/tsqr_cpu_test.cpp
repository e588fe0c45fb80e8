// Checks switchyard::tsqr::factor_cpu against reference LAPACK: the factorization must satisfy
// xGEQRF's output contract, judged the way LAPACK's LIN tests judge it (Q rebuilt with xORGQR
// and applied with xORMQR from the strict lower part and tau), and match xGEQRF's R where R is
// well determined.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tsqr/cpu_tsqr.hpp"

extern "C" {
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
             const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
             float* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void sormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k,
             const float* a, const int* lda, const float* tau, float* c, const int* ldc,
             float* work, const int* lwork, int* info, std::size_t side_len, std::size_t trans_len);
void dormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k,
             const double* a, const int* lda, const double* tau, double* c, const int* ldc,
             double* work, const int* lwork, int* info, std::size_t side_len,
             std::size_t trans_len);
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, std::size_t, std::size_t);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, std::size_t, std::size_t);
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const float* alpha, const float* a, const int* lda, float* b,
            const int* ldb, std::size_t, std::size_t, std::size_t, std::size_t);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b,
            const int* ldb, std::size_t, std::size_t, std::size_t, std::size_t);
}

namespace switchyard::tsqr {
namespace {

// Reference LAPACK per precision: the table factor_cpu runs on, and xORMQR for the checks.
template <class T>
struct Reference;

template <>
struct Reference<float> {
  static Lapack<float> table() {
    Lapack<float> lapack;
    lapack.geqrf = sgeqrf_;
    lapack.orgqr = sorgqr_;
    lapack.gemm = sgemm_;
    lapack.trsm = strsm_;
    return lapack;
  }
  static constexpr auto ormqr = sormqr_;
};

template <>
struct Reference<double> {
  static Lapack<double> table() {
    Lapack<double> lapack;
    lapack.geqrf = dgeqrf_;
    lapack.orgqr = dorgqr_;
    lapack.gemm = dgemm_;
    lapack.trsm = dtrsm_;
    return lapack;
  }
  static constexpr auto ormqr = dormqr_;
};

// LAPACK's xLAMCH('E'): the unit roundoff its LIN tests divide by.
template <class T>
double unit_roundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}

// Column-major m x n with leading dimension ld.
template <class T>
struct Matrix {
  int m = 0;
  int n = 0;
  int ld = 0;
  std::vector<T> data;

  Matrix(int rows, int cols, int lead)
      : m(rows), n(cols), ld(lead), data(std::size_t(lead) * cols) {}
  Matrix(int rows, int cols) : Matrix(rows, cols, rows) {}

  T& operator()(int i, int j) { return data[i + std::size_t(j) * ld]; }
  const T& operator()(int i, int j) const { return data[i + std::size_t(j) * ld]; }
  T* ptr() { return data.data(); }
  const T* ptr() const { return data.data(); }
};

template <class To, class From>
Matrix<To> convert(const Matrix<From>& a, int ld) {
  Matrix<To> b(a.m, a.n, ld);
  for (int j = 0; j < a.n; ++j)
    for (int i = 0; i < a.m; ++i) b(i, j) = To(a(i, j));
  return b;
}

template <class T>
std::vector<T> reference_geqrf(Matrix<T>& a) {
  std::vector<T> tau(std::size_t(a.n));
  const int lwork = std::max(1, a.n) * 64;
  std::vector<T> work(static_cast<std::size_t>(lwork));
  int info = 0;
  Reference<T>::table().geqrf(&a.m, &a.n, a.ptr(), &a.ld, tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info, 0);
  return tau;
}

// The thin Q that xORGQR builds from the strict lower part of `factored` and tau.
template <class T>
Matrix<T> reference_q(const Matrix<T>& factored, const std::vector<T>& tau) {
  Matrix<T> q = factored;
  const int lwork = std::max(1, q.n) * 64;
  std::vector<T> work(static_cast<std::size_t>(lwork));
  int info = 0;
  Reference<T>::table().orgqr(&q.m, &q.n, &q.n, q.ptr(), &q.ld, tau.data(), work.data(), &lwork,
                              &info);
  EXPECT_EQ(info, 0);
  return q;
}

// Q^T c with Q applied by xORMQR from the strict lower part of `factored` and tau.
template <class T>
Matrix<T> reference_apply_qt(const Matrix<T>& factored, const std::vector<T>& tau, Matrix<T> c) {
  const int lwork = std::max(1, c.n) * 64;
  std::vector<T> work(static_cast<std::size_t>(lwork));
  int info = 0;
  Reference<T>::ormqr("L", "T", &c.m, &c.n, &factored.n, factored.ptr(), &factored.ld, tau.data(),
                      c.ptr(), &c.ld, work.data(), &lwork, &info, 1, 1);
  EXPECT_EQ(info, 0);
  return c;
}

// ---------------------------------------------------------------------------------------------
// Test matrices, built in double.

Matrix<double> gaussian(int m, int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Matrix<double> a(m, n);
  for (double& x : a.data) x = normal(rng);
  return a;
}

Matrix<double> product(const Matrix<double>& a, const Matrix<double>& b, bool transpose_b) {
  const int k = a.n;
  const int n = transpose_b ? b.m : b.n;
  Matrix<double> c(a.m, n);
  const double one = 1, zero = 0;
  dgemm_("N", transpose_b ? "T" : "N", &c.m, &n, &k, &one, a.ptr(), &a.ld, b.ptr(), &b.ld, &zero,
         c.ptr(), &c.ld, 1, 1);
  return c;
}

Matrix<double> orthonormal_columns(int m, int n, unsigned seed) {
  Matrix<double> a = gaussian(m, n, seed);
  const std::vector<double> tau = reference_geqrf(a);
  return reference_q(a, tau);
}

// U diag(sigma) V^T with random orthogonal U, V and sigma spread geometrically from 1 to
// 1/condition.
Matrix<double> with_condition(int m, int n, double condition, unsigned seed) {
  Matrix<double> u = orthonormal_columns(m, n, seed);
  const Matrix<double> v = orthonormal_columns(n, n, seed + 1);
  for (int j = 0; j < n; ++j) {
    const double sigma = std::pow(condition, -double(j) / std::max(1, n - 1));
    for (int i = 0; i < m; ++i) u(i, j) *= sigma;
  }
  return product(u, v, true);
}

// Column j scaled by 10^(-j * step).
Matrix<double> graded(int m, int n, int step, unsigned seed) {
  Matrix<double> a = gaussian(m, n, seed);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) a(i, j) *= std::pow(10.0, -double(j) * step);
  return a;
}

Matrix<double> with_rank(int m, int n, int rank, unsigned seed) {
  return product(gaussian(m, rank, seed), gaussian(rank, n, seed + 1), false);
}

Matrix<double> with_zero_columns(int m, int n, const std::vector<int>& zero_columns,
                                 unsigned seed) {
  Matrix<double> a = gaussian(m, n, seed);
  for (int j : zero_columns) std::fill_n(&a(0, j), m, 0.0);
  return a;
}

// Upper triangular: every column is already reduced below the diagonal.
Matrix<double> upper_triangular(int m, int n, unsigned seed) {
  Matrix<double> a = gaussian(m, n, seed);
  for (int j = 0; j < n; ++j) std::fill(&a(0, j) + j + 1, &a(0, j) + m, 0.0);
  return a;
}

// ---------------------------------------------------------------------------------------------
// Measures, computed in long double.

long double one_norm(const Matrix<long double>& a) {
  long double norm = 0;
  for (int j = 0; j < a.n; ++j) {
    long double sum = 0;
    for (int i = 0; i < a.m; ++i) sum += std::fabs(a(i, j));
    norm = std::max(norm, sum);
  }
  return norm;
}

template <class T>
long double one_norm(const Matrix<T>& a) {
  return one_norm(convert<long double>(a, a.m));
}

// The upper triangle of the first n rows, zero elsewhere (m x n).
template <class T>
Matrix<long double> r_factor(const Matrix<T>& factored) {
  Matrix<long double> r(factored.m, factored.n);
  for (int j = 0; j < factored.n; ++j)
    for (int i = 0; i <= j; ++i) r(i, j) = factored(i, j);
  return r;
}

template <class T>
Matrix<long double> q_times_r(const Matrix<T>& q, const Matrix<long double>& r) {
  Matrix<long double> qr(q.m, q.n);
  for (int j = 0; j < q.n; ++j)
    for (int k = 0; k <= j; ++k) {
      const long double r_kj = r(k, j);
      for (int i = 0; i < q.m; ++i) qr(i, j) += q(i, k) * r_kj;
    }
  return qr;
}

template <class T>
Matrix<long double> identity_minus_qtq(const Matrix<T>& q) {
  Matrix<long double> e(q.n, q.n);
  for (int j = 0; j < q.n; ++j)
    for (int k = 0; k < q.n; ++k) {
      long double dot = 0;
      for (int i = 0; i < q.m; ++i) dot += (long double)q(i, k) * q(i, j);
      e(k, j) = (k == j ? 1 : 0) - dot;
    }
  return e;
}

template <class T>
Matrix<long double> difference(const Matrix<T>& a, const Matrix<long double>& b) {
  Matrix<long double> d(b.m, b.n);
  for (int j = 0; j < b.n; ++j)
    for (int i = 0; i < b.m; ++i) d(i, j) = (long double)a(i, j) - b(i, j);
  return d;
}

// ||x - y|| / (||a|| m eps), as xQRT01 scales it (0 when a is 0).
template <class T>
double ratio_to_a(const Matrix<T>& a, const Matrix<T>& x, const Matrix<long double>& y) {
  const long double a_norm = one_norm(a);
  if (a_norm == 0) return 0;
  return double(one_norm(difference(x, y)) / a_norm / a.m / unit_roundoff<T>());
}

// max over columns of ||R(:,j) - R_ref(:,j)||_2 / (||a(:,j)||_2 sqrt(m) eps): columnwise, so that
// graded columns do not distort it, and scaled by sqrt(m) like the rounding errors of both
// factorizations.
template <class T>
double r_difference_ratio(const Matrix<T>& a, const Matrix<T>& factored,
                          const Matrix<T>& reference) {
  double worst = 0;
  for (int j = 0; j < a.n; ++j) {
    long double column = 0, diff = 0;
    for (int i = 0; i < a.m; ++i) column += (long double)a(i, j) * a(i, j);
    for (int i = 0; i <= j; ++i) {
      const long double d = (long double)factored(i, j) - reference(i, j);
      diff += d * d;
    }
    if (column > 0) worst = std::max(worst, double(std::sqrt(diff / column / a.m)));
  }
  return worst / unit_roundoff<T>();
}

// Largest ratios seen per precision and measure, printed when the tests end.
std::map<std::string, double>& worst_ratios() {
  static std::map<std::string, double> worst;
  return worst;
}

template <class T>
void note_ratio(const std::string& measure, double ratio) {
  const std::string key = std::string(sizeof(T) == 4 ? "float " : "double ") + measure;
  double& worst = worst_ratios()[key];
  worst = std::max(worst, ratio);
}

class PrintWorstRatios : public ::testing::Environment {
 public:
  void TearDown() override {
    for (const auto& [measure, ratio] : worst_ratios())
      std::cout << "max " << measure << " = " << ratio << "\n";
  }
};

[[maybe_unused]] const auto* const kPrintWorstRatios =
    ::testing::AddGlobalTestEnvironment(new PrintWorstRatios);

// ---------------------------------------------------------------------------------------------
// Running factor_cpu and judging its output.

constexpr double kLapackThreshold = 30;  // xCHKQR's THRESH
constexpr double kReferenceMatchThreshold = 30;
constexpr int kThreads = 4;
constexpr int kDefaultBlockRows = 0;

struct Run {
  int threads = kThreads;
  int block_rows = kDefaultBlockRows;
  int extra_lead = 0;  // lda - m
};

template <class T>
struct Factored {
  Matrix<T> a;
  std::vector<T> tau;
};

template <class T>
Factored<T> factor(const Matrix<double>& input, const Run& run) {
  Factored<T> out{convert<T>(input, input.m + run.extra_lead),
                  std::vector<T>(std::size_t(input.n), std::numeric_limits<T>::quiet_NaN())};
  Matrix<T>& a = out.a;
  constexpr T kPadding = -99;  // rows m..lda-1, which factor_cpu must leave alone
  for (int j = 0; j < a.n; ++j) std::fill(&a(0, j) + a.m, &a(0, j) + a.ld, kPadding);
  const Lapack<T> lapack = Reference<T>::table();
  const int status = run.block_rows == kDefaultBlockRows
                         ? factor_cpu(a.m, a.n, a.ptr(), a.ld, out.tau.data(), lapack, run.threads)
                         : factor_cpu_with_block_rows(a.m, a.n, a.ptr(), a.ld, out.tau.data(),
                                                      lapack, run.threads, run.block_rows);
  EXPECT_EQ(status, kOk);
  for (int j = 0; j < a.n; ++j) {
    EXPECT_TRUE(std::all_of(&a(0, j) + a.m, &a(0, j) + a.ld, [](T x) { return x == kPadding; }));
  }
  return out;
}

template <class T>
void expect_valid_tau(const std::vector<T>& tau) {
  for (std::size_t j = 0; j < tau.size(); ++j) {
    EXPECT_TRUE(tau[j] == 0 || (tau[j] >= 1 && tau[j] <= 2)) << "tau(" << j << ") = " << tau[j];
  }
}

// The LIN-test measures: ||A - QR||, ||I - Q^T Q|| and ||Q^T A - R|| with Q from xORGQR and
// xORMQR.
template <class T>
void expect_lapack_contract(const Matrix<T>& a, const Factored<T>& f) {
  expect_valid_tau(f.tau);
  const Matrix<T> q = reference_q(f.a, f.tau);
  const Matrix<long double> r = r_factor(f.a);

  const double factorization = ratio_to_a(a, a, q_times_r(q, r));
  const double orthogonality = double(one_norm(identity_minus_qtq(q)) / a.m / unit_roundoff<T>());
  const double application = ratio_to_a(a, reference_apply_qt(f.a, f.tau, a), r);
  note_ratio<T>("||A-QR||/(||A|| m eps)", factorization);
  note_ratio<T>("||I-Q'Q||/(m eps)", orthogonality);
  note_ratio<T>("||Q'A-R||/(||A|| m eps)", application);
  EXPECT_LT(factorization, kLapackThreshold);
  EXPECT_LT(orthogonality, kLapackThreshold);
  EXPECT_LT(application, kLapackThreshold);
}

// max over columns of ||v(j) - v_ref(j)||_2 / (||v_ref(j)||_2 sqrt(m) eps), v(j) with its unit
// diagonal; a column where either tau is 0 is compared as a whole through tau.
template <class T>
double v_difference_ratio(const Factored<T>& f, const Matrix<T>& reference,
                          const std::vector<T>& reference_tau) {
  double worst = 0;
  for (int j = 0; j < f.a.n; ++j) {
    if (f.tau[j] == 0 || reference_tau[j] == 0) continue;
    long double norm = 1, diff = 0;
    for (int i = j + 1; i < f.a.m; ++i) {
      const long double d = (long double)f.a(i, j) - reference(i, j);
      norm += (long double)reference(i, j) * reference(i, j);
      diff += d * d;
    }
    worst = std::max(worst, double(std::sqrt(diff / norm / f.a.m)));
  }
  return worst / unit_roundoff<T>();
}

template <class T>
double tau_difference_ratio(const std::vector<T>& tau, const std::vector<T>& reference_tau, int m) {
  double worst = 0;
  for (std::size_t j = 0; j < tau.size(); ++j)
    worst = std::max(worst, std::fabs(double(tau[j]) - double(reference_tau[j])));
  return worst / std::sqrt(double(m)) / unit_roundoff<T>();
}

// Where R is well determined, V, tau and R are xGEQRF's up to rounding, signs included.
template <class T>
void expect_matches_reference(const Matrix<T>& a, const Factored<T>& f) {
  Matrix<T> reference = a;
  const std::vector<T> reference_tau = reference_geqrf(reference);
  const double r_ratio = r_difference_ratio(a, f.a, reference);
  const double v_ratio = v_difference_ratio(f, reference, reference_tau);
  const double tau_ratio = tau_difference_ratio(f.tau, reference_tau, a.m);
  note_ratio<T>("|R-R_geqrf|_col/(|a|_col sqrt(m) eps)", r_ratio);
  note_ratio<T>("|v-v_geqrf|/(|v_geqrf| sqrt(m) eps)", v_ratio);
  note_ratio<T>("|tau-tau_geqrf|/(sqrt(m) eps)", tau_ratio);
  EXPECT_LT(r_ratio, kReferenceMatchThreshold);
  EXPECT_LT(v_ratio, kReferenceMatchThreshold);
  EXPECT_LT(tau_ratio, kReferenceMatchThreshold);
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

TYPED_TEST(TsqrCpu, ThreadCounts) {
  for (int threads : {1, 2, 3, 8, 64})
    check<TypeParam>(gaussian(5000, 16, 3), CompareToGeqrf::kYes, {threads, 100, 0});
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
  incomplete.trsm = nullptr;

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
