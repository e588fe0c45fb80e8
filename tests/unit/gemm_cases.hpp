// What the gemm route's OpenCL tests share: parameter sets from text, the
// OpenCL device, a product's operands with its reference result (NaN in C
// where beta = 0, a sentinel in the rows below m), and the check of a result
// against it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/device_gemm.hpp"
#include "gemm/kernel_source.hpp"
#include "reference_blas.hpp"

namespace switchyard::gemm_test {

using gemm::KernelParams;
using gemm::Precision;

inline KernelParams params(const char* text, Precision precision) {
  KernelParams p;
  EXPECT_TRUE(gemm::parse(text, precision, p)) << text;
  return p;
}

// The OpenCL device, or null (the test then skips).
inline opencl::Runtime* device() {
  const char* why = nullptr;
  return opencl::runtime(&why);
}

struct Case {
  char ta, tb;
  int m, n, k;
  double alpha, beta;
  int pad;  // lda, ldb, ldc exceed the rows by this much
};

// The operands of a case and the reference result. C holds NaN where
// beta = 0 (C must not be read, so NaN must not show in the result), and a
// sentinel in the rows between m and ldc, which must come back as they were.
template <class T>
struct Problem {
  int lda, ldb, ldc;
  std::vector<T> a, b, c0, expected;
  static constexpr T sentinel = T(12345.0);
};

template <class T>
Problem<T> problem(const Case& c, unsigned seed) {
  const int a_rows = c.ta == 'N' ? c.m : c.k, a_cols = c.ta == 'N' ? c.k : c.m;
  const int b_rows = c.tb == 'N' ? c.k : c.n, b_cols = c.tb == 'N' ? c.n : c.k;
  Problem<T> p;
  p.lda = std::max(1, a_rows + c.pad), p.ldb = std::max(1, b_rows + c.pad);
  p.ldc = c.m + c.pad;
  p.a = test::random_matrix<T>(std::size_t(p.lda) * std::max(1, a_cols), seed);
  p.b = test::random_matrix<T>(std::size_t(p.ldb) * std::max(1, b_cols), seed + 1);
  p.c0 = test::random_matrix<T>(std::size_t(p.ldc) * c.n, seed + 2);
  for (int j = 0; j < c.n; ++j) {
    for (int i = 0; i < p.ldc; ++i) {
      T& x = p.c0[i + std::size_t(j) * p.ldc];
      if (i >= c.m) x = Problem<T>::sentinel;
      else if (c.beta == 0) x = std::numeric_limits<T>::quiet_NaN();
    }
  }
  p.expected = p.c0;
  const T alpha = T(c.alpha), beta = T(c.beta);
  test::reference_gemm<T>()(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, p.a.data(), &p.lda,
                            p.b.data(), &p.ldb, &beta, p.expected.data(), &p.ldc, 1, 1);
  return p;
}

template <class T>
double tolerance(const Case& c) {
  const double eps = std::numeric_limits<T>::epsilon();
  return 4 * eps * (std::abs(c.alpha) * (c.k + 2) + std::abs(c.beta) + 1);
}

// Checks `got`, C after the call of case `c` on problem `p`, against the
// reference: within tolerance inside m x n, and the rows below m as given.
// `what` names the kernels and plan in a failure; `scale` widens the
// tolerance for products whose sums do not cancel.
template <class T>
void expect_result(const Case& c, const Problem<T>& p, const std::vector<T>& got,
                   const std::string& what, double scale = 1) {
  const int ldc = p.ldc;
  for (int j = 0; j < c.n; ++j) {
    for (int i = 0; i < ldc; ++i) {
      const std::size_t at = i + std::size_t(j) * ldc;
      if (i >= c.m) {
        ASSERT_EQ(got[at], Problem<T>::sentinel) << "row " << i << " below m was written";
        continue;
      }
      ASSERT_TRUE(std::isfinite(double(got[at]))) << "C(" << i << ", " << j << ")";
      ASSERT_NEAR(double(got[at]), double(p.expected[at]), scale * tolerance<T>(c))
          << c.ta << c.tb << " m=" << c.m << " n=" << c.n << " k=" << c.k << " alpha=" << c.alpha
          << " beta=" << c.beta << " at (" << i << ", " << j << ") with " << what;
    }
  }
}

// The OpenCL device and the kernels of variant `text` in T's precision; `skip` says why a test
// cannot run there (no device, no fp64), `error` why the kernels did not build.
struct Variant {
  opencl::Runtime* rt = nullptr;
  gemm::Kernels* kernels = nullptr;
  std::string skip, error;
};

template <class T>
Variant variant_for(const char* text) {
  Variant v;
  v.rt = device();
  if (!v.rt) {
    v.skip = "no OpenCL device";
    return v;
  }
  const Precision precision = sizeof(T) == 8 ? Precision::f64 : Precision::f32;
  if (precision == Precision::f64 && !v.rt->device().has_fp64) {
    v.skip = "no fp64";
    return v;
  }
  v.kernels = gemm::kernels_for(*v.rt, params(text, precision), v.error);
  return v;
}

}  // namespace switchyard::gemm_test
