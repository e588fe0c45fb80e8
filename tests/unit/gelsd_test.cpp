// xGELSD through libswitchyard.so's exported names with the route forced onto the GPU
// (SWITCHYARD_ROUTE_DGELSD=gpu, SWITCHYARD_ROUTE_SGELSD=gpu; without a device the calls run in
// the fallback, and the same checks hold), held against reference LAPACK reached directly:
// arguments out of range and too little workspace give the reference's INFO and XERBLA call,
// queries its WORK(1); tall problems, full-rank and rank-deficient, give its rank, singular
// values, minimum-norm solution and residual, WORK(1) and IWORK(1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "fallback.hpp"
#include "recorded_xerbla.hpp"
#include "reference_blas.hpp"
#include "reference_lapack.hpp"

extern "C" {
// Switchyard's, linked.
void dgelsd_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*,
             const double*, int*, double*, const int*, int*, int*);
void sgelsd_(const int*, const int*, const int*, float*, const int*, float*, const int*, float*,
             const float*, int*, float*, const int*, int*, int*);
}

namespace switchyard::test {
namespace {

// Set before the library's first call reads its configuration.
const bool gpu_route_forced = setenv("SWITCHYARD_ROUTE_DGELSD", "gpu", 1) == 0 &&
                              setenv("SWITCHYARD_ROUTE_SGELSD", "gpu", 1) == 0;

template <class T>
GelsdFn<T>* reference_gelsd() {
  return reference_lapack<GelsdFn<T>>(sizeof(T) == 8 ? "dgelsd_" : "sgelsd_");
}

template <class T>
GelsdFn<T>* ours() {
  if constexpr (sizeof(T) == 8) {
    return dgelsd_;
  } else {
    return sgelsd_;
  }
}

struct Problem {
  int m, n, nrhs, lda, ldb, lwork;
};

template <class T>
struct Outcome {
  std::vector<T> b, s, work;
  std::vector<int> iwork;
  int rank = -1, info = 12345;
  RecordedXerbla handled;
};

// A is `a` (ld p.lda), B random; LWORK as given, IWORK of xGELSD's largest need here.
template <class T>
Outcome<T> run(GelsdFn<T>* gelsd, const Problem& p, std::vector<T> a, unsigned seed) {
  Outcome<T> o;
  o.b = random_matrix<T>(std::size_t(std::max(1, p.ldb)) * std::max(1, p.nrhs), seed);
  o.s.assign(std::size_t(std::max(1, std::min(p.m, p.n))), std::numeric_limits<T>::quiet_NaN());
  o.work.assign(std::size_t(std::max(1, p.lwork)), std::numeric_limits<T>::quiet_NaN());
  o.iwork.assign(std::size_t(64 * std::max(1, std::min(p.m, p.n)) + 64), -1);
  const T rcond = T(1e-5);
  handled = {};
  gelsd(&p.m, &p.n, &p.nrhs, a.data(), &p.lda, o.b.data(), &p.ldb, o.s.data(), &rcond, &o.rank,
        o.work.data(), &p.lwork, o.iwork.data(), &o.info);
  o.handled = handled;
  return o;
}

TEST(Gelsd, ArgumentsAsReference) {
  ASSERT_TRUE(gpu_route_forced);
  int cases = 0, errors = 0;
  for (int m : {-1, 0, 3, 6}) {
    for (int n : {-1, 0, 2, 4}) {
      for (int nrhs : {-1, 0, 2}) {
        for (int lda : {1, 6}) {
          for (int ldb : {1, 4, 6}) {
            for (int lwork : {-1, 0, 10, 5000}) {
              const Problem p{m, n, nrhs, lda, ldb, lwork};
              SCOPED_TRACE(::testing::Message()
                           << "M " << m << " N " << n << " NRHS " << nrhs << " LDA " << lda
                           << " LDB " << ldb << " LWORK " << lwork);
              const std::vector<double> a =
                  random_matrix<double>(std::size_t(lda) * std::max(1, n), 3);
              const Outcome<double> got = run<double>(ours<double>(), p, a, 4);
              const Outcome<double> want = run<double>(reference_gelsd<double>(), p, a, 4);
              EXPECT_EQ(got.info, want.info);
              EXPECT_EQ(got.handled.calls, want.handled.calls);
              EXPECT_EQ(got.handled.info, want.handled.info);
              if (want.info == 0) {
                EXPECT_EQ(got.work[0], want.work[0]);
                EXPECT_EQ(got.iwork[0], want.iwork[0]);
                EXPECT_EQ(got.rank, want.rank);
              }
              ++cases;
              errors += want.info != 0;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(errors, 200);
  EXPECT_GT(cases - errors, 50);
}

// A of m x n with the given rank (a product of random m x rank and rank x n factors).
template <class T>
std::vector<T> with_rank(int m, int n, int rank, unsigned seed) {
  const std::vector<double> left = random_matrix<double>(std::size_t(m) * rank, seed);
  const std::vector<double> right = random_matrix<double>(std::size_t(rank) * n, seed + 1);
  std::vector<T> a(std::size_t(m) * n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int l = 0; l < rank; ++l)
        sum += left[i + std::size_t(l) * m] * right[l + std::size_t(j) * rank];
      a[i + std::size_t(j) * m] = T(sum);
    }
  }
  return a;
}

template <class T>
void check_tall(int m, int n, int rank, int nrhs) {
  SCOPED_TRACE(::testing::Message() << m << " x " << n << ", rank " << rank << ", " << nrhs);
  const std::vector<T> a = with_rank<T>(m, n, rank, 5);
  const Problem p{m, n, nrhs, m, m, 64 * (m + n) + 100000};
  const Outcome<T> got = run<T>(ours<T>(), p, a, 7);
  const Outcome<T> want = run<T>(reference_gelsd<T>(), p, a, 7);
  ASSERT_EQ(got.info, 0);
  ASSERT_EQ(want.info, 0);
  EXPECT_EQ(got.handled.calls, 0);
  EXPECT_EQ(got.rank, want.rank);
  EXPECT_EQ(got.work[0], want.work[0]);
  EXPECT_EQ(got.iwork[0], want.iwork[0]);
  const T tolerance = T(1000) * std::sqrt(T(m)) * std::numeric_limits<T>::epsilon();
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(got.s[i], want.s[i], tolerance * want.s[0]) << "S(" << i << ")";
  }
  for (int j = 0; j < nrhs; ++j) {
    const T* x = &got.b[std::size_t(j) * m];
    const T* y = &want.b[std::size_t(j) * m];
    T scale = 0, residual_got = 0, residual_want = 0;
    for (int i = 0; i < n; ++i) scale = std::max(scale, std::abs(y[i]));
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(x[i], y[i], tolerance * scale) << "X(" << i << ", " << j << ")";
    }
    for (int i = n; i < m; ++i) {
      residual_got += x[i] * x[i];
      residual_want += y[i] * y[i];
    }
    EXPECT_NEAR(std::sqrt(residual_got), std::sqrt(residual_want),
                tolerance * std::sqrt(residual_want));
  }
}

TEST(Gelsd, TallProblemsAsReference) {
  ASSERT_TRUE(gpu_route_forced);
  check_tall<double>(20000, 32, 32, 3);
  check_tall<double>(20000, 24, 10, 2);  // rank-deficient: the minimum-norm solution
  check_tall<float>(20000, 12, 12, 1);
}

}  // namespace
}  // namespace switchyard::test
