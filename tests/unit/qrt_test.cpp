// xGEQRT and xGEMQRT through libswitchyard.so's exported names, with the xGEQRF route forced
// onto the CPU TSQR (SWITCHYARD_ROUTE_DGEQRF=cpu, SWITCHYARD_ROUTE_SGEQRF=cpu), held against
// reference LAPACK reached directly: QR and Q's orthogonality, each block's T against xLARFT on
// the same V and tau, what must stay untouched, xGEMQRT against the reference's on every side
// and transpose, argument errors and quick returns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fallback.hpp"
#include "qr/block_factors.hpp"
#include "recorded_xerbla.hpp"
#include "reference_blas.hpp"
#include "reference_lapack.hpp"

extern "C" {
// Switchyard's, linked.
void dgeqrt_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*,
             int*);
void sgeqrt_(const int*, const int*, const int*, float*, const int*, float*, const int*, float*,
             int*);
void dgemqrt_(const char*, const char*, const int*, const int*, const int*, const int*,
              const double*, const int*, const double*, const int*, double*, const int*, double*,
              int*, std::size_t, std::size_t);
void sgemqrt_(const char*, const char*, const int*, const int*, const int*, const int*,
              const float*, const int*, const float*, const int*, float*, const int*, float*, int*,
              std::size_t, std::size_t);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
}

namespace switchyard::test {
namespace {

// Set before the library's first call reads its configuration, so that every test takes the
// CPU TSQR, run alone or with the others.
const bool cpu_route_forced = setenv("SWITCHYARD_ROUTE_DGEQRF", "cpu", 1) == 0 &&
                              setenv("SWITCHYARD_ROUTE_SGEQRF", "cpu", 1) == 0;

using LarftFn = void(const char*, const char*, const int*, const int*, const void*, const int*,
                     const void*, void*, const int*, std::size_t, std::size_t);

template <class T>
struct Lapack;
template <>
struct Lapack<double> {
  static constexpr const char *geqrt_name = "DGEQRT", *gemqrt_name = "DGEMQRT";
  static constexpr auto ours_geqrt = dgeqrt_;
  static constexpr auto ours_gemqrt = dgemqrt_;
  static constexpr auto ours_geqrf = dgeqrf_;
  static GemqrtFn<double>* ref_gemqrt() { return reference_lapack<GemqrtFn<double>>("dgemqrt_"); }
  static OrmqrFn<double>* ref_ormqr() { return reference_lapack<OrmqrFn<double>>("dormqr_"); }
  static LarftFn* ref_larft() { return reference_lapack<LarftFn>("dlarft_"); }
};
template <>
struct Lapack<float> {
  static constexpr const char *geqrt_name = "SGEQRT", *gemqrt_name = "SGEMQRT";
  static constexpr auto ours_geqrt = sgeqrt_;
  static constexpr auto ours_gemqrt = sgemqrt_;
  static constexpr auto ours_geqrf = sgeqrf_;
  static GemqrtFn<float>* ref_gemqrt() { return reference_lapack<GemqrtFn<float>>("sgemqrt_"); }
  static OrmqrFn<float>* ref_ormqr() { return reference_lapack<OrmqrFn<float>>("sormqr_"); }
  static LarftFn* ref_larft() { return reference_lapack<LarftFn>("slarft_"); }
};

// One factorization by our xGEQRT, its T rows past NB and WORK poisoned.
template <class T>
struct Factored {
  int m, n, nb, lda, ldt;
  std::vector<T> a0, a, t;
};

template <class T>
Factored<T> factor(int m, int n, int nb, unsigned seed) {
  Factored<T> f{m, n, nb, m + 3, nb + 2, {}, {}, {}};
  f.a0 = random_matrix<T>(std::size_t(f.lda) * n, seed);
  f.a = f.a0;
  f.t.assign(std::size_t(f.ldt) * std::min(m, n), poison<T>());
  std::vector<T> work(std::size_t(nb) * n, poison<T>());
  int info = -1;
  Lapack<T>::ours_geqrt(&f.m, &f.n, &f.nb, f.a.data(), &f.lda, f.t.data(), &f.ldt, work.data(),
                        &info);
  EXPECT_EQ(info, 0);
  return f;
}

// C <- op(Q) C or C op(Q) by `gemqrt` with f's V and T; C is m x n (ldc = m).
template <class T>
void apply(GemqrtFn<T>* gemqrt, const Factored<T>& f, char side, char trans, int m, int n,
           std::vector<T>& c) {
  const int k = std::min(f.m, f.n);
  std::vector<T> work(std::size_t(f.nb) * std::max(m, n), poison<T>());
  int info = -1;
  gemqrt(&side, &trans, &m, &n, &k, &f.nb, f.a.data(), &f.lda, f.t.data(), &f.ldt, c.data(), &m,
         work.data(), &info, 1, 1);
  EXPECT_EQ(info, 0);
}

template <class T>
void ours_gemqrt(const char* side, const char* trans, const int* m, const int* n, const int* k,
                 const int* nb, const T* v, const int* ldv, const T* t, const int* ldt, T* c,
                 const int* ldc, T* work, int* info, std::size_t, std::size_t) {
  Lapack<T>::ours_gemqrt(side, trans, m, n, k, nb, v, ldv, t, ldt, c, ldc, work, info, 1, 1);
}

// A's V and R are xGEQRF's, T's diagonal its tau, to the bit.
template <class T>
void expect_geqrf_output(const Factored<T>& f) {
  std::vector<T> a = f.a0, tau(std::min(f.m, f.n));
  int lwork = -1, info = 0;
  T query = 0;
  Lapack<T>::ours_geqrf(&f.m, &f.n, a.data(), &f.lda, tau.data(), &query, &lwork, &info);
  lwork = int(query);
  std::vector<T> work(std::max(1, lwork));
  Lapack<T>::ours_geqrf(&f.m, &f.n, a.data(), &f.lda, tau.data(), work.data(), &lwork, &info);
  for (int j = 0; j < f.n; ++j) {
    for (int i = 0; i < f.m; ++i) {
      ASSERT_EQ(a[i + std::size_t(j) * f.lda], f.a[i + std::size_t(j) * f.lda])
          << "A(" << i << ", " << j << ")";
    }
  }
  std::vector<T> diagonal(tau.size());
  taus_of_block_factors(int(tau.size()), f.nb, f.t.data(), f.ldt, diagonal.data());
  EXPECT_EQ(diagonal, tau);
}

// Each block's T against xLARFT on the same V and tau; the rest of T still poisoned.
template <class T>
void expect_block_factors(const Factored<T>& f) {
  const int k = std::min(f.m, f.n);
  std::vector<T> tau(k);
  taus_of_block_factors(k, f.nb, f.t.data(), f.ldt, tau.data());
  for (int j0 = 0; j0 < k; j0 += f.nb) {
    int ib = std::min(f.nb, k - j0), rows = f.m - j0, ld = ib;
    std::vector<T> expected(std::size_t(ib) * ib, 0);
    Lapack<T>::ref_larft()("F", "C", &rows, &ib, &f.a[j0 + std::size_t(j0) * f.lda], &f.lda,
                           &tau[j0], expected.data(), &ld, 1, 1);
    T error = 0, scale = 0;
    for (int q = 0; q < ib; ++q) {
      for (int p = 0; p < f.ldt; ++p) {
        const T got = f.t[p + std::size_t(j0 + q) * f.ldt];
        if (p > q || p >= ib) {
          ASSERT_TRUE(std::isnan(got)) << "T(" << p << ", " << j0 + q << ") was written";
          continue;
        }
        const T want = expected[p + std::size_t(q) * ld];
        error = std::max(error, std::abs(got - want));
        scale = std::max(scale, std::abs(want));
      }
    }
    // Both sum the same m-long products, in different orders.
    EXPECT_LE(error, scale * T(4) * std::sqrt(T(f.m)) * eps<T>()) << "block at " << j0;
  }
}

// ||A - Q R|| / (||A|| m eps) and ||Q^T Q - I|| / (m eps), with Q's first n columns made by
// `gemqrt` from the identity.
template <class T>
void expect_qr(const Factored<T>& f, GemqrtFn<T>* gemqrt) {
  const int m = f.m, n = f.n;
  std::vector<T> q(std::size_t(m) * n, 0);
  for (int j = 0; j < n; ++j) q[j + std::size_t(j) * m] = 1;
  apply(gemqrt, f, 'L', 'N', m, n, q);
  expect_qr_residuals(m, n, f.a0, f.a, f.lda, q);
}

// Our xGEMQRT, the reference's, and the reference's xORMQR with tau from T's diagonal (what a
// routed xGEMQRT runs) agree on a random C, on every side and transpose.
template <class T>
void expect_same_products(const Factored<T>& f) {
  const int k = std::min(f.m, f.n);
  std::vector<T> tau(k);
  taus_of_block_factors(k, f.nb, f.t.data(), f.ldt, tau.data());
  for (char side : {'L', 'R'}) {
    for (char trans : {'N', 'T'}) {
      const int rows = side == 'L' ? f.m : 3, cols = side == 'L' ? 3 : f.m;
      const std::vector<T> c0 = random_matrix<T>(std::size_t(rows) * cols, 7);
      std::vector<T> ours = c0, theirs = c0, by_ormqr = c0;
      apply<T>(ours_gemqrt<T>, f, side, trans, rows, cols, ours);
      apply(Lapack<T>::ref_gemqrt(), f, side, trans, rows, cols, theirs);
      int lwork = 64 * std::max(rows, cols), info = -1;
      std::vector<T> work(lwork);
      Lapack<T>::ref_ormqr()(&side, &trans, &rows, &cols, &k, f.a.data(), &f.lda, tau.data(),
                             by_ormqr.data(), &rows, work.data(), &lwork, &info, 1, 1);
      EXPECT_EQ(info, 0);
      const T bound = max_abs(c0) * T(f.m) * eps<T>();
      T ours_error = 0, ormqr_error = 0;
      for (std::size_t i = 0; i < c0.size(); ++i) {
        ours_error = std::max(ours_error, std::abs(ours[i] - theirs[i]));
        ormqr_error = std::max(ormqr_error, std::abs(by_ormqr[i] - theirs[i]));
      }
      EXPECT_LE(ours_error, bound) << side << trans;
      EXPECT_LE(ormqr_error, bound) << side << trans;
    }
  }
}

template <class T>
void check_shape(int n, int nb) {
  SCOPED_TRACE("20000 x " + std::to_string(n) + ", NB " + std::to_string(nb));
  const Factored<T> f = factor<T>(20000, n, nb, 11 + n + nb);
  expect_geqrf_output(f);
  expect_block_factors(f);
  expect_qr(f, Lapack<T>::ref_gemqrt());
  expect_qr<T>(f, ours_gemqrt<T>);
  expect_same_products(f);
}

TEST(Qrt, DoubleTallSkinny) {
  ASSERT_TRUE(cpu_route_forced);
  for (int n : {1, 7, 32, 64}) {
    for (int nb : {1, 5, 32, n}) {
      if (nb <= n) check_shape<double>(n, nb);
    }
  }
}

TEST(Qrt, FloatTallSkinny) {
  ASSERT_TRUE(cpu_route_forced);
  for (int n : {1, 7, 32}) {
    for (int nb : {1, 5, n}) {
      if (nb <= n) check_shape<float>(n, nb);
    }
  }
}

// A reflector that is the identity (tau = 0) gets a T column of zeros, as xLARFT gives it, and
// the others theirs: form_block_factors on its own, on V and tau made up, some tau zero.
TEST(BlockFactors, ZeroTau) {
  int m = 300, n = 12, nb = 5, lda = m, ldt = nb + 1;
  std::vector<double> a = random_matrix<double>(std::size_t(lda) * n, 5);
  std::vector<double> tau = random_matrix<double>(n, 6);
  for (int j : {0, 3, 6, 11}) tau[j] = 0;  // the first of a block, inside one, the last
  Factored<double> f{m, n, nb, lda, ldt, a, a, {}};
  f.t.assign(std::size_t(ldt) * n, poison<double>());
  form_block_factors<double, int>(reference_syrk<double>(), m, n, nb, a.data(), lda, tau.data(),
                                  f.t.data(), ldt);
  for (int j : {0, 3, 6, 11}) {
    for (int p = 0; p <= j % nb; ++p) EXPECT_EQ(f.t[p + std::size_t(j) * ldt], 0.0) << j;
  }
  expect_block_factors(f);
}

// Blocks of one reflector (NB = 1, xGEQR's reference block size) take T = tau without a Gram
// product: the xSYRK given is never called, and T's diagonal is tau.
int syrk_calls = 0;
void counting_syrk(const char*, const char*, const int*, const int*, const double*, const double*,
                   const int*, const double*, double*, const int*, std::size_t, std::size_t) {
  ++syrk_calls;
}

TEST(BlockFactors, OneReflectorBlocksNeedNoGram) {
  int m = 300, n = 6, lda = m, ldt = 1;
  const std::vector<double> a = random_matrix<double>(std::size_t(lda) * n, 8);
  const std::vector<double> tau = random_matrix<double>(n, 9);
  std::vector<double> t(std::size_t(ldt) * n, poison<double>());
  form_block_factors<double, int>(counting_syrk, m, n, 1, a.data(), lda, tau.data(), t.data(), ldt);
  EXPECT_EQ(syrk_calls, 0);
  EXPECT_EQ(t, tau);
}

TEST(Qrt, ArgumentErrors) {
  std::vector<double> a(64, 1.0), t(64, 7.0), work(64, 0.0), c(64, 5.0);
  const auto geqrt = [&](int m, int n, int nb, int lda, int ldt) {
    handled = {};
    int info = 0;
    dgeqrt_(&m, &n, &nb, a.data(), &lda, t.data(), &ldt, work.data(), &info);
    EXPECT_EQ(handled.calls, 1);
    EXPECT_EQ(handled.name, "DGEQRT");
    EXPECT_EQ(info, -handled.info);
    return handled.info;
  };
  EXPECT_EQ(geqrt(-1, 2, 1, 4, 1), 1);
  EXPECT_EQ(geqrt(4, -1, 1, 4, 1), 2);
  EXPECT_EQ(geqrt(4, 2, 0, 4, 1), 3);
  EXPECT_EQ(geqrt(4, 2, 3, 4, 3), 3);  // NB > min(M, N)
  EXPECT_EQ(geqrt(4, 2, 2, 3, 2), 5);
  EXPECT_EQ(geqrt(4, 2, 2, 4, 1), 7);
  EXPECT_EQ(geqrt(0, 2, 3, 1, 2), 7);  // NB past an empty A is allowed, LDT < NB is not
  const auto gemqrt = [&](char side, char trans, int m, int n, int k, int nb, int ldv, int ldt,
                          int ldc) {
    handled = {};
    int info = 0;
    dgemqrt_(&side, &trans, &m, &n, &k, &nb, a.data(), &ldv, t.data(), &ldt, c.data(), &ldc,
             work.data(), &info, 1, 1);
    EXPECT_EQ(handled.calls, 1);
    EXPECT_EQ(handled.name, "DGEMQRT");
    EXPECT_EQ(info, -handled.info);
    return handled.info;
  };
  EXPECT_EQ(gemqrt('X', 'N', 4, 2, 2, 1, 4, 1, 4), 1);
  EXPECT_EQ(gemqrt('L', 'C', 4, 2, 2, 1, 4, 1, 4), 2);  // no 'C' for real Q
  EXPECT_EQ(gemqrt('L', 'N', -1, 2, 2, 1, 4, 1, 4), 3);
  EXPECT_EQ(gemqrt('L', 'N', 4, -1, 2, 1, 4, 1, 4), 4);
  EXPECT_EQ(gemqrt('L', 'N', 4, 2, 5, 1, 4, 1, 4), 5);  // K > M from the left
  EXPECT_EQ(gemqrt('R', 'N', 4, 2, 3, 1, 4, 1, 4), 5);  // K > N from the right
  EXPECT_EQ(gemqrt('L', 'N', 4, 2, 2, 3, 4, 3, 4), 6);  // NB > K
  EXPECT_EQ(gemqrt('L', 'N', 4, 2, 2, 0, 4, 1, 4), 6);
  EXPECT_EQ(gemqrt('L', 'N', 4, 2, 2, 1, 3, 1, 4), 8);
  EXPECT_EQ(gemqrt('R', 'T', 4, 2, 2, 1, 1, 1, 4), 8);  // LDV < N from the right
  EXPECT_EQ(gemqrt('L', 'T', 4, 2, 2, 2, 4, 1, 4), 10);
  EXPECT_EQ(gemqrt('l', 't', 4, 2, 2, 1, 4, 1, 3), 12);
  // Nothing was written.
  for (double x : t) EXPECT_EQ(x, 7.0);
  for (double x : c) EXPECT_EQ(x, 5.0);
}

// Over a grid of small arguments, valid and not, our checks call XERBLA exactly when the
// reference's do, with the same number.
TEST(Qrt, ArgumentChecksMatchReference) {
  using Geqrt = GeqrtFn<double>;
  Geqrt* ref_geqrt = reference_lapack<Geqrt>("dgeqrt_");
  GemqrtFn<double>* ref_gemqrt = Lapack<double>::ref_gemqrt();
  std::vector<double> a(64), t(64), work(64), c(64);
  const auto outcome = [&](auto&& call) {
    a = random_matrix<double>(64, 1), t = a, c = a;
    handled = {};
    int info = 0;
    call(&info);
    return std::pair{handled.info, info};
  };
  int cases = 0;
  for (int m = -1; m <= 3; ++m) {
    for (int n = -1; n <= 3; ++n) {
      for (int nb = 0; nb <= 4; ++nb) {
        for (int lda = 0; lda <= 4; ++lda) {
          for (int ldt = 0; ldt <= 4; ++ldt) {
            const auto args = [&](Geqrt* geqrt) {
              return [&, geqrt](int* info) {
                geqrt(&m, &n, &nb, a.data(), &lda, t.data(), &ldt, work.data(), info);
              };
            };
            ASSERT_EQ(outcome(args(dgeqrt_)), outcome(args(ref_geqrt)))
                << m << " " << n << " " << nb << " " << lda << " " << ldt;
            ++cases;
          }
        }
      }
    }
  }
  for (char side : {'L', 'r', 'X'}) {
    for (char trans : {'N', 't', 'C'}) {
      for (int m = -1; m <= 2; ++m) {
        for (int n = -1; n <= 2; ++n) {
          for (int k = -1; k <= 3; ++k) {
            for (int nb = 0; nb <= 3; ++nb) {
              for (int ldv : {0, 2}) {
                for (int ldt : {0, 2}) {
                  for (int ldc : {0, 2}) {
                    const auto args = [&](GemqrtFn<double>* gemqrt) {
                      return [&, gemqrt](int* info) {
                        gemqrt(&side, &trans, &m, &n, &k, &nb, a.data(), &ldv, t.data(), &ldt,
                               c.data(), &ldc, work.data(), info, 1, 1);
                      };
                    };
                    ASSERT_EQ(outcome(args(ours_gemqrt<double>)), outcome(args(ref_gemqrt)))
                        << side << trans << " " << m << " " << n << " " << k << " " << nb << " "
                        << ldv << " " << ldt << " " << ldc;
                    ++cases;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 5000);
}

TEST(Qrt, QuickReturns) {
  std::vector<double> a(64, 1.0), t(64, 7.0), work(64, 0.0), c(64, 5.0);
  handled = {};
  for (auto [m, n] : {std::pair{0, 3}, std::pair{3, 0}}) {
    int nb = 1, lda = std::max(1, m), ldt = 1, info = -1;
    dgeqrt_(&m, &n, &nb, a.data(), &lda, t.data(), &ldt, work.data(), &info);
    EXPECT_EQ(info, 0);
  }
  for (auto [m, n, k] : {std::tuple{0, 3, 0}, std::tuple{3, 0, 2}, std::tuple{3, 3, 0}}) {
    int nb = std::max(1, k), ldv = 3, ldt = nb, ldc = std::max(1, m), info = -1;
    dgemqrt_("L", "T", &m, &n, &k, &nb, a.data(), &ldv, t.data(), &ldt, c.data(), &ldc, work.data(),
             &info, 1, 1);
    EXPECT_EQ(info, 0);
  }
  EXPECT_EQ(handled.calls, 0);
  for (double x : a) EXPECT_EQ(x, 1.0);
  for (double x : t) EXPECT_EQ(x, 7.0);
  for (double x : c) EXPECT_EQ(x, 5.0);
}

}  // namespace
}  // namespace switchyard::test
