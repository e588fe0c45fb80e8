// The half-storage DIA SpMV kernel (every rows-per-thread variant, rows
// with their loads batched up to 13 diagonals and diagonal by diagonal
// beyond) against the plain CSR reference on random SPD banded matrices,
// and against the host SpMV on the FEM problem with double and float values.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cg/convert.hpp"
#include "cg/fem_poisson.hpp"
#include "cg/spmv_cpu.hpp"
#include "cg_kernels.hpp"
#include "cg_reference.hpp"
#include "device/cuda_runtime.hpp"
#include "skip_without_cuda.hpp"

namespace switchyard::cg {
namespace {

template <class T>
struct DeviceArray {
  T* p = nullptr;
  explicit DeviceArray(const std::vector<T>& host) {
    EXPECT_EQ(cudaMalloc(&p, host.size() * sizeof(T)), cudaSuccess);
    cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~DeviceArray() { cudaFree(p); }
};

// y = A x on the device for each rows-per-thread variant and a small and a
// full grid (so rows are also dealt out round-robin).
template <class V>
std::vector<std::vector<double>> device_products(const DiaHalf<V>& a, const std::vector<double>& x) {
  DeviceArray<V> diag(a.diag), lower(a.lower);
  DeviceArray<double> dx(x), dy(std::vector<double>(x.size(), NAN));
  cuda::DeviceDia<V> da{};
  da.n = a.n;
  da.ndiag = a.ndiag();
  for (int d = 0; d < a.ndiag(); ++d) da.offsets[d] = a.offsets[std::size_t(d)];
  da.diag = diag.p;
  da.lower = lower.p;
  std::vector<std::vector<double>> results;
  for (const int rows_per_thread : {1, 2, 4}) {
    for (const int max_blocks : {3, cuda::grid_blocks(switchyard::cuda::device_ordinal())}) {
      cudaMemset(dy.p, 0xff, x.size() * sizeof(double));  // NaN everywhere
      cuda::launch_dia_spmv(da, dx.p, dy.p, rows_per_thread, max_blocks, nullptr);
      std::vector<double> y(x.size());
      EXPECT_EQ(cudaMemcpy(y.data(), dy.p, y.size() * sizeof(double), cudaMemcpyDeviceToHost),
                cudaSuccess);
      results.push_back(std::move(y));
    }
  }
  return results;
}

double relative_difference(const std::vector<double>& y, const std::vector<double>& ref) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i])) return INFINITY;  // a row never written stays NaN
    diff = std::max(diff, std::abs(y[i] - ref[i]));
    scale = std::max(scale, std::abs(ref[i]));
  }
  return scale > 0.0 ? diff / scale : diff;
}

std::vector<double> wavy(int n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) x[std::size_t(i)] = std::cos(0.37 * i) + 0.01 * (i % 7);
  return x;
}

TEST(DiaSpmvGpu, RandomBandedMatricesMatchTheCsrReference) {
  SKIP_WITHOUT_CUDA();
  unsigned seed = 11;
  for (const std::vector<int>& offsets :
       std::vector<std::vector<int>>{{1},
                                     {1, 3, 17, 300},
                                     {2, 5, 9, 40, 41, 42, 1000, 5000},
                                     {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610}}) {
    for (const int n : {1, 255, 3000, 70001}) {
      const testing::RefMatrix ref = testing::random_banded_spd(n, offsets, 0.8, seed++);
      const DiaHalf<double> a = dia_from_lower(testing::lower_of<double>(ref));
      const std::vector<double> x = wavy(n), want = testing::ref_multiply(ref, x);
      for (const std::vector<double>& y : device_products(a, x)) {
        EXPECT_LT(relative_difference(y, want), 1e-14) << "n = " << n;
      }
    }
  }
}

TEST(DiaSpmvGpu, FemProblemMatchesTheHostSpmv) {
  SKIP_WITHOUT_CUDA();
  const FemGrid g{45, 33, 20};
  const DiaHalf<double> a = fem_poisson_dia<double>(g, 4);
  const DiaHalf<float> af = fem_poisson_dia<float>(g, 4);
  const std::vector<double> x = wavy(a.n);
  std::vector<double> want(x.size()), want_f(x.size());
  spmv_rows(a, x.data(), want.data(), 0, a.n);
  spmv_rows(af, x.data(), want_f.data(), 0, af.n);
  for (const std::vector<double>& y : device_products(a, x)) {
    EXPECT_LT(relative_difference(y, want), 1e-14);
  }
  for (const std::vector<double>& y : device_products(af, x)) {
    EXPECT_LT(relative_difference(y, want_f), 1e-14);
  }
}

}  // namespace
}  // namespace switchyard::cg
