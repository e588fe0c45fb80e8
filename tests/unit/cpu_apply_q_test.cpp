// Checks switchyard::qr::form_q_cpu and apply_q_cpu against reference LAPACK's xORGQR and
// xORMQR on reflectors from reference xGEQRF: the same Q and op(Q) C to rounding, on one and
// several blocks of reflectors (the last one partial), fewer reflectors than columns, reflectors
// with tau = 0, several thread counts, rows past M left alone; and the same bits on every run.

#include "qr/cpu_apply_q.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tsqr_checks.hpp"

namespace switchyard::qr {
namespace {

using tsqr::checks::convert;
using tsqr::checks::gaussian;
using tsqr::checks::Matrix;
using tsqr::checks::Reference;
using tsqr::checks::reference_geqrf;

constexpr double kPadding = -99;

template <class T>
struct Reflectors {
  Matrix<T> a;  // leading dimension m + 3, rows past m padded
  std::vector<T> tau;
};

// k reflectors of an m x k Gaussian matrix, in the first k of n columns (the rest random).
template <class T>
Reflectors<T> reflectors(int m, int n, int k, unsigned seed) {
  Matrix<T> factored = convert<T>(gaussian(m, k, seed), m);
  std::vector<T> tau = reference_geqrf(factored);
  Matrix<T> a = convert<T>(gaussian(m, n, seed + 1), m + 3);
  for (int j = 0; j < k; ++j) std::copy_n(&factored(0, j), m, &a(0, j));
  for (int j = 0; j < n; ++j) std::fill(&a(0, j) + m, &a(0, j) + a.ld, T(kPadding));
  return {a, tau};
}

template <class T>
T tolerance(int m) {
  return T(30) * std::sqrt(T(m)) * std::numeric_limits<T>::epsilon();
}

template <class T>
void expect_padding_kept(const Matrix<T>& a) {
  for (int j = 0; j < a.n; ++j) {
    EXPECT_TRUE(std::all_of(&a(0, j) + a.m, &a(0, j) + a.ld, [](T x) { return x == T(kPadding); }));
  }
}

template <class T>
void check_form_q(int m, int n, int k, int threads, std::vector<int> zero_taus = {}) {
  SCOPED_TRACE(::testing::Message()
               << m << " x " << n << ", k " << k << ", " << threads << " threads");
  Reflectors<T> r = reflectors<T>(m, n, k, 7 + m + n + k);
  for (int j : zero_taus) r.tau[std::size_t(j)] = T(0);
  Matrix<T> want(m, n, m);
  for (int j = 0; j < n; ++j) std::copy_n(&r.a(0, j), m, &want(0, j));
  const int lwork = 64 * std::max(1, n);
  std::vector<T> work(static_cast<std::size_t>(lwork));
  int info = -1;
  Reference<T>::orgqr()(&m, &n, &k, want.ptr(), &want.ld, r.tau.data(), work.data(), &lwork, &info);
  ASSERT_EQ(info, 0);
  Matrix<T> got = r.a;
  ASSERT_EQ(form_q_cpu(m, n, k, got.ptr(), got.ld, r.tau.data(), threads), kCpuApplied);
  T worst = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) worst = std::max(worst, std::abs(got(i, j) - want(i, j)));
  EXPECT_LE(worst, tolerance<T>(m));
  expect_padding_kept(got);
  Matrix<T> again = r.a;
  form_q_cpu(m, n, k, again.ptr(), again.ld, r.tau.data(), threads);
  EXPECT_EQ(again.data, got.data);
}

template <class T>
void check_apply_q(bool transpose, int m, int nc, int k, int threads) {
  SCOPED_TRACE(::testing::Message() << (transpose ? "Q^T C" : "Q C") << ", " << m << " x " << nc
                                    << ", k " << k << ", " << threads << " threads");
  const Reflectors<T> r = reflectors<T>(m, k, k, 11 + m + nc + k);
  Matrix<T> c0 = convert<T>(gaussian(m, nc, 5), m + 2);
  for (int j = 0; j < nc; ++j) std::fill(&c0(0, j) + m, &c0(0, j) + c0.ld, T(kPadding));
  Matrix<T> want = c0;
  const int lwork = 64 * std::max(1, nc);
  std::vector<T> work(static_cast<std::size_t>(lwork));
  int info = -1;
  Reference<T>::ormqr()("L", transpose ? "T" : "N", &m, &nc, &k, r.a.ptr(), &r.a.ld, r.tau.data(),
                        want.ptr(), &want.ld, work.data(), &lwork, &info, 1, 1);
  ASSERT_EQ(info, 0);
  Matrix<T> got = c0;
  ASSERT_EQ(
      apply_q_cpu(transpose, m, nc, k, r.a.ptr(), r.a.ld, r.tau.data(), got.ptr(), got.ld, threads),
      kCpuApplied);
  T worst = 0, scale = 0;
  for (int j = 0; j < nc; ++j)
    for (int i = 0; i < m; ++i) {
      worst = std::max(worst, std::abs(got(i, j) - want(i, j)));
      scale = std::max(scale, std::abs(want(i, j)));
    }
  EXPECT_LE(worst, tolerance<T>(m) * std::max(T(1), scale));
  expect_padding_kept(got);
}

template <class T>
class CpuApplyQ : public ::testing::Test {};

using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuApplyQ, Precisions);

TYPED_TEST(CpuApplyQ, FormsQAsOrgqr) {
  check_form_q<TypeParam>(5000, 20, 20, 2);
  check_form_q<TypeParam>(9000, 64, 64, 3);
  check_form_q<TypeParam>(6000, 150, 150, 4);  // blocks of 64, 64 and 22
  check_form_q<TypeParam>(5000, 30, 17, 2);    // the identity's last columns
  check_form_q<TypeParam>(7000, 100, 70, 1);   // a partial block and identity columns
  check_form_q<TypeParam>(70, 64, 64, 2);      // few rows below the top
  check_form_q<TypeParam>(64, 64, 64, 2);      // none
  check_form_q<TypeParam>(300, 8, 0, 2);       // no reflectors
  check_form_q<TypeParam>(4000, 40, 40, 2, {0, 7, 39});
}

TYPED_TEST(CpuApplyQ, AppliesQAsOrmqr) {
  for (bool transpose : {true, false}) {
    check_apply_q<TypeParam>(transpose, 5000, 1, 32, 2);
    check_apply_q<TypeParam>(transpose, 8000, 7, 64, 3);
    check_apply_q<TypeParam>(transpose, 6000, 40, 130, 4);
    check_apply_q<TypeParam>(transpose, 100, 3, 100, 2);
  }
}

}  // namespace
}  // namespace switchyard::qr
