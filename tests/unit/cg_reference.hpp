// A straightforward reference for the CG tests: a symmetric matrix as rows
// of (column, value), its product, a textbook preconditioned CG, and random
// SPD banded matrices to feed both it and the library.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "cg/matrix.hpp"

namespace switchyard::cg::testing {

struct RefMatrix {
  int n = 0;
  std::vector<std::vector<std::pair<int, double>>> rows;  // every entry, columns ascending
};

inline std::vector<double> ref_multiply(const RefMatrix& a, const std::vector<double>& x) {
  std::vector<double> y(std::size_t(a.n), 0.0);
  for (int i = 0; i < a.n; ++i) {
    for (const auto& [j, v] : a.rows[std::size_t(i)]) y[std::size_t(i)] += v * x[std::size_t(j)];
  }
  return y;
}

inline double ref_norm(const std::vector<double>& v) {
  double s = 0.0;
  for (double e : v) s += e * e;
  return std::sqrt(s);
}

inline double ref_diagonal(const RefMatrix& a, int i) {
  for (const auto& [j, v] : a.rows[std::size_t(i)]) {
    if (j == i) return v;
  }
  return 0.0;
}

// Jacobi-preconditioned CG to ||r|| / ||b|| <= tol, from x = 0; returns
// the iterations.
inline int ref_cg(const RefMatrix& a, const std::vector<double>& b, std::vector<double>& x,
                  double tol, int max_iterations) {
  const std::size_t n = std::size_t(a.n);
  x.assign(n, 0.0);
  std::vector<double> r = b, z(n), p(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = r[i] / ref_diagonal(a, int(i));
  p = z;
  double rz = 0.0;
  for (std::size_t i = 0; i < n; ++i) rz += r[i] * z[i];
  const double bnorm = ref_norm(b);
  for (int k = 1; k <= max_iterations; ++k) {
    const std::vector<double> q = ref_multiply(a, p);
    double pq = 0.0;
    for (std::size_t i = 0; i < n; ++i) pq += p[i] * q[i];
    const double alpha = rz / pq;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      z[i] = r[i] / ref_diagonal(a, int(i));
    }
    if (ref_norm(r) / bnorm <= tol) return k;
    double rz_new = 0.0;
    for (std::size_t i = 0; i < n; ++i) rz_new += r[i] * z[i];
    for (std::size_t i = 0; i < n; ++i) p[i] = z[i] + rz_new / rz * p[i];
    rz = rz_new;
  }
  return max_iterations + 1;
}

// A random symmetric, strictly diagonally dominant (so SPD) matrix whose
// entries lie on `offsets` below and above the diagonal, each present with
// probability `density`.
inline RefMatrix random_banded_spd(int n, const std::vector<int>& offsets, double density,
                                   unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0), coin(0.0, 1.0);
  std::vector<std::vector<std::pair<int, double>>> lower(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int m : offsets) {
      if (i - m >= 0 && coin(rng) < density) lower[std::size_t(i)].push_back({i - m, value(rng)});
    }
  }
  RefMatrix a;
  a.n = n;
  a.rows.assign(std::size_t(n), {});
  std::vector<double> off_sum(std::size_t(n), 0.0);
  for (int i = 0; i < n; ++i) {
    for (const auto& [j, v] : lower[std::size_t(i)]) {
      a.rows[std::size_t(i)].push_back({j, v});
      a.rows[std::size_t(j)].push_back({i, v});
      off_sum[std::size_t(i)] += std::abs(v);
      off_sum[std::size_t(j)] += std::abs(v);
    }
  }
  for (int i = 0; i < n; ++i) {
    auto& row = a.rows[std::size_t(i)];
    row.push_back({i, off_sum[std::size_t(i)] + 0.5 + coin(rng)});
    std::sort(row.begin(), row.end());
  }
  return a;
}

template <class V>
LowerCsr<V> lower_of(const RefMatrix& a) {
  LowerCsr<V> l;
  l.n = a.n;
  l.row_ptr.push_back(0);
  for (int i = 0; i < a.n; ++i) {
    for (const auto& [j, v] : a.rows[std::size_t(i)]) {
      if (j <= i) {
        l.col.push_back(j);
        l.val.push_back(V(v));
      }
    }
    l.row_ptr.push_back(Index(l.col.size()));
  }
  return l;
}

template <class V>
RefMatrix ref_of(const LowerCsr<V>& l) {
  RefMatrix a;
  a.n = l.n;
  a.rows.assign(std::size_t(l.n), {});
  for (int i = 0; i < l.n; ++i) {
    for (Index k = l.row_ptr[std::size_t(i)]; k < l.row_ptr[std::size_t(i) + 1]; ++k) {
      const int j = l.col[std::size_t(k)];
      const double v = double(l.val[std::size_t(k)]);
      a.rows[std::size_t(i)].push_back({j, v});
      if (j != i) a.rows[std::size_t(j)].push_back({i, v});
    }
  }
  for (auto& row : a.rows) std::sort(row.begin(), row.end());
  return a;
}

}  // namespace switchyard::cg::testing
