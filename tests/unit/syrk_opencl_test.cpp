// The syrk route on the OpenCL device (PoCL without a GPU) against reference BLAS: both
// triangles, every TRANS, sizes that are multiples of no tile, leading dimensions above the
// rows, alpha and beta of every kind. The triangle not asked for and the rows of C below n are
// poisoned before and must come back bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "calls.hpp"
#include "device/opencl_runtime.hpp"
#include "dispatch.hpp"
#include "reference_blas.hpp"

namespace switchyard {
namespace {

struct Case {
  char uplo, trans;
  int n, k, lda_extra, ldc_extra;
  double alpha, beta;
};

template <class T>
bool in_triangle(char uplo, int i, int j) {
  return uplo == 'U' ? i <= j : i >= j;
}

template <class T>
void check(const Case& c) {
  const Implementation<SyrkCall<T>>* route = Implementations<SyrkCall<T>>::gpu;
  ASSERT_NE(route, nullptr);
  if (const char* why = route->unusable()) GTEST_SKIP() << why;
  const int nrowa = c.trans == 'N' ? c.n : c.k, ncola = c.trans == 'N' ? c.k : c.n;
  const int lda = nrowa + c.lda_extra, ldc = c.n + c.ldc_extra;
  const std::vector<T> a = test::random_matrix<T>(std::size_t(lda) * ncola, 11);
  std::vector<T> c0 = test::random_matrix<T>(std::size_t(ldc) * c.n, 12);
  const T poison = std::numeric_limits<T>::quiet_NaN();
  for (int j = 0; j < c.n; ++j) {
    for (int i = 0; i < ldc; ++i) {
      const bool asked = i < c.n && in_triangle<T>(c.uplo, i, j);
      // beta = 0: C is not read, so NaN in the asked triangle must not show through.
      if (!asked || c.beta == 0.0) c0[i + std::size_t(j) * ldc] = poison;
    }
  }
  std::vector<T> ours = c0, theirs = c0;
  const T alpha = T(c.alpha), beta = T(c.beta);
  const SyrkCall<T> call{c.uplo, c.trans, c.n, c.k, alpha, a.data(), lda, beta, ours.data(), ldc};
  ASSERT_EQ(route->declines(call), nullptr);
  ASSERT_TRUE(route->run(call));
  test::reference_syrk<T>()(&c.uplo, &c.trans, &c.n, &c.k, &alpha, a.data(), &lda, &beta,
                            theirs.data(), &ldc, 1, 1);
  const double eps = std::numeric_limits<T>::epsilon();
  for (int j = 0; j < c.n; ++j) {
    for (int i = 0; i < ldc; ++i) {
      const std::size_t at = i + std::size_t(j) * ldc;
      if (i < c.n && in_triangle<T>(c.uplo, i, j)) {
        const double tolerance = 4 * eps * (std::abs(c.alpha) * c.k + std::abs(c.beta) + 1);
        ASSERT_NEAR(double(ours[at]), double(theirs[at]), tolerance)
            << "C(" << i << ", " << j << ")";
      } else {
        ASSERT_EQ(std::memcmp(&ours[at], &c0[at], sizeof(T)), 0)
            << "C(" << i << ", " << j << ") outside the triangle was written";
      }
    }
  }
}

const Case kCases[] = {
    {'U', 'T', 37, 301, 0, 0, 1.0, 0.0},   {'L', 'T', 37, 301, 3, 5, -0.5, 2.0},
    {'U', 'N', 70, 45, 1, 0, 1.5, 1.0},    {'L', 'N', 70, 45, 0, 2, 1.0, 0.0},
    {'U', 'C', 19, 130, 2, 1, 2.0, -1.0},  {'L', 'C', 1, 7, 0, 0, 1.0, 0.5},
    {'L', 'T', 129, 1000, 0, 0, 1.0, 0.0},
};

TEST(SyrkOpenCl, DoubleMatchesReferenceAndWritesOnlyItsTriangle) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(testing::Message() << c.uplo << c.trans << " n=" << c.n << " k=" << c.k);
    check<double>(c);
  }
}

TEST(SyrkOpenCl, SingleMatchesReferenceAndWritesOnlyItsTriangle) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(testing::Message() << c.uplo << c.trans << " n=" << c.n << " k=" << c.k);
    check<float>(c);
  }
}

}  // namespace
}  // namespace switchyard
