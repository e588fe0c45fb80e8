// xGESDD through libswitchyard.so's exported names with the route forced onto the GPU
// (SWITCHYARD_ROUTE_DGESDD=gpu, SWITCHYARD_ROUTE_SGESDD=gpu; without a device the calls run in
// the fallback, and the same checks hold), held against reference LAPACK reached directly:
// arguments out of range give the reference's INFO and XERBLA call, queries its WORK(1); tall
// matrices with JOBZ = 'S' and 'N' give its singular values, and U S V^T is A with U's and V's
// columns orthonormal, to rounding.
#include <gtest/gtest.h>

#include <algorithm>
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
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*,
             double*, const int*, double*, const int*, int*, int*, std::size_t);
void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*,
             float*, const int*, float*, const int*, int*, int*, std::size_t);
}

namespace switchyard::test {
namespace {

// Set before the library's first call reads its configuration.
const bool gpu_route_forced = setenv("SWITCHYARD_ROUTE_DGESDD", "gpu", 1) == 0 &&
                              setenv("SWITCHYARD_ROUTE_SGESDD", "gpu", 1) == 0;

template <class T>
GesddFn<T>* reference_gesdd() {
  return reference_lapack<GesddFn<T>>(sizeof(T) == 8 ? "dgesdd_" : "sgesdd_");
}

template <class T>
GesddFn<T>* ours() {
  if constexpr (sizeof(T) == 8) {
    return dgesdd_;
  } else {
    return sgesdd_;
  }
}

struct Problem {
  char jobz;
  int m, n, lda, ldu, ldvt, lwork;
};

template <class T>
struct Outcome {
  std::vector<T> s, u, vt, work;
  int info = 12345;
  RecordedXerbla handled;
};

template <class T>
Outcome<T> run(GesddFn<T>* gesdd, const Problem& p, std::vector<T> a) {
  Outcome<T> o;
  const std::size_t k = std::size_t(std::max(1, std::min(p.m, p.n)));
  o.s.assign(k, std::numeric_limits<T>::quiet_NaN());
  // U has M columns for JOBZ = 'A' (and 'O' on a wide A), min(M, N) for 'S'.
  const int u_columns = p.jobz == 'A' || p.jobz == 'O' ? p.m : std::min(p.m, p.n);
  o.u.assign(std::size_t(std::max(1, p.ldu)) * std::max(u_columns, 1),
             std::numeric_limits<T>::quiet_NaN());
  o.vt.assign(std::size_t(std::max(1, p.ldvt)) * std::max(p.n, 1),
              std::numeric_limits<T>::quiet_NaN());
  o.work.assign(std::size_t(std::max(1, p.lwork)), std::numeric_limits<T>::quiet_NaN());
  std::vector<int> iwork(8 * k);
  handled = {};
  gesdd(&p.jobz, &p.m, &p.n, a.data(), &p.lda, o.s.data(), o.u.data(), &p.ldu, o.vt.data(), &p.ldvt,
        o.work.data(), &p.lwork, iwork.data(), &o.info, 1);
  o.handled = handled;
  return o;
}

TEST(Gesdd, ArgumentsAsReference) {
  ASSERT_TRUE(gpu_route_forced);
  int cases = 0, errors = 0;
  for (char jobz : {'S', 'n', 'A', 'O', 'X'}) {
    for (int m : {-1, 0, 3, 6}) {
      for (int n : {-1, 0, 2, 4}) {
        for (int lda : {1, 6}) {
          for (int ldu : {1, 6}) {
            for (int ldvt : {1, 4}) {
              for (int lwork : {-1, 1, 5000}) {
                const Problem p{jobz, m, n, lda, ldu, ldvt, lwork};
                SCOPED_TRACE(::testing::Message()
                             << "JOBZ " << jobz << " M " << m << " N " << n << " LDA " << lda
                             << " LDU " << ldu << " LDVT " << ldvt << " LWORK " << lwork);
                const std::vector<double> a =
                    random_matrix<double>(std::size_t(lda) * std::max(1, n), 3);
                const Outcome<double> got = run<double>(ours<double>(), p, a);
                const Outcome<double> want = run<double>(reference_gesdd<double>(), p, a);
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
  EXPECT_GT(errors, 500);
  EXPECT_GT(cases - errors, 100);
}

template <class T>
void check_tall(char jobz, int m, int n) {
  SCOPED_TRACE(::testing::Message() << jobz << " " << m << " x " << n);
  const std::vector<T> a = graded_matrix<T>(m, n);
  const Problem p{jobz, m, n, m, m, n, 64 * (m + n) + 8 * n * n + 100000};
  const Outcome<T> got = run<T>(ours<T>(), p, a);
  const Outcome<T> want = run<T>(reference_gesdd<T>(), p, a);
  ASSERT_EQ(got.info, 0);
  ASSERT_EQ(want.info, 0);
  EXPECT_EQ(got.handled.calls, 0);
  EXPECT_EQ(got.work[0], want.work[0]);
  expect_singular_values(m, n, got.s, want.s);
  if (jobz == 'S') expect_svd_of(a, m, n, got.s, got.u, got.vt);
}

TEST(Gesdd, TallMatricesAsReference) {
  ASSERT_TRUE(gpu_route_forced);
  check_tall<double>('S', 20000, 32);
  check_tall<double>('N', 20000, 40);
  check_tall<double>('S', 5000, 100);
  check_tall<float>('S', 20000, 12);
}

}  // namespace
}  // namespace switchyard::test
