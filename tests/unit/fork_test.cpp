// A program that forks before its first BLAS call: parent and child both
// get correct results afterwards.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "abi.hpp"
#include "reference_blas.hpp"

namespace switchyard::test {
namespace {

bool product_is_right() {
  const int n = 5;
  const double one = 1, zero = 0;
  const std::vector<double> a = random_matrix<double>(n * n, 1), b = random_matrix<double>(n * n, 2);
  std::vector<double> c(n * n), expected(n * n);
  dgemm_("T", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n, 1, 1);
  reference_gemm<double>()("T", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero,
                           expected.data(), &n, 1, 1);
  return c == expected;
}

TEST(Fork, BeforeFirstUseBothProcessesWork) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(product_is_right() ? 0 : 1);
  EXPECT_TRUE(product_is_right());
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace switchyard::test
