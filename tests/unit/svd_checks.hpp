// What a thin SVD of a tall A is held to, whichever driver made it: its singular values against
// the reference's, and with the vectors U^T U = I, V^T V = I and ||A - U S V^T|| / ||A|| to
// rounding, all in double. Shared by the xGESDD and xGESVD tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "reference_blas.hpp"

namespace switchyard::test {

// An m x n A of graded columns, its singular values well apart.
template <class T>
std::vector<T> graded_matrix(int m, int n) {
  std::vector<T> a = random_matrix<T>(std::size_t(m) * n, 5);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) a[i + std::size_t(j) * m] *= T(1 + j);
  return a;
}

template <class T>
double svd_tolerance(int m) {
  return 100 * std::sqrt(double(m)) * std::numeric_limits<T>::epsilon();
}

template <class T>
void expect_singular_values(int m, int n, const std::vector<T>& got, const std::vector<T>& want) {
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(got[i], want[i], svd_tolerance<T>(m) * want[0]) << "S(" << i << ")";
  }
}

// u: m x n (ld m), or empty; vt: n x n (ld n), or empty.
template <class T>
void expect_svd_of(const std::vector<T>& a, int m, int n, const std::vector<T>& s,
                   const std::vector<T>& u, const std::vector<T>& vt) {
  const double tolerance = svd_tolerance<T>(m);
  double orthogonality = 0, vt_orthogonality = 0;
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < n; ++k) {
      double dot = 0, vdot = 0;
      for (int i = 0; i < m && !u.empty(); ++i)
        dot += double(u[i + std::size_t(j) * m]) * u[i + std::size_t(k) * m];
      for (int i = 0; i < n && !vt.empty(); ++i)
        vdot += double(vt[j + std::size_t(i) * n]) * vt[k + std::size_t(i) * n];
      if (!u.empty()) orthogonality = std::max(orthogonality, std::fabs(dot - (j == k)));
      if (!vt.empty()) vt_orthogonality = std::max(vt_orthogonality, std::fabs(vdot - (j == k)));
    }
  }
  EXPECT_LT(orthogonality, tolerance);
  EXPECT_LT(vt_orthogonality, tolerance);
  if (u.empty() || vt.empty()) return;
  double residual = 0, norm = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double usv = 0;
      for (int k = 0; k < n; ++k)
        usv += double(u[i + std::size_t(k) * m]) * s[k] * vt[k + std::size_t(j) * n];
      const double x = a[i + std::size_t(j) * m];
      residual += (x - usv) * (x - usv);
      norm += x * x;
    }
  }
  EXPECT_LT(std::sqrt(residual / norm), tolerance);
}

}  // namespace switchyard::test
