// Reference quick returns: an empty C is not touched; alpha = 0 or k = 0
// scales C by beta without reading A or B; beta = 0 never reads C.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "abi.hpp"

namespace switchyard::test {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

TEST(QuickReturn, EmptyCIsNotTouched) {
  std::vector<double> c(4, nan);
  const int zero = 0, two = 2;
  const double one = 1;
  dgemm_("N", "N", &zero, &two, &two, &one, nullptr, &two, nullptr, &two, &one, c.data(), &two, 1,
         1);
  for (double x : c) EXPECT_TRUE(std::isnan(x));
}

TEST(QuickReturn, AlphaZeroScalesCAndNeverReadsAOrB) {
  const int n = 3;
  const double alpha = 0, beta = 2;
  std::vector<double> a(9, nan), b(9, nan), c(9, 1.5);
  dgemm_("N", "T", &n, &n, &n, &alpha, a.data(), &n, b.data(), &n, &beta, c.data(), &n, 1, 1);
  EXPECT_EQ(c, std::vector<double>(9, 3.0));
}

TEST(QuickReturn, KZeroWithBetaZeroZeroesCEvenIfItHeldNan) {
  const int n = 3, k = 0, ldb = 1;
  const double alpha = 1, beta = 0;
  std::vector<double> c(9, nan);
  double unused = nan;
  dgemm_("N", "N", &n, &n, &k, &alpha, &unused, &n, &unused, &ldb, &beta, c.data(), &n, 1, 1);
  EXPECT_EQ(c, std::vector<double>(9, 0.0));
}

TEST(QuickReturn, BetaZeroNeverReadsC) {
  const int n = 2;
  const double alpha = 1, beta = 0;
  const std::vector<double> a = {1, 2, 3, 4}, b = {1, 0, 0, 1};
  std::vector<double> c(4, nan);
  dgemm_("N", "N", &n, &n, &n, &alpha, a.data(), &n, b.data(), &n, &beta, c.data(), &n, 1, 1);
  EXPECT_EQ(c, a);
}

TEST(QuickReturn, GeqrfOfAnEmptyMatrixSetsWorkOne) {
  const int m = 0, n = 5, lda = 1, lwork = 1;
  double work = 0;
  int info = 9;
  dgeqrf_(&m, &n, nullptr, &lda, nullptr, &work, &lwork, &info);
  EXPECT_EQ(info, 0);
  EXPECT_EQ(work, 1.0);
}

}  // namespace
}  // namespace switchyard::test
