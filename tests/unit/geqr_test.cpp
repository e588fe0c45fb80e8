// xGEQR, xGEMQR and xGETSLS through libswitchyard.so's exported names, held against reference
// LAPACK reached directly. xGEQRF and xORMQR are forced onto the CPU routes, so every xGEQR and
// xGEMQR here runs routed; xGELS is forced onto the GPU, where xGETSLS runs whole when there is
// a CUDA device (on a machine without one the fallback's xGETSLS runs, its xGEQR and xGEMQR
// calls ours). Checked: T's header as the reference writes it (T(2) = M for the one-block-column
// layout where the reference would have used xLATSQR's), A as xGEQRF leaves it, nothing written
// past the block factors, QR and Q's orthogonality with Q made by our xGEMQR and by the
// reference's, both agreeing on every side and transpose, xGETSLS's solutions, INFO and WORK(1)
// against the reference's, and argument errors and workspace queries over grids of arguments.
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
#include "recorded_xerbla.hpp"
#include "reference_blas.hpp"
#include "reference_lapack.hpp"

extern "C" {
// Switchyard's, linked.
void dgeqr_(const int*, const int*, double*, const int*, double*, const int*, double*, const int*,
            int*);
void sgeqr_(const int*, const int*, float*, const int*, float*, const int*, float*, const int*,
            int*);
void dgemqr_(const char*, const char*, const int*, const int*, const int*, const double*,
             const int*, const double*, const int*, double*, const int*, double*, const int*, int*,
             std::size_t, std::size_t);
void sgemqr_(const char*, const char*, const int*, const int*, const int*, const float*, const int*,
             const float*, const int*, float*, const int*, float*, const int*, int*, std::size_t,
             std::size_t);
void dgetsls_(const char*, const int*, const int*, const int*, double*, const int*, double*,
              const int*, double*, const int*, int*, std::size_t);
void sgetsls_(const char*, const int*, const int*, const int*, float*, const int*, float*,
              const int*, float*, const int*, int*, std::size_t);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
}

namespace switchyard::test {
namespace {

// Set before the library's first call reads its configuration.
const bool routes_forced = setenv("SWITCHYARD_ROUTE_DGEQRF", "cpu", 1) == 0 &&
                           setenv("SWITCHYARD_ROUTE_SGEQRF", "cpu", 1) == 0 &&
                           setenv("SWITCHYARD_ROUTE_DORMQR", "cpu", 1) == 0 &&
                           setenv("SWITCHYARD_ROUTE_SORMQR", "cpu", 1) == 0 &&
                           setenv("SWITCHYARD_ROUTE_DGELS", "gpu", 1) == 0 &&
                           setenv("SWITCHYARD_ROUTE_SGELS", "gpu", 1) == 0;

template <class T>
struct Lapack;
template <>
struct Lapack<double> {
  static constexpr auto ours_geqr = dgeqr_;
  static constexpr auto ours_gemqr = dgemqr_;
  static constexpr auto ours_getsls = dgetsls_;
  static constexpr auto ours_geqrf = dgeqrf_;
  static GeqrFn<double>* ref_geqr() { return reference_lapack<GeqrFn<double>>("dgeqr_"); }
  static GemqrFn<double>* ref_gemqr() { return reference_lapack<GemqrFn<double>>("dgemqr_"); }
  static GelsFn<double>* ref_getsls() { return reference_lapack<GelsFn<double>>("dgetsls_"); }
};
template <>
struct Lapack<float> {
  static constexpr auto ours_geqr = sgeqr_;
  static constexpr auto ours_gemqr = sgemqr_;
  static constexpr auto ours_getsls = sgetsls_;
  static constexpr auto ours_geqrf = sgeqrf_;
  static GeqrFn<float>* ref_geqr() { return reference_lapack<GeqrFn<float>>("sgeqr_"); }
  static GemqrFn<float>* ref_gemqr() { return reference_lapack<GemqrFn<float>>("sgemqr_"); }
  static GelsFn<float>* ref_getsls() { return reference_lapack<GelsFn<float>>("sgetsls_"); }
};

// TSIZE and LWORK as a program sizes them: the reference's workspace query, -1 (the optimum) or
// -2 (the minimum).
template <class T>
std::pair<int, int> sizes(GeqrFn<T>* geqr, int m, int n, int kind) {
  std::vector<T> a(std::size_t(m) * n);
  T t[5] = {}, work = 0;
  int info = -1;
  geqr(&m, &n, a.data(), &m, t, &kind, &work, &kind, &info);
  EXPECT_EQ(info, 0);
  return {int(t[0]), int(work)};
}

// One factorization by our xGEQR (A with lda = m), and the reference's of the same A; T and WORK
// poisoned, T four elements longer than TSIZE.
template <class T>
struct Factored {
  int m, n, tsize, lwork;
  std::vector<T> a0, a, t, work, ref_t;
};

template <class T>
Factored<T> factor(int m, int n, int kind, unsigned seed) {
  const auto [tsize, lwork] = sizes<T>(Lapack<T>::ref_geqr(), m, n, kind);
  Factored<T> f{m, n, tsize, lwork, random_matrix<T>(std::size_t(m) * n, seed), {}, {}, {}, {}};
  f.a = f.a0;
  f.t.assign(std::size_t(tsize) + 4, poison<T>());
  f.work.assign(std::size_t(std::max(1, lwork)), poison<T>());
  int info = -1;
  Lapack<T>::ours_geqr(&f.m, &f.n, f.a.data(), &f.m, f.t.data(), &f.tsize, f.work.data(), &f.lwork,
                       &info);
  EXPECT_EQ(info, 0);
  std::vector<T> ref_a = f.a0, ref_work(f.work.size());
  f.ref_t.assign(f.t.size(), poison<T>());
  Lapack<T>::ref_geqr()(&f.m, &f.n, ref_a.data(), &f.m, f.ref_t.data(), &f.tsize, ref_work.data(),
                        &f.lwork, &info);
  EXPECT_EQ(info, 0);
  return f;
}

// The header as the reference writes it, A as our xGEQRF leaves it, WORK(1) the reference's,
// and nothing of T written but the header's first three elements and the block factors.
template <class T>
void expect_layout(const Factored<T>& f) {
  const int ref_mb = int(f.ref_t[1]), nb = int(f.t[2]);
  const bool one_block = f.m <= f.n || ref_mb <= f.n || ref_mb >= f.m;
  EXPECT_EQ(f.t[0], f.ref_t[0]);
  EXPECT_EQ(f.t[1], one_block ? f.ref_t[1] : T(f.m));
  EXPECT_EQ(f.t[2], f.ref_t[2]);
  EXPECT_EQ(f.work[0], T(std::max(1, nb * f.n)));
  EXPECT_TRUE(std::isnan(f.t[3]) && std::isnan(f.t[4]));
  for (std::size_t i = 5 + std::size_t(nb) * f.n; i < f.t.size(); ++i) {
    ASSERT_TRUE(std::isnan(f.t[i])) << "T(" << i + 1 << ") was written";
  }
  std::vector<T> a = f.a0, tau(std::min(f.m, f.n)), work(std::size_t(64) * f.n);
  int lwork = int(work.size()), info = -1;
  Lapack<T>::ours_geqrf(&f.m, &f.n, a.data(), &f.m, tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(a, f.a) << "A is not xGEQRF's";
}

// C <- op(Q) C or C op(Q) by `gemqr` with f's factors; C is rows x cols (ldc = rows).
template <class T>
void apply(GemqrFn<T>* gemqr, const Factored<T>& f, char side, char trans, int rows, int cols,
           std::vector<T>& c) {
  const int k = std::min(f.m, f.n);
  int lwork = -1, info = -1;
  T query = 0;
  gemqr(&side, &trans, &rows, &cols, &k, f.a.data(), &f.m, f.t.data(), &f.tsize, c.data(), &rows,
        &query, &lwork, &info, 1, 1);
  ASSERT_EQ(info, 0);
  // The reference's xGEMQRT from the right needs rows x NB, more than its query answers.
  lwork = std::max(int(query), rows * std::max(1, int(f.t[2])));
  std::vector<T> work(std::size_t(lwork), poison<T>());
  gemqr(&side, &trans, &rows, &cols, &k, f.a.data(), &f.m, f.t.data(), &f.tsize, c.data(), &rows,
        work.data(), &lwork, &info, 1, 1);
  EXPECT_EQ(info, 0);
  EXPECT_EQ(work[0], query) << "WORK(1) after " << side << trans;
}

template <class T>
void ours_gemqr(const char* side, const char* trans, const int* m, const int* n, const int* k,
                const T* a, const int* lda, const T* t, const int* tsize, T* c, const int* ldc,
                T* work, const int* lwork, int* info, std::size_t, std::size_t) {
  Lapack<T>::ours_gemqr(side, trans, m, n, k, a, lda, t, tsize, c, ldc, work, lwork, info, 1, 1);
}

// ||A - Q R|| / (||A|| m eps) and ||Q^T Q - I|| / (m eps), Q's first n columns made by `gemqr`.
template <class T>
void expect_qr(const Factored<T>& f, GemqrFn<T>* gemqr) {
  const int m = f.m, n = f.n;
  std::vector<T> q(std::size_t(m) * n, 0);
  for (int j = 0; j < n; ++j) q[j + std::size_t(j) * m] = 1;
  apply(gemqr, f, 'L', 'N', m, n, q);
  expect_qr_residuals(m, n, f.a0, f.a, f.m, q);
}

// Our xGEMQR and the reference's agree on our factors, on every side and transpose.
template <class T>
void expect_same_products(const Factored<T>& f) {
  for (char side : {'L', 'R'}) {
    for (char trans : {'N', 'T'}) {
      const int rows = side == 'L' ? f.m : 3, cols = side == 'L' ? 3 : f.m;
      const std::vector<T> c0 = random_matrix<T>(std::size_t(rows) * cols, 7);
      std::vector<T> ours = c0, theirs = c0;
      apply<T>(ours_gemqr<T>, f, side, trans, rows, cols, ours);
      apply(Lapack<T>::ref_gemqr(), f, side, trans, rows, cols, theirs);
      T error = 0;
      for (std::size_t i = 0; i < c0.size(); ++i)
        error = std::max(error, std::abs(ours[i] - theirs[i]));
      EXPECT_LE(error, max_abs(c0) * T(f.m) * eps<T>()) << side << trans;
    }
  }
}

template <class T>
void check_shape(int m, int n, int kind) {
  SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n) + ", sizes of query " +
               std::to_string(kind));
  const Factored<T> f = factor<T>(m, n, kind, 11 + n);
  expect_layout(f);
  expect_qr(f, Lapack<T>::ref_gemqr());
  expect_qr<T>(f, ours_gemqr<T>);
  expect_same_products(f);
}

// Reference ILAENV gives MB = M below 8192 rows, else MB = 32768 / N, xLATSQR's layout: the
// shapes cover both, and the minimal sizes (NB = 1, MB = M).
TEST(Geqr, DoubleTallSkinny) {
  ASSERT_TRUE(routes_forced);
  for (int n : {1, 7, 32, 64}) check_shape<double>(20000, n, -1);
  check_shape<double>(20000, 32, -2);
  check_shape<double>(5000, 16, -1);
}

TEST(Geqr, FloatTallSkinny) {
  ASSERT_TRUE(routes_forced);
  for (int n : {1, 7, 32}) check_shape<float>(20000, n, -1);
  check_shape<float>(20000, 7, -2);
}

// xGETSLS: the solution and the residual rows of B, INFO and WORK(1) against the reference's,
// both transposes (TRANS = 'T' asks for the minimum-norm solution of A^T X = B).
template <class T>
void check_least_squares(char trans, int m, int n, int nrhs) {
  SCOPED_TRACE(std::string(1, trans) + " " + std::to_string(m) + " x " + std::to_string(n));
  const std::vector<T> a0 = random_matrix<T>(std::size_t(m) * n, 3 + n);
  const int ldb = std::max(m, n);
  const std::vector<T> b0 = random_matrix<T>(std::size_t(ldb) * nrhs, 4 + n);
  const auto solve = [&](GelsFn<T>* getsls, std::vector<T>& b, T* work1) {
    std::vector<T> a = a0;
    int lwork = -1, info = -1;
    T query = 0;
    getsls(&trans, &m, &n, &nrhs, a.data(), &m, b.data(), &ldb, &query, &lwork, &info, 1);
    EXPECT_EQ(info, 0);
    lwork = int(query);
    std::vector<T> work(std::size_t(lwork), poison<T>());
    getsls(&trans, &m, &n, &nrhs, a.data(), &m, b.data(), &ldb, work.data(), &lwork, &info, 1);
    EXPECT_EQ(info, 0);
    *work1 = work[0];
  };
  std::vector<T> ours = b0, theirs = b0;
  T our_work1 = 0, their_work1 = 0;
  solve(
      [](const char* tr, const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b,
         const int* ldb, T* work, const int* lwork, int* info, std::size_t) {
        Lapack<T>::ours_getsls(tr, m, n, nrhs, a, lda, b, ldb, work, lwork, info, 1);
      },
      ours, &our_work1);
  solve(Lapack<T>::ref_getsls(), theirs, &their_work1);
  EXPECT_EQ(our_work1, their_work1);
  T error = 0;
  for (std::size_t i = 0; i < ours.size(); ++i)
    error = std::max(error, std::abs(ours[i] - theirs[i]));
  // A random tall A is well conditioned: both solve to a few eps times the sizes.
  EXPECT_LE(error, max_abs(theirs) * T(m) * eps<T>());
}

TEST(Getsls, Double) {
  ASSERT_TRUE(routes_forced);
  for (int n : {1, 7, 32}) check_least_squares<double>('N', 20000, n, 2);
  check_least_squares<double>('T', 20000, 7, 2);
}

TEST(Getsls, Float) {
  ASSERT_TRUE(routes_forced);
  check_least_squares<float>('N', 20000, 7, 1);
  check_least_squares<float>('T', 20000, 7, 1);
}

// A zero column makes R singular: INFO is the reference xTRTRS's, B left as its solve leaves it.
TEST(Getsls, SingularR) {
  int m = 20000, n = 8, nrhs = 1, ldb = m, info = -1;
  std::vector<double> a = random_matrix<double>(std::size_t(m) * n, 9);
  std::fill_n(a.begin() + std::size_t(5) * m, m, 0.0);
  std::vector<double> b = random_matrix<double>(std::size_t(m), 10);
  std::vector<double> work(4096);
  int lwork = int(work.size());
  dgetsls_("N", &m, &n, &nrhs, a.data(), &m, b.data(), &ldb, work.data(), &lwork, &info, 1);
  EXPECT_EQ(info, 6);
}

// Over grids of small arguments, valid and not, ours call XERBLA exactly when the reference's
// do, with the same number, and answer workspace queries with the same sizes.
TEST(Geqr, ArgumentChecksMatchReference) {
  // T as an xGEQR leaves it for a 2-row A (MB = 2) with block size NB, before its block factors.
  const auto outcome = [](auto&& call, double nb = 1) {
    std::vector<double> a = random_matrix<double>(64, 1), t(64, 0.0), work(64, 0.0);
    t[1] = 2, t[2] = nb;
    handled = {};
    int info = 0;
    call(a.data(), t.data(), work.data(), &info);
    // The sizes written, where a valid call writes them.
    return std::tuple{handled.info, info, info == 0 ? t[0] : 0, info == 0 ? work[0] : 0};
  };
  int cases = 0;
  for (int m = -1; m <= 3; ++m) {
    for (int n = -1; n <= 3; ++n) {
      for (int lda = 0; lda <= 4; ++lda) {
        for (int tsize : {-2, -1, 0, 4, 5, 6, 8, 40}) {
          for (int lwork : {-2, -1, 0, 1, 2, 4, 40}) {
            const auto args = [&](GeqrFn<double>* geqr) {
              return [&, geqr](double* a, double* t, double* work, int* info) {
                geqr(&m, &n, a, &lda, t, &tsize, work, &lwork, info);
              };
            };
            ASSERT_EQ(outcome(args(dgeqr_)), outcome(args(Lapack<double>::ref_geqr())))
                << m << " " << n << " " << lda << " " << tsize << " " << lwork;
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
            for (int lda : {0, 2}) {
              for (int tsize : {4, 5}) {
                for (int ldc : {0, 2}) {
                  for (int lwork : {-1, 0, 1, 8}) {
                    for (double nb : {1.0, 3.0}) {  // 3: more than K, which xGEMQRT refuses
                      const auto args = [&](GemqrFn<double>* gemqr) {
                        return [&, gemqr](double* a, double* t, double* work, int* info) {
                          std::vector<double> c(64, 1.0);
                          gemqr(&side, &trans, &m, &n, &k, a, &lda, t, &tsize, c.data(), &ldc, work,
                                &lwork, info, 1, 1);
                        };
                      };
                      ASSERT_EQ(outcome(args(ours_gemqr<double>), nb),
                                outcome(args(Lapack<double>::ref_gemqr()), nb))
                          << side << trans << " " << m << " " << n << " " << k << " " << lda << " "
                          << tsize << " " << ldc << " " << lwork << " NB " << nb;
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
  }
  for (char trans : {'N', 't', 'X'}) {
    for (int m = -1; m <= 3; ++m) {
      for (int n = -1; n <= 3; ++n) {
        for (int nrhs = -1; nrhs <= 2; ++nrhs) {
          for (int lda : {0, 1, 3}) {
            for (int ldb : {0, 1, 3}) {
              for (int lwork : {-2, -1, 0, 1, 40}) {
                const auto args = [&](GelsFn<double>* getsls) {
                  return [&, getsls](double* a, double*, double* work, int* info) {
                    std::vector<double> b(64, 1.0);
                    getsls(&trans, &m, &n, &nrhs, a, &lda, b.data(), &ldb, work, &lwork, info, 1);
                  };
                };
                const auto ours = [](const char* tr, const int* m, const int* n, const int* nrhs,
                                     double* a, const int* lda, double* b, const int* ldb,
                                     double* work, const int* lwork, int* info, std::size_t) {
                  dgetsls_(tr, m, n, nrhs, a, lda, b, ldb, work, lwork, info, 1);
                };
                ASSERT_EQ(outcome(args(ours)), outcome(args(Lapack<double>::ref_getsls())))
                    << trans << " " << m << " " << n << " " << nrhs << " " << lda << " " << ldb
                    << " " << lwork;
                ++cases;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 10000);
}

}  // namespace
}  // namespace switchyard::test
