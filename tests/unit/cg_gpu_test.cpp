// The CG's gpu route against the host CG, on the FEM problem and random SPD
// banded matrices, double and float values, and its breakdown statuses.
// Exits 77 (skipped) when the build has no gpu route or finds no device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "cg/cg_cpu.hpp"
#include "cg/convert.hpp"
#include "cg/fem_poisson.hpp"
#include "cg/formats_out.hpp"
#include "cg/gpu_backend.hpp"
#include "cg/spmv_cpu.hpp"
#include "cg_reference.hpp"
#include "switchyard.h"

namespace switchyard::cg {
namespace {

const double nan_value = std::numeric_limits<double>::quiet_NaN();

bool run_gpu(const DiaHalf<double>& a, const double* b, double* x, const CgParams& p,
             CgOutcome& o, const char** why) {
  return gpu_backend->solve_dia_double(a, b, x, p, o, why);
}
bool run_gpu(const DiaHalf<float>& a, const double* b, double* x, const CgParams& p,
             CgOutcome& o, const char** why) {
  return gpu_backend->solve_dia_float(a, b, x, p, o, why);
}

template <class V>
bool gpu_solve(const DiaHalf<V>& a, const double* b, double* x, const CgParams& p, CgOutcome& o) {
  const char* why = "";
  const bool ran = run_gpu(a, b, x, p, o, &why);
  EXPECT_TRUE(ran) << why;
  return ran;
}

double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

// The right-hand side whose exact solution is u for the matrix as stored.
// With float values A is the double matrix rounded, whose solution differs
// from the generator's u = x by about 1e-7: the generator's b would leave
// the error criterion unreachable (both CGs then run on to breakdown).
template <class V>
std::vector<double> rhs_for(const DiaHalf<V>& a, const std::vector<double>& u) {
  std::vector<double> b(u.size());
  spmv_rows(a, u.data(), b.data(), 0, a.n);
  return b;
}

template <class V>
void compare_on_fem(const FemGrid& g, double tolerance) {
  const DiaHalf<V> a = fem_poisson_dia<V>(g, 4);
  const std::vector<double> u = fem_poisson_solution(g);
  const std::vector<double> b = std::is_same_v<V, double> ? fem_poisson_rhs(g) : rhs_for(a, u);
  for (const Criterion criterion :
       {Criterion::residual, Criterion::preconditioned_residual, Criterion::error}) {
    CgParams p;
    p.tolerance = tolerance;
    p.criterion = criterion;
    p.solution = u.data();
    std::vector<double> x_cpu(b.size(), nan_value), x_gpu(b.size(), nan_value);
    const CgOutcome cpu = cg_cpu(a, b.data(), x_cpu.data(), p, 4);
    CgOutcome gpu;
    ASSERT_TRUE(gpu_solve(a, b.data(), x_gpu.data(), p, gpu));
    EXPECT_EQ(gpu.status, SWITCHYARD_CG_CONVERGED);
    EXPECT_EQ(cpu.status, SWITCHYARD_CG_CONVERGED);
    EXPECT_NEAR(gpu.iterations, cpu.iterations, 2);
    EXPECT_LE(gpu.error, tolerance);
    EXPECT_LT(max_abs_difference(x_gpu, x_cpu), 1e3 * tolerance);
    EXPECT_LT(max_abs_difference(x_gpu, u), 1e2 * tolerance);
    EXPECT_NEAR(gpu.relative_residual, cpu.relative_residual, 10 * cpu.relative_residual + 1e-15);
  }
}

TEST(CgGpu, FemProblemMatchesTheHostCg) {
  compare_on_fem<double>(FemGrid{64, 64, 64, 1.0, 0.9, 0.8}, 1e-12);
  compare_on_fem<double>(FemGrid{37, 5, 91}, 1e-12);
}

TEST(CgGpu, FloatValuesMatchTheHostCg) { compare_on_fem<float>(FemGrid{48, 40, 32}, 1e-10); }

// Up to 13 lower diagonals the product batches its loads; the last matrix
// has 16, which it takes diagonal by diagonal.
TEST(CgGpu, RandomBandedMatricesMatchTheHostCg) {
  unsigned seed = 7;
  for (const std::vector<int>& offsets : std::vector<std::vector<int>>{
           {1},
           {1, 3, 17, 300},
           {2, 5, 9, 40, 41, 42, 1000, 5000},
           {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597}}) {
    const testing::RefMatrix ref = testing::random_banded_spd(20000, offsets, 0.8, seed++);
    const DiaHalf<double> a = dia_from_lower(testing::lower_of<double>(ref));
    std::vector<double> b(std::size_t(ref.n));
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::sin(double(i));
    CgParams p;
    p.tolerance = 1e-11;
    std::vector<double> x_cpu(b.size(), nan_value), x_gpu(b.size(), nan_value);
    const CgOutcome cpu = cg_cpu(a, b.data(), x_cpu.data(), p, 4);
    CgOutcome gpu;
    ASSERT_TRUE(gpu_solve(a, b.data(), x_gpu.data(), p, gpu));
    EXPECT_EQ(gpu.status, SWITCHYARD_CG_CONVERGED);
    EXPECT_NEAR(gpu.iterations, cpu.iterations, 2);
    EXPECT_LT(max_abs_difference(x_gpu, x_cpu), 1e-8);
  }
}

TEST(CgGpu, MaxIterationsAndBreakdownStatuses) {
  const FemGrid g{30, 30, 30, 1.0, 0.7, 0.5};
  DiaHalf<double> a = fem_poisson_dia<double>(g, 4);
  const std::vector<double> b = fem_poisson_rhs(g);
  std::vector<double> x(b.size(), nan_value);
  CgParams p;
  p.max_iterations = 5;
  CgOutcome o;
  ASSERT_TRUE(gpu_solve(a, b.data(), x.data(), p, o));
  EXPECT_EQ(o.status, SWITCHYARD_CG_MAX_ITERATIONS);
  EXPECT_EQ(o.iterations, 5);

  // Indefinite: flip the sign of a block of diagonal entries without Jacobi.
  p.max_iterations = 1000;
  p.jacobi = false;
  for (int i = 1000; i < 3000; ++i) a.diag[std::size_t(i)] = -a.diag[std::size_t(i)];
  ASSERT_TRUE(gpu_solve(a, b.data(), x.data(), p, o));
  EXPECT_TRUE(o.status == SWITCHYARD_CG_NOT_SPD) << o.status;

  a.lower[12345] = nan_value;
  ASSERT_TRUE(gpu_solve(a, b.data(), x.data(), p, o));
  EXPECT_EQ(o.status, SWITCHYARD_CG_NAN);
}

TEST(CgGpu, PublicApiRoutesLargeSolvesToTheGpu) {
  const FemGrid g{50, 50, 50};
  const DiaHalf<double> a = fem_poisson_dia<double>(g, 4);
  const FormattedMatrix<double> lower = to_dia(a, SWITCHYARD_CG_TRIANGLE);
  const switchyard_cg_matrix m = lower.descriptor();
  const std::vector<double> b = fem_poisson_rhs(g), u = fem_poisson_solution(g);
  std::vector<double> x(b.size(), nan_value);
  switchyard_cg_result r;
  ASSERT_EQ(switchyard_cg_solve(&m, b.data(), x.data(), nullptr, &r), SWITCHYARD_CG_CONVERGED);
  EXPECT_EQ(r.backend, SWITCHYARD_CG_GPU);
  EXPECT_LT(max_abs_difference(x, u), 1e-9);
}

}  // namespace
}  // namespace switchyard::cg

int main(int argc, char** argv) {
  using switchyard::cg::gpu_backend;
  if (!gpu_backend) {
    std::puts("skipped: this build has no gpu route for the CG");
    return 77;
  }
  if (const char* why = gpu_backend->unusable()) {
    std::printf("skipped: %s\n", why);
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
