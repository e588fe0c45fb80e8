// kernels::mma_16x8x4 against the product on the CPU, as the device's own architecture compiles
// it and as sm_80's PTX does (two m8n8k4 products in place of one m16n8k4). Skipped where there
// is no CUDA device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

cudaError_t mma_warp_native(const double* a, const double* b, double* c);
cudaError_t mma_warp_compute80(const double* a, const double* b, double* c);

namespace {

using Product = cudaError_t(const double*, const double*, double*);

// C + A B on the device by `product`, for row-major 16 x 4 A, 4 x 8 B and 16 x 8 C.
std::vector<double> on_device(Product* product, const std::vector<double>& a,
                              const std::vector<double>& b, const std::vector<double>& c) {
  double *da = nullptr, *db = nullptr, *dc = nullptr;
  std::vector<double> out(c.size(), std::nan(""));
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), a.size() * sizeof(double)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), b.size() * sizeof(double)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), c.size() * sizeof(double)), cudaSuccess);
  cudaMemcpy(da, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c.data(), c.size() * sizeof(double), cudaMemcpyHostToDevice);
  EXPECT_EQ(product(da, db, dc), cudaSuccess);
  cudaMemcpy(out.data(), dc, c.size() * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(da), cudaFree(db), cudaFree(dc);
  return out;
}

std::vector<double> on_host(const std::vector<double>& a, const std::vector<double>& b,
                            std::vector<double> c) {
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 4; ++k) c[i * 8 + j] += a[i * 4 + k] * b[k * 8 + j];
  return c;
}

class MmaF64 : public ::testing::TestWithParam<Product*> {
 protected:
  void SetUp() override {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no CUDA device";
  }
};

// Small integers: every product and sum is exact, so any misplaced fragment shows.
TEST_P(MmaF64, IntegersExactly) {
  std::mt19937 engine(11);
  std::uniform_int_distribution<int> value(-9, 9);
  auto random = [&](std::size_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = value(engine);
    return v;
  };
  const std::vector<double> a = random(64), b = random(32), c = random(128);
  const std::vector<double> expected = on_host(a, b, c), got = on_device(GetParam(), a, b, c);
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(got[i], expected[i]) << "C entry " << i;
}

TEST_P(MmaF64, RealsToRounding) {
  std::mt19937 engine(12);
  std::uniform_real_distribution<double> value(-1, 1);
  auto random = [&](std::size_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = value(engine);
    return v;
  };
  const std::vector<double> a = random(64), b = random(32), c = random(128);
  const std::vector<double> expected = on_host(a, b, c), got = on_device(GetParam(), a, b, c);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(got[i], expected[i], 1e-14) << "C entry " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, MmaF64,
                         ::testing::Values(&mma_warp_native, &mma_warp_compute80),
                         [](const auto& info) {
                           return info.param == &mma_warp_native ? "native" : "compute80";
                         });

}  // namespace
