// The GPU TSQR against reference LAPACK: each device operation against its CPU counterpart,
// then whole factorizations, from host memory (streamed) and from device memory (in place),
// judged like the CPU TSQR (tests/unit/tsqr_checks.hpp). Skipped where there is no CUDA device.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "device_array.hpp"
#include "qr/gpu/drivers.hpp"
#include "qr/gpu/streamed_qr.hpp"
#include "skip_without_cuda.hpp"
#include "tsqr_checks.hpp"
#include "tsqr_kernels.hpp"

namespace switchyard::tsqr {
namespace {

using namespace checks;
using test::DeviceArray;

[[maybe_unused]] const auto* const kPrintWorstRatios =
    ::testing::AddGlobalTestEnvironment(new PrintWorstRatios);

constexpr int kBlockRows = kernels::kTsqrBlockRows;

// ---------------------------------------------------------------------------------------------
// The device operations one at a time.

template <class T>
class TsqrGpuKernels : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TsqrGpuKernels, Precisions);

// Each block's output equals xGEQRF of that block up to rounding; gram holds v_i^T v_j; the
// R factors are stacked with zeros below their diagonals. Block heights: 256, 256, 700 - 512.
// The input is a Gaussian matrix times `scale`, a power of two, so that the reference is the
// unscaled one's: the reflectors and tau do not change, and R scales with A.
template <class T>
void expect_geqrf_per_block(int n, T scale) {
  SCOPED_TRACE(n);
  const int m = 700, blocks = 3;
  const Matrix<T> input = convert<T>(gaussian(m, n, unsigned(n)), m);
  Matrix<T> scaled = input;
  for (T& x : scaled.data) x *= scale;
  DeviceArray<T> a(scaled.data), tau(std::size_t(blocks) * n), gram(std::size_t(blocks) * n * n);
  DeviceArray<T> r(std::size_t(blocks) * n * n);
  ASSERT_EQ(kernels::tsqr_factor_blocks<T>(m, n, a.get(), m, 0, blocks, tau.get(), gram.get(),
                                           r.get(), blocks * n, nullptr),
            cudaSuccess);
  const std::vector<T> out = a.to_host(), taus = tau.to_host(), grams = gram.to_host(),
                       rs = r.to_host();
  const double tolerance = 100 * std::numeric_limits<T>::epsilon();
  for (int b = 0; b < blocks; ++b) {
    const int first = b * kBlockRows, rows = std::min(kBlockRows, m - first);
    Matrix<T> block(rows, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < rows; ++i) block(i, j) = input(first + i, j);
    const std::vector<T> reference_tau = reference_geqrf(block);
    for (int j = 0; j < n; ++j) {
      EXPECT_NEAR(taus[b * n + j], reference_tau[j], tolerance);
      for (int i = 0; i < rows; ++i) {
        const T expected = i <= j ? block(i, j) * scale : block(i, j);
        EXPECT_NEAR(out[first + i + std::size_t(j) * m], expected,
                    tolerance * std::max<T>(i <= j ? scale : 1, std::fabs(expected)))
            << "block " << b << " (" << i << ", " << j << ")";
      }
      for (int i = 0; i < n; ++i) {
        const T expected = i <= j && i < rows ? block(i, j) * scale : T(0);
        EXPECT_NEAR(rs[b * n + i + std::size_t(j) * blocks * n], expected,
                    tolerance * std::max<T>(scale, std::fabs(expected)));
      }
      for (int i = 0; i < j; ++i) {
        // v_i^T v_j with the implicit unit diagonals, from the reference reflectors.
        double dot = block(j, i);
        for (int k = j + 1; k < rows; ++k) dot += double(block(k, i)) * block(k, j);
        EXPECT_NEAR(grams[std::size_t(b) * n * n + i + std::size_t(j) * n], dot, tolerance * rows);
      }
    }
  }
}

TYPED_TEST(TsqrGpuKernels, FactorBlocksIsGeqrfPerBlock) {
  SKIP_WITHOUT_CUDA();
  for (int n : {1, 5, 8, 20, 33, 64}) expect_geqrf_per_block<TypeParam>(n, TypeParam(1));
}

// The reflectors come from estimated reciprocals refined in registers wherever the column's sum
// of squares neither lost digits to underflow nor overflowed: near both ends of that range
// (sums of squares about 2^-902 and 2^898 in double, 2^-92 and 2^108 in single precision)
// they keep LAPACK's accuracy.
TYPED_TEST(TsqrGpuKernels, FactorBlocksIsGeqrfPerBlockNearTheEndsOfTheRange) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const bool single = sizeof(T) == 4;
  for (int exponent : {single ? -50 : -455, single ? 50 : 445}) {
    SCOPED_TRACE(exponent);
    for (int n : {5, 20}) expect_geqrf_per_block<T>(n, std::ldexp(T(1), exponent));
  }
}

// form_blocks gives each block's explicit Q (xORGQR of its reflectors) times X_b; with no X,
// the explicit Q itself. The leading dimension m + 1, odd, leaves V's columns off 16 bytes, so
// that full blocks of full width take the element copies too.
TYPED_TEST(TsqrGpuKernels, FormBlocksAppliesEachBlocksQ) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const int m = 600, blocks = 3;
  for (int n : {1, 7, 16, 25, 32, 40, 64}) {
    for (int ld : {m, m + 1}) {
      if (ld != m && n % 16 != 0) continue;
      SCOPED_TRACE(::testing::Message() << "n " << n << ", ld " << ld);
      std::vector<T> factored = convert<T>(gaussian(m, n, unsigned(50 + n)), ld).data;
      DeviceArray<T> a(factored), tau(std::size_t(blocks) * n), gram(std::size_t(blocks) * n * n);
      DeviceArray<T> r(std::size_t(blocks) * n * n);
      ASSERT_EQ(kernels::tsqr_factor_blocks<T>(m, n, a.get(), ld, 0, blocks, tau.get(), gram.get(),
                                               r.get(), blocks * n, nullptr),
                cudaSuccess);
      factored = a.to_host();
      const std::vector<T> taus = tau.to_host();
      const Matrix<T> x = convert<T>(gaussian(blocks * n, n, unsigned(60 + n)), blocks * n);
      DeviceArray<T> device_x(x.data), out(std::size_t(m) * n);
      for (bool identity : {false, true}) {
        ASSERT_EQ(kernels::tsqr_form_blocks<T>(m, n, a.get(), ld, 0, blocks, tau.get(), gram.get(),
                                               identity ? nullptr : device_x.get(), blocks * n,
                                               out.get(), m, nullptr, 0, nullptr),
                  cudaSuccess);
        const std::vector<T> y = out.to_host();
        for (int b = 0; b < blocks; ++b) {
          const int first = b * kBlockRows, rows = std::min(kBlockRows, m - first);
          Matrix<T> q(rows, n);
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < rows; ++i) q(i, j) = factored[first + i + std::size_t(j) * ld];
          q = reference_q(q, std::vector<T>(taus.begin() + b * n, taus.begin() + (b + 1) * n));
          for (int j = 0; j < n; ++j) {
            for (int i = 0; i < rows; ++i) {
              double expected = 0;
              for (int k = 0; k < n; ++k) {
                expected += double(q(i, k)) * (identity ? double(k == j) : double(x(b * n + k, j)));
              }
              EXPECT_NEAR(y[first + i + std::size_t(j) * m], expected,
                          100 * n * std::numeric_limits<T>::epsilon())
                  << "block " << b << " (" << i << ", " << j << ")";
            }
          }
        }
      }
    }
  }
}

// Q1 - S = L U with s(j) = -sign(pivot) and inv(U), against the same elimination on the CPU.
TYPED_TEST(TsqrGpuKernels, ReconstructIsLuOfQ1MinusS) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  for (int n : {1, 9, 64}) {
    const Matrix<T> q1 = convert<T>(orthonormal_columns(n, n, unsigned(n)), n);
    DeviceArray<T> q(q1.data), lu(std::size_t(n) * n), s(n), u_inverse(std::size_t(n) * n);
    ASSERT_EQ(
        kernels::tsqr_reconstruct<T>(n, q.get(), n, lu.get(), s.get(), u_inverse.get(), nullptr),
        cudaSuccess);
    Matrix<double> f = convert<double>(q1, n);
    std::vector<double> signs(n);
    for (int j = 0; j < n; ++j) {
      signs[j] = f(j, j) >= 0 ? -1 : 1;
      f(j, j) -= signs[j];
      for (int i = j + 1; i < n; ++i) f(i, j) /= f(j, j);
      for (int k = j + 1; k < n; ++k)
        for (int i = j + 1; i < n; ++i) f(i, k) -= f(i, j) * f(j, k);
    }
    const std::vector<T> lus = lu.to_host(), ss = s.to_host(), inverse = u_inverse.to_host();
    const double tolerance = 50 * n * std::numeric_limits<T>::epsilon();
    for (int j = 0; j < n; ++j) {
      EXPECT_EQ(double(ss[j]), signs[j]);
      for (int i = 0; i < n; ++i) EXPECT_NEAR(lus[i + j * n], f(i, j), tolerance);
      for (int i = 0; i < n; ++i) {  // U inv(U) = I
        double sum = 0;
        for (int k = i; k < n; ++k) sum += f(i, k) * inverse[k + j * n];
        EXPECT_NEAR(sum, double(i == j), tolerance) << i << "," << j;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Whole factorizations.

enum class Residence { kHost, kDevice };

// Factors `input` on the GPU from host memory with lda > m (rows m..lda-1 must stay as they
// were) and poisoned tau, or from device memory.
template <class T>
Factored<T> factor(const Matrix<double>& input, Residence where) {
  return factor_padded<T>(input, 3, [&](Matrix<T>& a, std::vector<T>& tau) {
    std::string error;
    if (where == Residence::kHost) {
      EXPECT_TRUE(qr::gpu::geqrf_gpu(a.m, a.n, a.ptr(), a.ld, tau.data(), error)) << error;
      return;
    }
    DeviceArray<T> device_a(a.data), device_tau(tau);
    EXPECT_TRUE(cuda::device_accessible(device_a.get()));
    EXPECT_TRUE(qr::gpu::geqrf_gpu(a.m, a.n, device_a.get(), a.ld, device_tau.get(), error))
        << error;
    a.data = device_a.to_host();
    tau = device_tau.to_host();
  });
}

enum class CompareToGeqrf { kYes, kNo };

// Host and device data give bit-identical results (the same kernels run); both satisfy the
// contract.
template <class T>
void check(const Matrix<double>& input, CompareToGeqrf compare) {
  SCOPED_TRACE(::testing::Message() << input.m << " x " << input.n);
  const Factored<T> host = factor<T>(input, Residence::kHost);
  const Factored<T> device = factor<T>(input, Residence::kDevice);
  EXPECT_TRUE(host.a.data == device.a.data &&
              std::memcmp(host.tau.data(), device.tau.data(), sizeof(T) * host.tau.size()) == 0);
  const Matrix<T> a = convert<T>(input, input.m);
  const Factored<T> packed{convert<T>(host.a, host.a.m), host.tau};
  expect_lapack_contract(a, packed);
  if (compare == CompareToGeqrf::kYes) expect_matches_reference(a, packed);
}

template <class T>
class TsqrGpu : public ::testing::Test {};
TYPED_TEST_SUITE(TsqrGpu, Precisions);

// One block, two levels, three levels; heights that are and are not multiples of 256.
TYPED_TEST(TsqrGpu, ShapeSweep) {
  SKIP_WITHOUT_CUDA();
  for (int n : {1, 2, 3, 8, 13, 16, 17, 31, 32, 45, 63, 64}) {
    for (int m : {n, n + 1, 255, 256, 257, 4096 + 77, 70000}) {
      if (m >= n) check<TypeParam>(gaussian(m, n, unsigned(1000 * n + m)), CompareToGeqrf::kYes);
    }
  }
}

// Wider than one TSQR: panels of TSQRs, groups of 64 columns, trailing updates; widths that
// end inside a panel and inside a group.
TYPED_TEST(TsqrGpu, Panels) {
  SKIP_WITHOUT_CUDA();
  for (int n : {65, 100, 128, 200, 256}) {
    for (int m : {n, n + 3, 4096 + 77, 40000}) {
      check<TypeParam>(gaussian(m, n, unsigned(7000 * n + m)), CompareToGeqrf::kYes);
    }
  }
}

TYPED_TEST(TsqrGpu, PanelsOfHardMatrices) {
  SKIP_WITHOUT_CUDA();
  check<TypeParam>(graded(50000, 36, 1, 16), CompareToGeqrf::kYes);  // 1e-35: within float
  check<TypeParam>(with_condition(50000, 96, 1e15, 17), CompareToGeqrf::kNo);
  check<TypeParam>(with_rank(30000, 150, 40, 18), CompareToGeqrf::kNo);
  check<TypeParam>(with_zero_columns(30000, 140, {0, 64, 70, 139}, 19), CompareToGeqrf::kNo);
}

// A large host matrix wider than one TSQR streams a panel at a time (qr/gpu/streamed_qr.hpp),
// its panels updated left-looking: the same bits as the right-looking QR of device data, on
// shapes that end inside a panel and inside a group of 64 columns, and on rows of one chunk and
// of several.
TYPED_TEST(TsqrGpu, StreamedPanelsGiveTheBitsOfDeviceData) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  for (const auto& [m, n] : std::vector<std::pair<int, int>>{
           {40000, 33}, {40000, 45}, {70000, 100}, {4096 + 77, 200}, {300, 256}}) {
    SCOPED_TRACE(::testing::Message() << m << " x " << n);
    const Matrix<double> input = gaussian(m, n, unsigned(9000 + n));
    const Factored<T> streamed = factor_padded<T>(input, 3, [&](Matrix<T>& a, std::vector<T>& tau) {
      std::string error;
      EXPECT_TRUE(qr::gpu::geqrf_streamed(a.m, a.n, a.ptr(), a.ld, tau.data(), error)) << error;
    });
    const Factored<T> device = factor<T>(input, Residence::kDevice);
    EXPECT_TRUE(streamed.a.data == device.a.data &&
                std::memcmp(streamed.tau.data(), device.tau.data(), sizeof(T) * n) == 0);
  }
}

// When a streamed panel's work fails, the panels before it have come back and the fallback finishes
// the rest: the whole is still xGEQRF's. When the first fails, nothing was written.
TYPED_TEST(TsqrGpu, StreamedPanelsFailingPartWayAreFinishedInTheFallback) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const int m = 40000, n = 100;
  const Matrix<double> input = gaussian(m, n, 23);
  const int panels = int(qr::gpu::column_panels<T>(n).size());
  for (int failing : {1, panels - 1}) {
    SCOPED_TRACE(::testing::Message() << "panel " << failing << " of " << panels << " fails");
    const qr::gpu::PanelFault fault{failing};
    const Factored<T> f = factor_padded<T>(input, 3, [&](Matrix<T>& a, std::vector<T>& tau) {
      std::string error;
      EXPECT_TRUE(qr::gpu::geqrf_streamed(a.m, a.n, a.ptr(), a.ld, tau.data(), error, &fault));
    });
    const Matrix<T> a = convert<T>(input, m);
    const Factored<T> packed{convert<T>(f.a, m), f.tau};
    expect_lapack_contract(a, packed);
    expect_matches_reference(a, packed);
  }
  Matrix<T> a = convert<T>(input, m);
  const std::vector<T> before = a.data;
  std::vector<T> tau(std::size_t(n), T(-7));
  std::string error;
  const qr::gpu::PanelFault first{0};
  EXPECT_FALSE(qr::gpu::geqrf_streamed(m, n, a.ptr(), a.ld, tau.data(), error, &first));
  EXPECT_EQ(a.data, before);
  EXPECT_FALSE(error.empty());
}

TYPED_TEST(TsqrGpu, Large) {
  SKIP_WITHOUT_CUDA();
  check<TypeParam>(gaussian(1 << 20, 64, 1), CompareToGeqrf::kYes);
  check<TypeParam>(gaussian(3000000, 5, 2), CompareToGeqrf::kYes);
  check<TypeParam>(gaussian(1 << 18, 256, 3), CompareToGeqrf::kYes);
}

TYPED_TEST(TsqrGpu, VeryThin) {
  SKIP_WITHOUT_CUDA();
  check<TypeParam>(gaussian(1 << 22, 8, 12), CompareToGeqrf::kYes);
}

TYPED_TEST(TsqrGpu, GradedColumns) {
  SKIP_WITHOUT_CUDA();
  for (int step : {1, 2}) check<TypeParam>(graded(100000, 12, step, 4), CompareToGeqrf::kYes);
}

TYPED_TEST(TsqrGpu, IllConditioned) {
  SKIP_WITHOUT_CUDA();
  for (double condition : {1e12, 1e15}) {
    check<TypeParam>(with_condition(100000, 32, condition, 6), CompareToGeqrf::kNo);
  }
}

TYPED_TEST(TsqrGpu, RankDeficient) {
  SKIP_WITHOUT_CUDA();
  check<TypeParam>(with_rank(100000, 40, 13, 8), CompareToGeqrf::kNo);
  check<TypeParam>(with_rank(5000, 16, 1, 9), CompareToGeqrf::kNo);
}

TYPED_TEST(TsqrGpu, ZeroColumns) {
  SKIP_WITHOUT_CUDA();
  check<TypeParam>(with_zero_columns(100000, 24, {0, 5, 23}, 10), CompareToGeqrf::kNo);
  check<TypeParam>(with_zero_columns(300, 12, {0, 1, 7, 11}, 11), CompareToGeqrf::kNo);
  check<TypeParam>(Matrix<double>(20000, 12), CompareToGeqrf::kYes);
}

// Already reduced columns get tau = 0 and keep their sign in R, as from xGEQRF, so an upper
// triangular matrix comes back bit for bit unchanged.
TYPED_TEST(TsqrGpu, AlreadyReducedColumnsGiveZeroTau) {
  SKIP_WITHOUT_CUDA();
  const Matrix<double> input = upper_triangular(40000, 10, 13);
  const Factored<TypeParam> f = factor<TypeParam>(input, Residence::kHost);
  for (int j = 0; j < input.n; ++j) {
    EXPECT_EQ(f.tau[j], TypeParam(0)) << j;
    for (int i = 0; i < input.m; ++i) EXPECT_EQ(f.a(i, j), TypeParam(input(i, j))) << i << "," << j;
  }
}

// NaN or Inf anywhere in A reaches the output, with no hang: in one TSQR (n = 8), and in the
// panels (n = 100), in the first panel and in the second group's.
TYPED_TEST(TsqrGpu, NonFiniteInputPropagates) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  struct Place {
    int n, row, column;
  };
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    for (const Place place : {Place{8, 0, 2}, Place{8, 3, 2}, Place{8, 77777, 2}, Place{100, 0, 2},
                              Place{100, 77777, 70}}) {
      Matrix<double> input = gaussian(100000, place.n, 15);
      input(place.row, place.column) = bad;
      const Factored<T> f = factor<T>(input, Residence::kHost);
      const bool any_nan =
          std::any_of(f.a.data.begin(), f.a.data.end(), [](T x) { return std::isnan(x); }) ||
          std::any_of(f.tau.begin(), f.tau.end(), [](T x) { return std::isnan(x); });
      EXPECT_TRUE(any_nan) << "bad value " << bad << " at (" << place.row << ", " << place.column
                           << ") of n = " << place.n;
    }
  }
}

// A program's copy into device memory may still be landing when the call starts (from pageable
// memory cudaMemcpy returns once the data is staged): a call works on device data only after
// the program's default stream. Here the copy waits behind a host function on the legacy
// stream; a call that did not wait would factor the NaN the matrix held before.
TYPED_TEST(TsqrGpu, WaitsForTheProgramsDefaultStream) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const Matrix<double> input = gaussian(40000, 16, 21);
  const Matrix<T> a = convert<T>(input, input.m);
  const std::size_t bytes = sizeof(T) * a.data.size();
  T* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes), cudaSuccess);
  std::memcpy(pinned, a.data.data(), bytes);
  DeviceArray<T> device_a(a.data.size()), device_tau(std::size_t(a.n));
  const auto hold_back = [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(300)); };
  ASSERT_EQ(cudaLaunchHostFunc(cudaStreamLegacy, hold_back, nullptr), cudaSuccess);
  ASSERT_EQ(
      cudaMemcpyAsync(device_a.get(), pinned, bytes, cudaMemcpyHostToDevice, cudaStreamLegacy),
      cudaSuccess);
  std::string error;
  ASSERT_TRUE(qr::gpu::geqrf_gpu(a.m, a.n, device_a.get(), a.m, device_tau.get(), error)) << error;
  const Factored<T> expected = factor<T>(input, Residence::kHost);
  const std::vector<T> v = device_a.to_host(), tau = device_tau.to_host();
  for (int j = 0; j < a.n; ++j) {
    EXPECT_EQ(std::memcmp(&v[std::size_t(j) * a.m], &expected.a(0, j), sizeof(T) * a.m), 0) << j;
  }
  EXPECT_EQ(std::memcmp(tau.data(), expected.tau.data(), sizeof(T) * a.n), 0);
  cudaFreeHost(pinned);
}

TYPED_TEST(TsqrGpu, RefusesWithoutTouchingA) {
  using T = TypeParam;
  std::vector<T> a(100 * 80, T(3)), tau(257, T(-7));
  std::string error;
  std::vector<T> wide(300 * 257, T(3));
  EXPECT_FALSE(qr::gpu::geqrf_gpu<T>(300, 257, wide.data(), 300, tau.data(), error));
  EXPECT_EQ(wide, std::vector<T>(300 * 257, T(3)));
  EXPECT_FALSE(qr::gpu::geqrf_gpu<T>(3, 4, a.data(), 100, tau.data(), error));
  EXPECT_FALSE(qr::gpu::geqrf_gpu<T>(100, 4, a.data(), 99, tau.data(), error));
  EXPECT_EQ(a, std::vector<T>(100 * 80, T(3)));
  EXPECT_EQ(tau, std::vector<T>(257, T(-7)));
}

// The router sends operands in device or managed memory to the device; it asks the CUDA driver
// where a pointer lives only once the process has loaded the driver, found in its list of
// loaded objects.
TEST(DevicePointers, DeviceAndManagedMemoryAreFoundHostMemoryIsNot) {
  SKIP_WITHOUT_CUDA();
  void* device = nullptr;
  void* managed = nullptr;
  ASSERT_EQ(cudaMalloc(&device, 4096), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(&managed, 4096), cudaSuccess);
  std::vector<double> host(512);
  EXPECT_TRUE(cuda_device_pointer(device));
  EXPECT_TRUE(cuda_device_pointer(managed));
  EXPECT_FALSE(cuda_device_pointer(host.data()));
  cudaFree(device);
  cudaFree(managed);
}

}  // namespace
}  // namespace switchyard::tsqr
