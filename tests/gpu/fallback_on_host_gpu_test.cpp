// The fallback of calls whose arrays lie in device memory (qr/gpu/fallback_on_host.hpp). Where
// the GPU route declines (xGEQP3 past 64 columns, xORMQR with SIDE = 'R', xGESVD with
// JOBU = 'A') or is forced off (xGEQRF here), the fallback runs on host copies of the arrays and
// its results come back to device memory: the same as reference LAPACK's on the host, every
// output written. xGEMM and xGEQRF are kept in the fallback, so that the calls the fallback makes
// inside give reference LAPACK's bits. Skipped where there is no CUDA device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "fallback.hpp"
#include "reference_lapack.hpp"
#include "device_array.hpp"
#include "skip_without_cuda.hpp"

extern "C" {
// Switchyard's, linked.
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dgeqp3_(const int*, const int*, double*, const int*, int*, double*, double*, const int*, int*);
void dormqr_(const char*, const char*, const int*, const int*, const int*, const double*,
             const int*, const double*, double*, const int*, double*, const int*, int*, std::size_t,
             std::size_t);
void dgesvd_(const char*, const char*, const int*, const int*, double*, const int*, double*,
             double*, const int*, double*, const int*, double*, const int*, int*, std::size_t,
             std::size_t);
}

namespace switchyard::test {
namespace {

// Set before the library's first call reads its configuration.
const bool routes_set = setenv("SWITCHYARD_ROUTE_DGEQRF", "fallback", 1) == 0 &&
                        setenv("SWITCHYARD_ROUTE_DGEMM", "fallback", 1) == 0;

std::vector<double> gaussian(std::size_t count, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::vector<double> x(count);
  for (double& v : x) v = normal(engine);
  return x;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double bound) {
  ASSERT_EQ(got.size(), want.size());
  const double scale = std::max(1.0, max_abs(want));
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_FALSE(std::isnan(got[i])) << "element " << i << " left unwritten";
    ASSERT_LE(std::abs(got[i] - want[i]), bound * scale) << "element " << i;
  }
}

TEST(FallbackOnHost, ForcedGeqrfRunsOnHostCopies) {
  SKIP_WITHOUT_CUDA();
  ASSERT_TRUE(routes_set);
  const int m = 20000, n = 48, lda = m + 3, lwork = 64 * n;
  const std::vector<double> a0 = gaussian(std::size_t(lda) * n, 1);
  std::vector<double> want = a0, want_tau(n), work(lwork);
  int info = -1;
  reference_lapack<GeqrfFn<double>>("dgeqrf_")(&m, &n, want.data(), &lda, want_tau.data(),
                                               work.data(), &lwork, &info);
  ASSERT_EQ(info, 0);
  DeviceArray<double> a(a0), tau(std::vector<double>(n, poison<double>()));
  DeviceArray<double> device_work(std::vector<double>(lwork, poison<double>()));
  info = -1;
  dgeqrf_(&m, &n, a.get(), &lda, tau.get(), device_work.get(), &lwork, &info);
  ASSERT_EQ(info, 0);
  EXPECT_EQ(a.to_host(), want);
  EXPECT_EQ(tau.to_host(), want_tau);
  EXPECT_EQ(device_work.to_host()[0], work[0]);
}

TEST(FallbackOnHost, Geqp3WiderThanTheRouteRunsOnHostCopies) {
  SKIP_WITHOUT_CUDA();
  ASSERT_TRUE(routes_set);
  const int m = 20000, n = 65, lda = m, lwork = 128 * n;
  const std::vector<double> a0 = gaussian(std::size_t(lda) * n, 2);
  std::vector<double> want = a0, want_tau(n), work(lwork);
  std::vector<int> want_jpvt(n, 0), jpvt(n, 0);
  int info = -1;
  reference_lapack<Geqp3Fn<double>>("dgeqp3_")(&m, &n, want.data(), &lda, want_jpvt.data(),
                                               want_tau.data(), work.data(), &lwork, &info);
  ASSERT_EQ(info, 0);
  DeviceArray<double> a(a0), tau(std::vector<double>(n, poison<double>()));
  info = -1;
  dgeqp3_(&m, &n, a.get(), &lda, jpvt.data(), tau.get(), work.data(), &lwork, &info);
  ASSERT_EQ(info, 0);
  EXPECT_EQ(jpvt, want_jpvt);
  expect_close(a.to_host(), want, 1e-12);
  expect_close(tau.to_host(), want_tau, 1e-12);
}

TEST(FallbackOnHost, OrmqrFromTheRightRunsOnHostCopies) {
  SKIP_WITHOUT_CUDA();
  ASSERT_TRUE(routes_set);
  // C (mc x n) Q^T with Q from the QR of an n x k matrix: SIDE = 'R', which the route declines.
  const int n = 3000, k = 24, mc = 40, lwork = 64 * std::max(mc, k);
  std::vector<double> v = gaussian(std::size_t(n) * k, 3), tau(k), work(lwork);
  int info = -1;
  reference_lapack<GeqrfFn<double>>("dgeqrf_")(&n, &k, v.data(), &n, tau.data(), work.data(),
                                               &lwork, &info);
  ASSERT_EQ(info, 0);
  const std::vector<double> c0 = gaussian(std::size_t(mc) * n, 4);
  std::vector<double> want = c0;
  reference_lapack<OrmqrFn<double>>("dormqr_")("R", "T", &mc, &n, &k, v.data(), &n, tau.data(),
                                               want.data(), &mc, work.data(), &lwork, &info, 1, 1);
  ASSERT_EQ(info, 0);
  DeviceArray<double> device_v(v), device_tau(tau), c(c0);
  info = -1;
  dormqr_("R", "T", &mc, &n, &k, device_v.get(), &n, device_tau.get(), c.get(), &mc, work.data(),
          &lwork, &info, 1, 1);
  ASSERT_EQ(info, 0);
  expect_close(c.to_host(), want, 1e-13);
  EXPECT_EQ(device_v.to_host(), v);  // read only
}

TEST(FallbackOnHost, GesvdWithAllOfURunsOnHostCopies) {
  SKIP_WITHOUT_CUDA();
  ASSERT_TRUE(routes_set);
  // JOBU = 'A' (all m columns of U), which the route declines.
  const int m = 2000, n = 24;
  const std::vector<double> a0 = gaussian(std::size_t(m) * n, 5);
  std::vector<double> want = a0, want_s(n), want_u(std::size_t(m) * m), want_vt(std::size_t(n) * n);
  int lwork = -1, info = -1;
  double query = 0;
  GesvdFn<double>* const reference = reference_lapack<GesvdFn<double>>("dgesvd_");
  reference("A", "S", &m, &n, want.data(), &m, want_s.data(), want_u.data(), &m, want_vt.data(), &n,
            &query, &lwork, &info, 1, 1);
  lwork = int(query);
  std::vector<double> work(lwork);
  reference("A", "S", &m, &n, want.data(), &m, want_s.data(), want_u.data(), &m, want_vt.data(), &n,
            work.data(), &lwork, &info, 1, 1);
  ASSERT_EQ(info, 0);
  DeviceArray<double> a(a0), s(std::vector<double>(n, poison<double>()));
  DeviceArray<double> u(std::vector<double>(std::size_t(m) * m, poison<double>()));
  DeviceArray<double> vt(std::vector<double>(std::size_t(n) * n, poison<double>()));
  info = -1;
  dgesvd_("A", "S", &m, &n, a.get(), &m, s.get(), u.get(), &m, vt.get(), &n, work.data(), &lwork,
          &info, 1, 1);
  ASSERT_EQ(info, 0);
  expect_close(s.to_host(), want_s, 1e-13);
  expect_close(u.to_host(), want_u, 1e-10);
  expect_close(vt.to_host(), want_vt, 1e-10);
}

}  // namespace
}  // namespace switchyard::test
