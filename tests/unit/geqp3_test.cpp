// xGEQP3 through libswitchyard.so's exported names, with the route forced onto the CPU TSQR
// (SWITCHYARD_ROUTE_DGEQP3=cpu, SWITCHYARD_ROUTE_SGEQP3=cpu), held against reference LAPACK
// reached directly: argument checks over a grid, quick returns and workspace queries, the pivots
// and WORK(1) of a tall call, |R|'s diagonal, and the 64-bit name's JPVT, whose entries are read
// as 64-bit integers.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fallback.hpp"
#include "recorded_xerbla.hpp"
#include "reference_blas.hpp"

extern "C" {
// Switchyard's, linked.
void dgeqp3_(const int*, const int*, double*, const int*, int*, double*, double*, const int*, int*);
void sgeqp3_(const int*, const int*, float*, const int*, int*, float*, float*, const int*, int*);
void dgeqp3_64_(const std::int64_t*, const std::int64_t*, double*, const std::int64_t*,
                std::int64_t*, double*, double*, const std::int64_t*, std::int64_t*);
}

namespace switchyard::test {
namespace {

// Set before the library's first call reads its configuration.
const bool cpu_route_forced = setenv("SWITCHYARD_ROUTE_DGEQP3", "cpu", 1) == 0 &&
                              setenv("SWITCHYARD_ROUTE_SGEQP3", "cpu", 1) == 0;

template <class T>
Geqp3Fn<T>* reference_geqp3() {
  void* handle = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
  void* s = handle ? dlsym(handle, sizeof(T) == 8 ? "dgeqp3_" : "sgeqp3_") : nullptr;
  if (!s) std::abort();
  return reinterpret_cast<Geqp3Fn<T>*>(s);
}

template <class T>
void ours(const int* m, const int* n, T* a, const int* lda, int* jpvt, T* tau, T* work,
          const int* lwork, int* info) {
  if constexpr (sizeof(T) == 8) {
    dgeqp3_(m, n, a, lda, jpvt, tau, work, lwork, info);
  } else {
    sgeqp3_(m, n, a, lda, jpvt, tau, work, lwork, info);
  }
}

// One call's outputs.
template <class T>
struct Outcome {
  std::vector<T> a, tau, work;
  std::vector<int> jpvt;
  int info = 0;
  RecordedXerbla handled;
};

template <class T>
Outcome<T> run(Geqp3Fn<T>* geqp3, int m, int n, int lda, int lwork, std::vector<int> jpvt,
               unsigned seed) {
  Outcome<T> o;
  o.a = random_matrix<T>(std::size_t(std::max(1, lda)) * std::max(1, n), seed);
  o.tau.assign(std::size_t(std::max(1, n)), T(-5));
  o.work.assign(std::size_t(std::max(1, lwork)), std::numeric_limits<T>::quiet_NaN());
  jpvt.resize(std::size_t(std::max(1, n)), 0);
  o.jpvt = jpvt;
  handled = {};
  o.info = 12345;
  geqp3(&m, &n, o.a.data(), &lda, o.jpvt.data(), o.tau.data(), o.work.data(), &lwork, &o.info);
  o.handled = handled;
  return o;
}

TEST(Geqp3, ArgumentChecksMatchReference) {
  ASSERT_TRUE(cpu_route_forced);
  int cases = 0, errors = 0;
  for (int m : {-1, 0, 1, 3, 6}) {
    for (int n : {-1, 0, 1, 2, 4}) {
      for (int lda : {0, 1, 3, 6}) {
        for (int lwork : {-1, 0, 1, 3, 6, 7, 13, 200}) {
          SCOPED_TRACE(::testing::Message()
                       << "M " << m << " N " << n << " LDA " << lda << " LWORK " << lwork);
          const Outcome<double> got = run<double>(ours<double>, m, n, lda, lwork, {}, 1);
          const Outcome<double> want =
              run<double>(reference_geqp3<double>(), m, n, lda, lwork, {}, 1);
          EXPECT_EQ(got.info, want.info);
          EXPECT_EQ(got.handled.calls, want.handled.calls);
          EXPECT_EQ(got.handled.info, want.handled.info);
          if (want.handled.calls) EXPECT_EQ(got.handled.name, "DGEQP3");
          if (want.info == 0 && lwork != -1) EXPECT_EQ(got.jpvt, want.jpvt);
          if (lwork == -1 && want.info == 0) EXPECT_EQ(got.work[0], want.work[0]);
          ++cases;
          errors += want.info != 0;
        }
      }
    }
  }
  EXPECT_GT(errors, 50);
  EXPECT_GT(cases - errors, 50);
}

// An empty A: JPVT is still numbered, fixed columns first, as the reference numbers it.
TEST(Geqp3, EmptyMatrixNumbersThePivots) {
  const Outcome<double> got = run<double>(ours<double>, 0, 5, 1, 16, {0, 3, 0, 1, 0}, 2);
  const Outcome<double> want =
      run<double>(reference_geqp3<double>(), 0, 5, 1, 16, {0, 3, 0, 1, 0}, 2);
  EXPECT_EQ(got.info, 0);
  EXPECT_EQ(got.jpvt, (std::vector<int>{2, 4, 3, 1, 5}));
  EXPECT_EQ(got.jpvt, want.jpvt);
}

// Columns scaled by 1..n in a shuffled order: the pivots are decided by wide margins, so the
// route picks the reference's.
template <class T>
void check_tall(int m, int n, std::vector<int> jpvt_in) {
  SCOPED_TRACE(::testing::Message() << m << " x " << n);
  const int lwork = 64 * (n + 1);
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 1);
  std::mt19937 gen(4);
  std::shuffle(order.begin(), order.end(), gen);
  const auto scaled = [&](std::vector<T> a) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) a[i + std::size_t(j) * m] *= T(order[std::size_t(j)]);
    return a;
  };
  const std::vector<T> a0 = scaled(random_matrix<T>(std::size_t(m) * n, 3));
  std::vector<T> a = a0, tau(static_cast<std::size_t>(n)), work(static_cast<std::size_t>(lwork));
  std::vector<int> jpvt = jpvt_in;
  int info = -1;
  handled = {};
  ours<T>(&m, &n, a.data(), &m, jpvt.data(), tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info, 0);
  EXPECT_EQ(handled.calls, 0);
  std::vector<T> ra = a0, rtau(static_cast<std::size_t>(n)), rwork(static_cast<std::size_t>(lwork));
  std::vector<int> rjpvt = jpvt_in;
  int rinfo = -1;
  reference_geqp3<T>()(&m, &n, ra.data(), &m, rjpvt.data(), rtau.data(), rwork.data(), &lwork,
                       &rinfo);
  EXPECT_EQ(jpvt, rjpvt);
  EXPECT_EQ(work[0], rwork[0]);
  // |R(j, j)| as the reference's, to rounding.
  const T scale = std::abs(ra[0]);
  for (int j = 0; j < n; ++j) {
    const std::size_t jj = std::size_t(j) * m + j;
    EXPECT_NEAR(std::abs(a[jj]), std::abs(ra[jj]),
                scale * T(64) * std::sqrt(T(m)) * std::numeric_limits<T>::epsilon())
        << "R(" << j << ", " << j << ")";
    EXPECT_TRUE(tau[j] == 0 || (tau[j] >= 1 && tau[j] <= 2)) << tau[j];
  }
}

TEST(Geqp3, TallSkinnyPivotsAsReference) {
  ASSERT_TRUE(cpu_route_forced);
  check_tall<double>(20000, 32, std::vector<int>(32, 0));
  check_tall<float>(20000, 7, std::vector<int>(7, 0));
  std::vector<int> fixed(12, 0);
  fixed[5] = 1, fixed[10] = 1;
  check_tall<double>(9000, 12, fixed);
}

// dgeqp3_64_: JPVT's entries are 64-bit, and one whose low 32 bits are zero still fixes its
// column.
TEST(Geqp3, SixtyFourBitPivots) {
  ASSERT_TRUE(cpu_route_forced);
  const std::int64_t m = 6000, n = 8, lwork = 64 * (n + 1);
  const std::vector<double> a0 = random_matrix<double>(std::size_t(m * n), 5);
  std::vector<double> a = a0, tau(n), work(lwork);
  std::vector<std::int64_t> jpvt(n, 0);
  jpvt[2] = std::int64_t(1) << 32;
  jpvt[6] = -(std::int64_t(1) << 40);
  std::int64_t info = -1;
  dgeqp3_64_(&m, &n, a.data(), &m, jpvt.data(), tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info, 0);
  std::vector<double> ra = a0, rtau(n), rwork(lwork);
  std::vector<int> rjpvt(n, 0);
  rjpvt[2] = 1, rjpvt[6] = 1;
  const int m32 = int(m), n32 = int(n), lwork32 = int(lwork);
  int rinfo = -1;
  reference_geqp3<double>()(&m32, &n32, ra.data(), &m32, rjpvt.data(), rtau.data(), rwork.data(),
                            &lwork32, &rinfo);
  EXPECT_EQ(jpvt[0], 3);  // the fixed columns lead, in order
  EXPECT_EQ(jpvt[1], 7);
  for (std::size_t j = 0; j < std::size_t(n); ++j) EXPECT_EQ(jpvt[j], rjpvt[j]) << j;
}

}  // namespace
}  // namespace switchyard::test
