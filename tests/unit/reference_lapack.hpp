// Reference LAPACK reached directly, past the names of Switchyard's that a test program linked
// with the library resolves to; the values the tests poison outputs with and bound errors by; and
// LAPACK's measures of a QR.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace switchyard::test {

// Reference LAPACK's routine `name` ("dgeqrt_"), as a function of type Fn; a missing one aborts.
template <class Fn>
Fn* reference_lapack(const char* name) {
  static void* const lapack = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
  void* s = lapack ? dlsym(lapack, name) : nullptr;
  if (!s) std::abort();
  return reinterpret_cast<Fn*>(s);
}

template <class T>
constexpr T eps() {
  return std::numeric_limits<T>::epsilon();
}

// What an output is filled with before a call, so that an element left unwritten shows.
template <class T>
T poison() {
  return std::numeric_limits<T>::quiet_NaN();
}

template <class T>
T max_abs(const std::vector<T>& v) {
  T big = 0;
  for (T x : v) big = std::max(big, std::abs(x));
  return big;
}

// A QR held to LAPACK's test measures: ||A - Q R|| / (||A|| m eps) and ||Q^T Q - I|| / (m eps)
// (largest entries) at most 1, for A0 (m x n, lda), R above the diagonal of A (lda) and Q's
// first n columns (ld m).
template <class T>
void expect_qr_residuals(int m, int n, const std::vector<T>& a0, const std::vector<T>& a, int lda,
                         const std::vector<T>& q) {
  T residual = 0, a_norm = 0, orthogonality = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      T qr = 0;
      for (int l = 0; l <= j; ++l) qr += q[i + std::size_t(l) * m] * a[l + std::size_t(j) * lda];
      residual = std::max(residual, std::abs(a0[i + std::size_t(j) * lda] - qr));
      a_norm = std::max(a_norm, std::abs(a0[i + std::size_t(j) * lda]));
    }
    for (int l = 0; l <= j; ++l) {
      T dot = 0;
      for (int i = 0; i < m; ++i) dot += q[i + std::size_t(l) * m] * q[i + std::size_t(j) * m];
      orthogonality = std::max(orthogonality, std::abs(dot - (l == j ? T(1) : T(0))));
    }
  }
  EXPECT_LE(residual / (a_norm * T(m) * eps<T>()), T(1));
  EXPECT_LE(orthogonality / (T(m) * eps<T>()), T(1));
}

}  // namespace switchyard::test
