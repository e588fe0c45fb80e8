// SWITCHYARD_FALLBACK: the named library runs what Switchyard does not take;
// one that cannot be loaded, that defines none of the routines Switchyard
// hands on (libm), or that is Switchyard itself, leaves the next library in
// charge.
// CTest runs this program once per setting (see CMakeLists.txt), with a
// filter naming the test that applies.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "abi.hpp"
#include "reference_blas.hpp"

namespace switchyard::test {
namespace {

std::vector<double> product(const std::vector<double>& a, const std::vector<double>& b) {
  const int n = 4;
  const double one = 1, zero = 0;
  std::vector<double> c(n * n, -1.0);
  dgemm_("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n, 1, 1);
  return c;
}

TEST(FallbackOverride, NamedLibraryRunsTheCall) {
  const std::vector<double> a = random_matrix<double>(16, 1), b = random_matrix<double>(16, 2);
  EXPECT_EQ(product(a, b), std::vector<double>(16, 42.0));
}

TEST(FallbackOverride, NextLibraryRunsTheCall) {
  const int n = 4;
  const double one = 1, zero = 0;
  const std::vector<double> a = random_matrix<double>(16, 1), b = random_matrix<double>(16, 2);
  std::vector<double> expected(16);
  reference_gemm<double>()("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero,
                           expected.data(), &n, 1, 1);
  EXPECT_EQ(product(a, b), expected);
}

// A 64-bit call whose fallback lives in a library opened with dlopen(RTLD_LOCAL), out of
// RTLD_NEXT's reach (a wheel's bundled OpenBLAS under Python): that library runs it.
extern "C" void dgemm_64_(const char*, const char*, const std::int64_t*, const std::int64_t*,
                          const std::int64_t*, const double*, const double*, const std::int64_t*,
                          const double*, const std::int64_t*, const double*, double*,
                          const std::int64_t*, std::size_t, std::size_t);

TEST(FallbackOverride, LocallyOpenedLibraryRunsA64BitCall) {
  ASSERT_NE(dlopen(SPY_BLAS64_PATH, RTLD_NOW | RTLD_LOCAL), nullptr) << dlerror();
  const std::int64_t n = 4;
  const double one = 1, zero = 0;
  const std::vector<double> a = random_matrix<double>(16, 1), b = random_matrix<double>(16, 2);
  std::vector<double> c(16, -1.0);
  dgemm_64_("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n, 1, 1);
  EXPECT_EQ(c, std::vector<double>(16, 64.0));
}

}  // namespace
}  // namespace switchyard::test
