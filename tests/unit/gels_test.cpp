// xGELS through libswitchyard.so's exported names, held against reference LAPACK reached
// directly: argument checks over a grid (the same INFO and XERBLA call), workspace queries, the
// quick return of an empty problem (B zeroed as the reference zeroes it), and solutions of
// tall, transposed and wide problems with the default routing (without a GPU, the fallback's
// xGELS, its xGEQRF and xORMQR routed one by one), and through the 64-bit name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

#include "fallback.hpp"
#include "recorded_xerbla.hpp"
#include "reference_blas.hpp"
#include "reference_lapack.hpp"

extern "C" {
// Switchyard's, linked.
void dgels_(const char*, const int*, const int*, const int*, double*, const int*, double*,
            const int*, double*, const int*, int*, std::size_t);
void sgels_(const char*, const int*, const int*, const int*, float*, const int*, float*, const int*,
            float*, const int*, int*, std::size_t);
void dgels_64_(const char*, const std::int64_t*, const std::int64_t*, const std::int64_t*, double*,
               const std::int64_t*, double*, const std::int64_t*, double*, const std::int64_t*,
               std::int64_t*, std::size_t);
}

namespace switchyard::test {
namespace {

template <class T>
GelsFn<T>* reference_gels() {
  return reference_lapack<GelsFn<T>>(sizeof(T) == 8 ? "dgels_" : "sgels_");
}

template <class T>
void ours(const char* trans, const int* m, const int* n, const int* nrhs, T* a, const int* lda,
          T* b, const int* ldb, T* work, const int* lwork, int* info, std::size_t len) {
  if constexpr (sizeof(T) == 8) {
    dgels_(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info, len);
  } else {
    sgels_(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info, len);
  }
}

// One call's outputs.
template <class T>
struct Outcome {
  std::vector<T> a, b, work;
  int info = 0;
  RecordedXerbla handled;
};

struct Problem {
  char trans;
  int m, n, nrhs, lda, ldb, lwork;
};

template <class T>
Outcome<T> run(GelsFn<T>* gels, const Problem& p, unsigned seed) {
  Outcome<T> o;
  o.a = random_matrix<T>(std::size_t(std::max(1, p.lda)) * std::max(1, p.n), seed);
  o.b = random_matrix<T>(std::size_t(std::max(1, p.ldb)) * std::max(1, p.nrhs), seed + 1);
  o.work.assign(std::size_t(std::max(1, p.lwork)), std::numeric_limits<T>::quiet_NaN());
  handled = {};
  o.info = 12345;
  gels(&p.trans, &p.m, &p.n, &p.nrhs, o.a.data(), &p.lda, o.b.data(), &p.ldb, o.work.data(),
       &p.lwork, &o.info, 1);
  o.handled = handled;
  return o;
}

TEST(Gels, ArgumentChecksMatchReference) {
  int cases = 0, errors = 0;
  for (char trans : {'N', 't', 'X'}) {
    for (int m : {-1, 0, 2, 5}) {
      for (int n : {-1, 0, 1, 3}) {
        for (int nrhs : {-1, 0, 2}) {
          for (int lda : {1, 5}) {
            for (int ldb : {1, 3, 5}) {
              for (int lwork : {-1, 0, 4, 7, 100}) {
                const Problem p{trans, m, n, nrhs, lda, ldb, lwork};
                SCOPED_TRACE(::testing::Message()
                             << "TRANS " << trans << " M " << m << " N " << n << " NRHS " << nrhs
                             << " LDA " << lda << " LDB " << ldb << " LWORK " << lwork);
                const Outcome<double> got = run<double>(ours<double>, p, 1);
                const Outcome<double> want = run<double>(reference_gels<double>(), p, 1);
                EXPECT_EQ(got.info, want.info);
                EXPECT_EQ(got.handled.calls, want.handled.calls);
                EXPECT_EQ(got.handled.info, want.handled.info);
                if (want.handled.calls) EXPECT_EQ(got.handled.name, "DGELS");
                if (want.info == 0) EXPECT_EQ(got.work[0], want.work[0]);
                // The quick return of an empty problem zeroes B as the reference does.
                if (want.info == 0 && lwork != -1) EXPECT_EQ(got.b, want.b);
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
  EXPECT_GT(cases - errors, 50);
}

// The solution and the residual's norm per right-hand side, as the reference's to rounding;
// WORK(1) the optimal LWORK.
template <class T>
void check_solves(char trans, int m, int n, int nrhs) {
  SCOPED_TRACE(::testing::Message() << trans << " " << m << " x " << n << ", " << nrhs);
  const int ldb = std::max(m, n), lwork = 64 * (m + n + nrhs);
  const Problem p{trans, m, n, nrhs, m, ldb, lwork};
  const Outcome<T> got = run<T>(ours<T>, p, 7);
  const Outcome<T> want = run<T>(reference_gels<T>(), p, 7);
  ASSERT_EQ(got.info, 0);
  ASSERT_EQ(want.info, 0);
  EXPECT_EQ(got.handled.calls, 0);
  EXPECT_EQ(got.work[0], want.work[0]);
  const bool tall = (trans == 'N') == (m >= n);
  const int solution_rows = trans == 'N' ? n : m, rows = trans == 'N' ? m : n;
  const T tolerance = T(200) * std::sqrt(T(ldb)) * std::numeric_limits<T>::epsilon();
  for (int j = 0; j < nrhs; ++j) {
    const T* x = &got.b[std::size_t(j) * ldb];
    const T* y = &want.b[std::size_t(j) * ldb];
    T scale = 0, residual_got = 0, residual_want = 0;
    for (int i = 0; i < solution_rows; ++i) scale = std::max(scale, std::abs(y[i]));
    for (int i = 0; i < solution_rows; ++i) {
      EXPECT_NEAR(x[i], y[i], tolerance * scale) << "X(" << i << ", " << j << ")";
    }
    if (!tall) continue;
    for (int i = solution_rows; i < rows; ++i) {
      residual_got += x[i] * x[i];
      residual_want += y[i] * y[i];
    }
    EXPECT_NEAR(std::sqrt(residual_got), std::sqrt(residual_want),
                tolerance * std::sqrt(residual_want));
  }
}

TEST(Gels, SolvesAsReference) {
  check_solves<double>('N', 20000, 32, 3);
  check_solves<float>('N', 20000, 7, 1);
  check_solves<double>('T', 3000, 20, 2);
  check_solves<double>('N', 20, 300, 2);
}

TEST(Gels, SixtyFourBitName) {
  const std::int64_t m = 5000, n = 8, nrhs = 2, lwork = 64 * (m + n);
  const std::vector<double> a0 = random_matrix<double>(std::size_t(m * n), 5);
  const std::vector<double> b0 = random_matrix<double>(std::size_t(m * nrhs), 6);
  std::vector<double> a = a0, b = b0, work(static_cast<std::size_t>(lwork));
  std::int64_t info = -1;
  dgels_64_("N", &m, &n, &nrhs, a.data(), &m, b.data(), &m, work.data(), &lwork, &info, 1);
  EXPECT_EQ(info, 0);
  std::vector<double> ra = a0, rb = b0, rwork(static_cast<std::size_t>(lwork));
  const int m32 = int(m), n32 = int(n), nrhs32 = int(nrhs), lwork32 = int(lwork);
  int rinfo = -1;
  reference_gels<double>()("N", &m32, &n32, &nrhs32, ra.data(), &m32, rb.data(), &m32, rwork.data(),
                           &lwork32, &rinfo, 1);
  for (std::size_t i = 0; i < std::size_t(n); ++i) EXPECT_NEAR(b[i], rb[i], 1e-10) << i;
}

}  // namespace
}  // namespace switchyard::test
