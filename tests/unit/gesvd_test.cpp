// xGESVD through libswitchyard.so's exported names with the route forced onto the GPU
// (SWITCHYARD_ROUTE_DGESVD=gpu, SWITCHYARD_ROUTE_SGESVD=gpu; without a device the calls run in
// the fallback, and the same checks hold), held against reference LAPACK reached directly:
// arguments out of range give the reference's INFO and XERBLA call, queries its WORK(1); tall
// matrices with each JOBU and JOBVT the route takes give its singular values, with U S V^T = A
// and U's and V's columns orthonormal to rounding, and what is not asked for left unwritten.
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
#include "svd_checks.hpp"

extern "C" {
// Switchyard's, linked.
void dgesvd_(const char*, const char*, const int*, const int*, double*, const int*, double*,
             double*, const int*, double*, const int*, double*, const int*, int*, std::size_t,
             std::size_t);
void sgesvd_(const char*, const char*, const int*, const int*, float*, const int*, float*, float*,
             const int*, float*, const int*, float*, const int*, int*, std::size_t, std::size_t);
}

namespace switchyard::test {
namespace {

// Set before the library's first call reads its configuration.
const bool gpu_route_forced = setenv("SWITCHYARD_ROUTE_DGESVD", "gpu", 1) == 0 &&
                              setenv("SWITCHYARD_ROUTE_SGESVD", "gpu", 1) == 0;

template <class T>
GesvdFn<T>* reference_gesvd() {
  return reference_lapack<GesvdFn<T>>(sizeof(T) == 8 ? "dgesvd_" : "sgesvd_");
}

template <class T>
GesvdFn<T>* ours() {
  if constexpr (sizeof(T) == 8) {
    return dgesvd_;
  } else {
    return sgesvd_;
  }
}

struct Problem {
  char jobu, jobvt;
  int m, n, lda, ldu, ldvt, lwork;
};

template <class T>
struct Outcome {
  std::vector<T> s, u, vt, work;
  int info = 12345;
  RecordedXerbla handled;
};

// One call on a copy of A; S, U, VT and WORK poisoned.
template <class T>
Outcome<T> run(GesvdFn<T>* gesvd, const Problem& p, std::vector<T> a) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  Outcome<T> o;
  o.s.assign(std::size_t(std::max(1, std::min(p.m, p.n))), nan);
  // U has M columns for JOBU = 'A', min(M, N) for 'S'.
  const int u_columns = p.jobu == 'A' ? p.m : std::min(p.m, p.n);
  o.u.assign(std::size_t(std::max(1, p.ldu)) * std::max(u_columns, 1), nan);
  o.vt.assign(std::size_t(std::max(1, p.ldvt)) * std::max(p.n, 1), nan);
  o.work.assign(std::size_t(std::max(1, p.lwork)), nan);
  handled = {};
  gesvd(&p.jobu, &p.jobvt, &p.m, &p.n, a.data(), &p.lda, o.s.data(), o.u.data(), &p.ldu,
        o.vt.data(), &p.ldvt, o.work.data(), &p.lwork, &o.info, 1, 1);
  o.handled = handled;
  return o;
}

TEST(Gesvd, ArgumentsAsReference) {
  ASSERT_TRUE(gpu_route_forced);
  int cases = 0, errors = 0;
  for (char jobu : {'S', 'n', 'A', 'O', 'X'}) {
    for (char jobvt : {'S', 'a', 'N', 'O', 'X'}) {
      for (int m : {-1, 0, 3, 6}) {
        for (int n : {-1, 2, 4}) {
          for (int lda : {1, 6}) {
            for (int ldu : {1, 6}) {
              for (int ldvt : {1, 4}) {
                for (int lwork : {-1, 1, 5000}) {
                  const Problem p{jobu, jobvt, m, n, lda, ldu, ldvt, lwork};
                  SCOPED_TRACE(::testing::Message()
                               << "JOBU " << jobu << " JOBVT " << jobvt << " M " << m << " N " << n
                               << " LDA " << lda << " LDU " << ldu << " LDVT " << ldvt << " LWORK "
                               << lwork);
                  const std::vector<double> a =
                      random_matrix<double>(std::size_t(lda) * std::max(1, n), 3);
                  const Outcome<double> got = run<double>(ours<double>(), p, a);
                  const Outcome<double> want = run<double>(reference_gesvd<double>(), p, a);
                  EXPECT_EQ(got.info, want.info);
                  EXPECT_EQ(got.handled.calls, want.handled.calls);
                  EXPECT_EQ(got.handled.info, want.handled.info);
                  if (want.info == 0) EXPECT_EQ(got.work[0], want.work[0]);
                  ++cases;
                  errors += want.info != 0;
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(errors, 5000);
  EXPECT_GT(cases - errors, 500);
}

template <class T>
bool all_nan(const std::vector<T>& v) {
  return std::all_of(v.begin(), v.end(), [](T x) { return std::isnan(x); });
}

template <class T>
void check_tall(char jobu, char jobvt, int m, int n) {
  SCOPED_TRACE(::testing::Message() << jobu << jobvt << " " << m << " x " << n);
  const std::vector<T> a = graded_matrix<T>(m, n);
  const Problem p{jobu, jobvt, m, n, m, m, n, 64 * (m + n) + 8 * n * n + 100000};
  const Outcome<T> got = run<T>(ours<T>(), p, a);
  const Outcome<T> want = run<T>(reference_gesvd<T>(), p, a);
  ASSERT_EQ(got.info, 0);
  ASSERT_EQ(want.info, 0);
  EXPECT_EQ(got.handled.calls, 0);
  EXPECT_EQ(got.work[0], want.work[0]);
  expect_singular_values(m, n, got.s, want.s);
  const bool left = jobu == 'S', right = jobvt != 'N';
  if (!left) EXPECT_TRUE(all_nan(got.u)) << "U was written";
  if (!right) EXPECT_TRUE(all_nan(got.vt)) << "VT was written";
  expect_svd_of(a, m, n, got.s, left ? got.u : std::vector<T>{}, right ? got.vt : std::vector<T>{});
}

TEST(Gesvd, TallMatricesAsReference) {
  ASSERT_TRUE(gpu_route_forced);
  check_tall<double>('S', 'S', 20000, 32);
  check_tall<double>('S', 'A', 20000, 17);
  check_tall<double>('N', 'N', 20000, 40);
  check_tall<double>('N', 'S', 20000, 24);
  check_tall<double>('S', 'N', 20000, 24);
  check_tall<double>('S', 'S', 5000, 100);
  check_tall<float>('S', 'S', 20000, 12);
}

}  // namespace
}  // namespace switchyard::test
