#pragma once

// The checks of a column-pivoted TSQR against reference LAPACK's xGEQP3, for the CPU route
// (tsqr_pivoted_test.cpp) and the GPU route (tests/gpu): the same pivots where the columns'
// norms are well apart (leading columns fixed by JPVT included), the factorization of A P judged
// by the LIN tests' measures, V, tau and R matching xGEQRF's of A P where R is well determined,
// R's diagonal non-increasing past the fixed columns, and WORK(1) as xGEQP3 reports it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "tsqr_checks.hpp"

namespace switchyard::tsqr::checks {

// A pivoted factorization's output: A (V and R), tau, JPVT and WORK(1).
template <class T>
struct Pivoted {
  Factored<T> f;  // leading dimension m
  std::vector<int> jpvt;
  T work1{};
};

template <class T>
Pivoted<T> reference(const Matrix<double>& input, std::vector<int> jpvt) {
  Matrix<T> a = convert<T>(input, input.m);
  std::vector<T> tau(std::size_t(a.n));
  const Lapack<T> lapack = Reference<T>::table();
  T answer{};
  int lwork = -1, info = 0;
  lapack.geqp3(&a.m, &a.n, a.ptr(), &a.ld, jpvt.data(), tau.data(), &answer, &lwork, &info);
  std::vector<T> work(std::size_t(answer) + 1);
  lwork = int(work.size());
  lapack.geqp3(&a.m, &a.n, a.ptr(), &a.ld, jpvt.data(), tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info, 0);
  return {{a, tau}, jpvt, work[0]};
}

// A's columns in the order JPVT gives (1-based), as xGEQP3 factors them.
template <class T>
Matrix<T> permuted(const Matrix<double>& input, const std::vector<int>& jpvt) {
  const Matrix<T> a = convert<T>(input, input.m);
  Matrix<T> p(a.m, a.n);
  for (int j = 0; j < a.n; ++j) std::copy_n(&a(0, jpvt[j] - 1), a.m, &p(0, j));
  return p;
}

// Columns of unit Gaussian entries scaled by 1..n in a random order, so that every pivot is
// decided by a margin far above rounding.
inline Matrix<double> distinct_norms(int m, int n, unsigned seed) {
  Matrix<double> a = gaussian(m, n, seed);
  std::vector<int> scale(static_cast<std::size_t>(n));
  std::iota(scale.begin(), scale.end(), 1);
  std::shuffle(scale.begin(), scale.end(), std::mt19937(seed));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) a(i, j) *= scale[std::size_t(j)];
  return a;
}

inline int fixed_count(const std::vector<int>& jpvt_in) {
  return int(std::count_if(jpvt_in.begin(), jpvt_in.end(), [](int j) { return j != 0; }));
}

enum class Expect { kSamePivots, kAnyPivots };

// `got` (our factorization of `input` with JPVT `jpvt_in` on entry, all zero when empty)
// against reference xGEQP3's.
template <class T>
void expect_pivoted_qr(const Matrix<double>& input, Expect expect, std::vector<int> jpvt_in,
                       const Pivoted<T>& got) {
  if (jpvt_in.empty()) jpvt_in.assign(std::size_t(input.n), 0);
  const Pivoted<T> want = reference<T>(input, jpvt_in);
  std::vector<int> sorted = got.jpvt;
  std::sort(sorted.begin(), sorted.end());
  for (int j = 0; j < input.n; ++j) ASSERT_EQ(sorted[std::size_t(j)], j + 1) << "not a permutation";
  if (expect == Expect::kSamePivots) EXPECT_EQ(got.jpvt, want.jpvt);
  EXPECT_EQ(got.work1, want.work1);

  const Matrix<T> ap = permuted<T>(input, got.jpvt);
  expect_lapack_contract(ap, got.f);
  if (expect == Expect::kSamePivots) expect_matches_reference(ap, got.f);
  // Past the fixed columns each pivot has the largest remaining norm, so |R(j, j)| does not grow
  // (up to rounding, relative to the largest).
  const int first_free = fixed_count(jpvt_in);
  const double slack = 64 * input.m * unit_roundoff<T>() * std::fabs(double(got.f.a(0, 0)));
  for (int j = first_free + 1; j < input.n; ++j) {
    EXPECT_LE(std::fabs(double(got.f.a(j, j))),
              std::fabs(double(got.f.a(j - 1, j - 1))) * (1 + 64 * unit_roundoff<T>()) + slack)
        << "R(" << j << ", " << j << ")";
  }
}

}  // namespace switchyard::tsqr::checks
