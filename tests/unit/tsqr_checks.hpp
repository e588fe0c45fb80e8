// What the TSQR tests judge a factorization by: reference LAPACK, test matrices, and the
// measures of LAPACK's LIN tests (Q rebuilt with xORGQR and applied with xORMQR from the
// strict lower part and tau), plus closeness to xGEQRF's own V, tau and R where those are well
// determined. Shared by the CPU and GPU TSQR tests.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tsqr/lapack_table.hpp"

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
void sgeqp3_(const int* m, const int* n, float* a, const int* lda, int* jpvt, float* tau,
             float* work, const int* lwork, int* info);
void dgeqp3_(const int* m, const int* n, double* a, const int* lda, int* jpvt, double* tau,
             double* work, const int* lwork, int* info);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, std::size_t, std::size_t);
}

namespace switchyard::tsqr::checks {


// The reference routine `name`, looked up past this program's own definitions: the test
// programs that link the library's objects define the interposed names too, and a routine
// under test must never be its own judge. Where those definitions made the linker drop
// LAPACK from the program, it is opened here.
template <class Fn>
Fn* reference_symbol(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (!symbol) {
    static void* const lapack = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
    if (lapack) symbol = dlsym(lapack, name);
  }
  if (!symbol) {
    std::cerr << "no reference " << name << " after this program: " << dlerror() << "\n";
    std::abort();
  }
  return reinterpret_cast<Fn*>(symbol);
}

// Reference LAPACK per precision: the table factor_cpu and factor_pivoted_cpu run on, and
// xORGQR and xORMQR for the checks.
template <class T>
struct Reference;

template <>
struct Reference<float> {
  static Lapack<float> table() {
    Lapack<float> lapack;
    lapack.geqrf = reference_symbol<decltype(sgeqrf_)>("sgeqrf_");
    lapack.geqp3 = reference_symbol<decltype(sgeqp3_)>("sgeqp3_");
    lapack.orgqr = reference_symbol<decltype(sorgqr_)>("sorgqr_");
    return lapack;
  }
  static decltype(sorgqr_)* orgqr() { return reference_symbol<decltype(sorgqr_)>("sorgqr_"); }
  static decltype(sormqr_)* ormqr() { return reference_symbol<decltype(sormqr_)>("sormqr_"); }
};

template <>
struct Reference<double> {
  static Lapack<double> table() {
    Lapack<double> lapack;
    lapack.geqrf = reference_symbol<decltype(dgeqrf_)>("dgeqrf_");
    lapack.geqp3 = reference_symbol<decltype(dgeqp3_)>("dgeqp3_");
    lapack.orgqr = reference_symbol<decltype(dorgqr_)>("dorgqr_");
    return lapack;
  }
  static decltype(dorgqr_)* orgqr() { return reference_symbol<decltype(dorgqr_)>("dorgqr_"); }
  static decltype(dormqr_)* ormqr() { return reference_symbol<decltype(dormqr_)>("dormqr_"); }
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
  Reference<T>::orgqr()(&q.m, &q.n, &q.n, q.ptr(), &q.ld, tau.data(), work.data(), &lwork,
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
  Reference<T>::ormqr()("L", "T", &c.m, &c.n, &factored.n, factored.ptr(), &factored.ld, tau.data(),
                      c.ptr(), &c.ld, work.data(), &lwork, &info, 1, 1);
  EXPECT_EQ(info, 0);
  return c;
}

// ---------------------------------------------------------------------------------------------
// Test matrices, built in double.

inline Matrix<double> gaussian(int m, int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Matrix<double> a(m, n);
  for (double& x : a.data) x = normal(rng);
  return a;
}

inline Matrix<double> product(const Matrix<double>& a, const Matrix<double>& b, bool transpose_b) {
  const int k = a.n;
  const int n = transpose_b ? b.m : b.n;
  Matrix<double> c(a.m, n);
  const double one = 1, zero = 0;
  dgemm_("N", transpose_b ? "T" : "N", &c.m, &n, &k, &one, a.ptr(), &a.ld, b.ptr(), &b.ld, &zero,
         c.ptr(), &c.ld, 1, 1);
  return c;
}

inline Matrix<double> orthonormal_columns(int m, int n, unsigned seed) {
  Matrix<double> a = gaussian(m, n, seed);
  const std::vector<double> tau = reference_geqrf(a);
  return reference_q(a, tau);
}

// U diag(sigma) V^T with random orthogonal U, V and sigma spread geometrically from 1 to
// 1/condition.
inline Matrix<double> with_condition(int m, int n, double condition, unsigned seed) {
  Matrix<double> u = orthonormal_columns(m, n, seed);
  const Matrix<double> v = orthonormal_columns(n, n, seed + 1);
  for (int j = 0; j < n; ++j) {
    const double sigma = std::pow(condition, -double(j) / std::max(1, n - 1));
    for (int i = 0; i < m; ++i) u(i, j) *= sigma;
  }
  return product(u, v, true);
}

// Column j scaled by 10^(-j * step).
inline Matrix<double> graded(int m, int n, int step, unsigned seed) {
  Matrix<double> a = gaussian(m, n, seed);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) a(i, j) *= std::pow(10.0, -double(j) * step);
  return a;
}

inline Matrix<double> with_rank(int m, int n, int rank, unsigned seed) {
  return product(gaussian(m, rank, seed), gaussian(rank, n, seed + 1), false);
}

inline Matrix<double> with_zero_columns(int m, int n, const std::vector<int>& zero_columns,
                                 unsigned seed) {
  Matrix<double> a = gaussian(m, n, seed);
  for (int j : zero_columns) std::fill_n(&a(0, j), m, 0.0);
  return a;
}

// Upper triangular: every column is already reduced below the diagonal.
inline Matrix<double> upper_triangular(int m, int n, unsigned seed) {
  Matrix<double> a = gaussian(m, n, seed);
  for (int j = 0; j < n; ++j) std::fill(&a(0, j) + j + 1, &a(0, j) + m, 0.0);
  return a;
}

// ---------------------------------------------------------------------------------------------
// Measures, computed in long double.

inline long double one_norm(const Matrix<long double>& a) {
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
inline std::map<std::string, double>& worst_ratios() {
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


// ---------------------------------------------------------------------------------------------
// Running factor_cpu and judging its output.

constexpr double kLapackThreshold = 30;  // xCHKQR's THRESH
constexpr double kReferenceMatchThreshold = 30;
template <class T>
struct Factored {
  Matrix<T> a;
  std::vector<T> tau;
};

// `factor(a, tau)` run on `input` held with `extra_lead` rows past m (lda - m), which are set to
// -99 and must come back so, and with tau poisoned with NaN.
template <class T, class Factor>
Factored<T> factor_padded(const Matrix<double>& input, int extra_lead, Factor&& factor) {
  constexpr T kPadding = -99;
  Factored<T> out{convert<T>(input, input.m + extra_lead),
                  std::vector<T>(std::size_t(input.n), std::numeric_limits<T>::quiet_NaN())};
  Matrix<T>& a = out.a;
  for (int j = 0; j < a.n; ++j) std::fill(&a(0, j) + a.m, &a(0, j) + a.ld, kPadding);
  factor(a, out.tau);
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

}  // namespace switchyard::tsqr::checks
