// The TSQR split over several devices (qr/gpu/split_tsqr.hpp) against reference LAPACK, judged
// like the one-device TSQR (tests/unit/tsqr_checks.hpp). Each case runs on two and three shares
// of this machine's device (a repeated device is another stream on it, the same algorithm), and
// on every device when there are two or more. Skipped where there is no CUDA device.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "qr/gpu/split_tsqr.hpp"
#include "device_lists.hpp"
#include "skip_without_cuda.hpp"
#include "tsqr_checks.hpp"

namespace switchyard::tsqr {
namespace {

using namespace checks;
using test::device_lists;
using test::named;

[[maybe_unused]] const auto* const kPrintWorstRatios =
    ::testing::AddGlobalTestEnvironment(new PrintWorstRatios);

// Factors `input` split over `devices` from host memory, with lda > m.
template <class T>
Factored<T> factor(const Matrix<double>& input, const std::vector<int>& devices) {
  return factor_padded<T>(input, 3, [&](Matrix<T>& a, std::vector<T>& tau) {
    EXPECT_TRUE(qr::gpu::splits(devices, a.m, a.n));
    std::string error;
    EXPECT_TRUE(qr::gpu::geqrf_split(devices, a.m, a.n, a.ptr(), a.ld, tau.data(), error))
        << error;
  });
}

enum class CompareToGeqrf { kYes, kNo };

// The contract on every device list; twice on the same list gives the same bits.
template <class T>
void check(const Matrix<double>& input, CompareToGeqrf compare) {
  SCOPED_TRACE(::testing::Message() << input.m << " x " << input.n);
  const Matrix<T> a = convert<T>(input, input.m);
  for (const std::vector<int>& devices : device_lists()) {
    SCOPED_TRACE(named(devices));
    const Factored<T> first = factor<T>(input, devices);
    const Factored<T> again = factor<T>(input, devices);
    EXPECT_TRUE(first.a.data == again.a.data &&
                std::memcmp(first.tau.data(), again.tau.data(), sizeof(T) * a.n) == 0);
    const Factored<T> packed{convert<T>(first.a, first.a.m), first.tau};
    expect_lapack_contract(a, packed);
    if (compare == CompareToGeqrf::kYes) expect_matches_reference(a, packed);
  }
}

template <class T>
class SplitTsqrGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SplitTsqrGpu, Precisions);

// Shares of one leaf block and of many; a last share shorter than the others, down to n rows.
TYPED_TEST(SplitTsqrGpu, ShapeSweep) {
  SKIP_WITHOUT_CUDA();
  for (int n : {1, 3, 8, 17, 32, 45, 64}) {
    for (int m : {600, 512 + n, 4096 + 77, 70000}) {
      check<TypeParam>(gaussian(m, n, unsigned(1000 * n + m)), CompareToGeqrf::kYes);
    }
  }
}

TYPED_TEST(SplitTsqrGpu, HardMatrices) {
  SKIP_WITHOUT_CUDA();
  check<TypeParam>(with_condition(100000, 32, 1e12, 6), CompareToGeqrf::kNo);
  check<TypeParam>(with_rank(100000, 40, 13, 8), CompareToGeqrf::kNo);
  check<TypeParam>(with_zero_columns(50000, 24, {0, 5, 23}, 10), CompareToGeqrf::kNo);
  check<TypeParam>(Matrix<double>(20000, 12), CompareToGeqrf::kYes);
}

// An upper triangular matrix comes back bit for bit unchanged with tau = 0, as from xGEQRF: no
// share finds a nonzero in V2.
TYPED_TEST(SplitTsqrGpu, AlreadyReducedColumnsGiveZeroTau) {
  SKIP_WITHOUT_CUDA();
  const Matrix<double> input = upper_triangular(40000, 10, 13);
  for (const std::vector<int>& devices : device_lists()) {
    SCOPED_TRACE(named(devices));
    const Factored<TypeParam> f = factor<TypeParam>(input, devices);
    for (int j = 0; j < input.n; ++j) {
      EXPECT_EQ(f.tau[j], TypeParam(0)) << j;
      for (int i = 0; i < input.m; ++i) {
        EXPECT_EQ(f.a(i, j), TypeParam(input(i, j))) << i << "," << j;
      }
    }
  }
}

// The only entry below the diagonal is the first row of the second share: its own tree sees it
// in its top n rows, which the whole matrix's V2 includes, so column 0 gets a real reflector.
TYPED_TEST(SplitTsqrGpu, NonzeroInTheTopRowsOfALaterShare) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const int m = 4096, n = 6;
  Matrix<double> input = upper_triangular(m, n, 21);
  input(2048, 0) = 0.75;  // two shares of 2048 rows
  const std::vector<int> devices(2, cuda::device_ordinal());
  const Factored<T> f = factor<T>(input, devices);
  EXPECT_NE(f.tau[0], T(0));
  const Matrix<T> a = convert<T>(input, input.m);
  expect_lapack_contract(a, Factored<T>{convert<T>(f.a, f.a.m), f.tau});
}

// Managed memory whose shares of rows lie on their devices (prefetched there, column by column)
// is split where it lies, and gives the bits the same matrix gives from host memory. Columns of
// 2^21 rows, unpadded: over devices that differ, each share of a column must be whole pages of
// managed memory (2 MiB), which two shares are and three are not.
template <class T>
class ManagedCopy {
 public:
  explicit ManagedCopy(const Matrix<T>& a) : bytes_(sizeof(T) * a.data.size()) {
    if (cudaMallocManaged(&p_, bytes_) != cudaSuccess) p_ = nullptr;
    if (p_) std::memcpy(p_, a.data.data(), bytes_);
  }
  ~ManagedCopy() { cudaFree(p_); }
  T* get() const { return static_cast<T*>(p_); }
  // Rows [first, first + rows) of every column to `device`; done when this returns.
  void prefetch(long long ld, int n, long long first, long long rows, int device) const {
    const cudaMemLocation where{cudaMemLocationTypeDevice, device};
    for (int j = 0; j < n; ++j) {
      ASSERT_EQ(cudaMemPrefetchAsync(get() + first + ld * j, sizeof(T) * rows, where, 0, nullptr),
                cudaSuccess);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }

 private:
  std::size_t bytes_;
  void* p_ = nullptr;
};

TYPED_TEST(SplitTsqrGpu, ManagedMemoryLyingSplitGivesTheHostBits) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  constexpr std::size_t kPage = std::size_t(2) << 20;
  const int m = 1 << 21, n = 4;
  const Matrix<double> input = gaussian(m, n, 77);
  for (const std::vector<int>& devices : device_lists()) {
    SCOPED_TRACE(named(devices));
    bool managed = true;
    for (int d : devices) {
      int concurrent = 0;
      cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, d);
      managed = managed && concurrent;
    }
    const long long rows = qr::gpu::share_rows(m, devices.size(), qr::gpu::kTsqrBlockRows);
    const bool one_device = std::all_of(devices.begin(), devices.end(),
                                        [&](int d) { return d == devices.front(); });
    if (!managed || (!one_device && sizeof(T) * std::size_t(rows) % kPage != 0)) continue;
    const Factored<T> from_host = factor<T>(input, devices);
    Matrix<T> a = convert<T>(input, m);
    const ManagedCopy<T> copy(a);
    ASSERT_NE(copy.get(), nullptr);
    if (!one_device && reinterpret_cast<std::uintptr_t>(copy.get()) % kPage != 0) continue;
    EXPECT_FALSE(qr::gpu::lies_split<T>(devices, copy.get(), a.ld, m, n));  // never prefetched
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const long long first = rows * (long long)d;
      ASSERT_NO_FATAL_FAILURE(copy.prefetch(a.ld, n, first, std::min(rows, m - first), devices[d]));
    }
    ASSERT_TRUE(qr::gpu::lies_split<T>(devices, copy.get(), a.ld, m, n));
    std::vector<T> tau(std::size_t(n), std::numeric_limits<T>::quiet_NaN());
    std::string error;
    ASSERT_TRUE(qr::gpu::geqrf_split<T>(devices, m, n, copy.get(), a.ld, tau.data(), error))
        << error;
    EXPECT_EQ(std::memcmp(tau.data(), from_host.tau.data(), sizeof(T) * n), 0);
    for (int j = 0; j < n; ++j) {
      EXPECT_EQ(std::memcmp(copy.get() + a.ld * j, &from_host.a(0, j), sizeof(T) * m), 0) << j;
    }
  }
}

// Device-accessible A is factored in place, and past one TSQR's width by panels, each a split
// TSQR whose reflectors update the columns to its right with sums over the devices: the
// contract, and the same bits twice. Managed memory, so that any list of devices reaches it.
template <class T>
Factored<T> factor_in_place(const Matrix<double>& input, const std::vector<int>& devices) {
  return factor_padded<T>(input, 3, [&](Matrix<T>& a, std::vector<T>& tau) {
    const ManagedCopy<T> copy(a);
    ASSERT_NE(copy.get(), nullptr);
    std::string error;
    EXPECT_TRUE(qr::gpu::geqrf_split(devices, a.m, a.n, copy.get(), a.ld, tau.data(), error))
        << error;
    std::memcpy(a.data.data(), copy.get(), sizeof(T) * a.data.size());
  });
}

TYPED_TEST(SplitTsqrGpu, InPlaceByPanels) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const std::vector<Matrix<double>> inputs = {
      gaussian(70000, 64, 31), gaussian(4096 + 77, 45, 32), gaussian(600, 33, 33),
      with_condition(100000, 48, 1e10, 34), with_zero_columns(50000, 40, {0, 17, 39}, 35)};
  for (const Matrix<double>& input : inputs) {
    SCOPED_TRACE(::testing::Message() << input.m << " x " << input.n);
    const Matrix<T> a = convert<T>(input, input.m);
    for (const std::vector<int>& devices : device_lists()) {
      SCOPED_TRACE(named(devices));
      const Factored<T> first = factor_in_place<T>(input, devices);
      const Factored<T> again = factor_in_place<T>(input, devices);
      EXPECT_TRUE(first.a.data == again.a.data &&
                  std::memcmp(first.tau.data(), again.tau.data(), sizeof(T) * a.n) == 0);
      expect_lapack_contract(a, Factored<T>{convert<T>(first.a, first.a.m), first.tau});
    }
  }
}

TEST(SplitTsqrRules, WhenAMatrixIsSplit) {
  EXPECT_FALSE(qr::gpu::splits({0}, 1 << 20, 32));     // one device
  EXPECT_FALSE(qr::gpu::splits({0, 1}, 1 << 20, 65));  // wider than one tree
  EXPECT_TRUE(qr::gpu::splits({0, 1}, 1 << 20, 64));
  EXPECT_TRUE(qr::gpu::splits({0, 1}, 512 + 64, 64));   // last share exactly n rows
  EXPECT_FALSE(qr::gpu::splits({0, 1}, 512 + 63, 64));  // one short
  EXPECT_FALSE(qr::gpu::splits({0, 1, 2}, 300, 1));     // a share with no rows
  EXPECT_TRUE(qr::gpu::splits({0, 0}, 257, 1));
}

TEST(SplitTsqrRules, WhenASplitPays) {
  constexpr std::size_t kShare = qr::gpu::kSplitMinBytesPerDevice;
  EXPECT_FALSE(qr::gpu::pays_to_split(100 * kShare, 1));
  EXPECT_TRUE(qr::gpu::pays_to_split(2 * kShare, 2));
  EXPECT_FALSE(qr::gpu::pays_to_split(2 * kShare - 1, 2));
  EXPECT_TRUE(qr::gpu::pays_to_split(3 * kShare, 3));
}

TYPED_TEST(SplitTsqrGpu, RefusesWithoutTouchingA) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  std::vector<T> a(1000 * 4, T(1)), tau(4, T(7));
  std::string error;
  EXPECT_FALSE(qr::gpu::geqrf_split<T>({0}, 1000, 4, a.data(), 1000, tau.data(), error));
  EXPECT_FALSE(qr::gpu::geqrf_split<T>({0, 0}, 1000, 4, a.data(), 999, tau.data(), error));
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](T x) { return x == T(1); }));
  EXPECT_TRUE(std::all_of(tau.begin(), tau.end(), [](T x) { return x == T(7); }));
}

}  // namespace
}  // namespace switchyard::tsqr
