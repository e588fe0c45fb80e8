// The CG through its C API: the FEM problem in every input format, random
// SPD banded matrices against the reference CG, float values, team sizes,
// and the options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "cg/cg_cpu.hpp"
#include "cg/convert.hpp"
#include "cg/fem_poisson.hpp"
#include "cg/formats_out.hpp"
#include "cg/gpu_backend.hpp"
#include "cg_reference.hpp"
#include "switchyard.h"

namespace switchyard::cg {
namespace {

using testing::lower_of;
using testing::random_banded_spd;
using testing::ref_cg;
using testing::ref_multiply;
using testing::ref_norm;
using testing::RefMatrix;

const double nan_value = std::numeric_limits<double>::quiet_NaN();

switchyard_cg_options cpu_options() {
  switchyard_cg_options o;
  switchyard_cg_options_default(&o);
  o.backend = SWITCHYARD_CG_CPU;
  return o;
}

double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

// A triad is valid in any order: the tests hand it over shuffled.
template <class V>
void shuffle_triad(FormattedMatrix<V>& m, unsigned seed) {
  std::vector<std::size_t> order(m.values.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  FormattedMatrix<V> s = m;
  for (std::size_t k = 0; k < order.size(); ++k) {
    s.ia[k] = m.ia[order[k]];
    s.ja[k] = m.ja[order[k]];
    s.values[k] = m.values[order[k]];
  }
  m = s;
}

// The FEM problem of one grid in every format the API takes.
template <class V>
std::vector<FormattedMatrix<V>> every_format(const DiaHalf<V>& dia) {
  const LowerCsr<V> lower = lower_from_dia(dia, true);
  std::vector<FormattedMatrix<V>> out;
  for (int symmetry : {SWITCHYARD_CG_FULL, SWITCHYARD_CG_TRIANGLE}) {
    out.push_back(to_csr(lower, symmetry, 0));
    out.push_back(to_csr(lower, symmetry, 1));
    out.push_back(to_slap_triad(lower, symmetry));
    shuffle_triad(out.back(), 7u + unsigned(symmetry));
    out.push_back(to_slap_column(lower, symmetry));
    out.push_back(to_dia(dia, symmetry));
  }
  return out;
}

std::string describe(const switchyard_cg_matrix& a) {
  return "format " + std::to_string(a.format) + " symmetry " + std::to_string(a.symmetry) +
         " base " + std::to_string(a.index_base);
}

TEST(CgSolve, FemProblemInEveryFormatReachesTheExactSolution) {
  const FemGrid g{12, 9, 7, 1.0, 0.75, 0.5};
  const DiaHalf<double> dia = fem_poisson_dia<double>(g, 2);
  const std::vector<double> b = fem_poisson_rhs(g), u = fem_poisson_solution(g);
  for (const FormattedMatrix<double>& m : every_format(dia)) {
    const switchyard_cg_matrix a = m.descriptor();
    for (int kernel : {SWITCHYARD_CG_KERNEL_AUTO, SWITCHYARD_CG_KERNEL_CSR}) {
      switchyard_cg_options o = cpu_options();
      o.kernel = kernel;
      std::vector<double> x(b.size(), nan_value);
      switchyard_cg_result r;
      r.status = 99;
      ASSERT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &r), SWITCHYARD_CG_CONVERGED)
          << describe(a);
      EXPECT_EQ(r.status, SWITCHYARD_CG_CONVERGED);
      EXPECT_LE(r.relative_residual, 1e-12) << describe(a);
      EXPECT_GT(r.iterations, 5);
      EXPECT_EQ(r.backend, SWITCHYARD_CG_CPU);
      EXPECT_EQ(r.kernel,
                kernel == SWITCHYARD_CG_KERNEL_CSR ? SWITCHYARD_CG_KERNEL_CSR : SWITCHYARD_CG_KERNEL_DIA)
          << describe(a);
      EXPECT_EQ(r.bad_entry, -1);
      EXPECT_LT(max_abs_difference(x, u), 1e-9) << describe(a);
    }
  }
}

TEST(CgSolve, FloatMatrixValuesWithDoubleVectors) {
  const FemGrid g{10, 10, 10};
  const DiaHalf<float> dia = fem_poisson_dia<float>(g, 1);
  const std::vector<double> b = fem_poisson_rhs(g), u = fem_poisson_solution(g);
  for (const FormattedMatrix<float>& m : every_format(dia)) {
    const switchyard_cg_matrix a = m.descriptor();
    ASSERT_EQ(a.value_type, SWITCHYARD_CG_FLOAT);
    switchyard_cg_options o = cpu_options();
    o.tolerance = 1e-10;
    std::vector<double> x(b.size(), nan_value);
    switchyard_cg_result r;
    ASSERT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &r), SWITCHYARD_CG_CONVERGED)
        << describe(a);
    EXPECT_LE(r.relative_residual, 1e-10);
    // The float matrix is a perturbation of A of relative size 1e-7.
    EXPECT_LT(max_abs_difference(x, u), 1e-4) << describe(a);
  }
}

TEST(CgSolve, RandomBandedMatricesAgreeWithTheReferenceCg) {
  unsigned seed = 100;
  for (const std::vector<int>& offsets :
       std::vector<std::vector<int>>{{1, 2}, {1, 4, 9, 33}, {5, 250}, {2, 3, 600}}) {
    for (int kernel : {SWITCHYARD_CG_KERNEL_DIA, SWITCHYARD_CG_KERNEL_CSR}) {
      const RefMatrix ref = random_banded_spd(1500, offsets, 0.7, seed++);
      std::vector<double> b(static_cast<std::size_t>(ref.n));
      std::mt19937 rng(seed++);
      for (double& e : b) e = std::uniform_real_distribution<double>(-1, 1)(rng);
      std::vector<double> want;
      const int ref_iterations = ref_cg(ref, b, want, 1e-11, 5000);
      const FormattedMatrix<double> m = to_csr(lower_of<double>(ref), SWITCHYARD_CG_FULL, 0);
      const switchyard_cg_matrix a = m.descriptor();
      switchyard_cg_options o = cpu_options();
      o.tolerance = 1e-11;
      o.kernel = kernel;
      std::vector<double> x(b.size(), nan_value);
      switchyard_cg_result r;
      ASSERT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &r), SWITCHYARD_CG_CONVERGED);
      EXPECT_NEAR(r.iterations, ref_iterations, 2);
      EXPECT_EQ(r.kernel, kernel);
      EXPECT_LT(max_abs_difference(x, want), 1e-9 * ref_norm(want));
      // The reported residual is the true one.
      std::vector<double> ax = ref_multiply(ref, x);
      for (std::size_t i = 0; i < ax.size(); ++i) ax[i] = b[i] - ax[i];
      EXPECT_NEAR(r.relative_residual, ref_norm(ax) / ref_norm(b), 1e-3 * r.relative_residual);
    }
  }
}

TEST(CgSolve, EveryTeamSizeGivesTheSameIterations) {
  const FemGrid g{20, 17, 13};
  const DiaHalf<double> dia = fem_poisson_dia<double>(g, 1);
  const CsrFull<double> csr = csr_from_lower(lower_from_dia(dia, true));
  const std::vector<double> b = fem_poisson_rhs(g), u = fem_poisson_solution(g);
  CgParams p;
  p.tolerance = 1e-12;
  std::vector<double> x(b.size(), nan_value);
  const CgOutcome one = cg_cpu(dia, b.data(), x.data(), p, 1);
  ASSERT_EQ(one.status, SWITCHYARD_CG_CONVERGED);
  for (int threads : {2, 3, 5, 8}) {
    std::fill(x.begin(), x.end(), nan_value);
    const CgOutcome dia_run = cg_cpu(dia, b.data(), x.data(), p, threads);
    EXPECT_EQ(dia_run.status, SWITCHYARD_CG_CONVERGED);
    EXPECT_NEAR(dia_run.iterations, one.iterations, 1) << threads;
    EXPECT_LT(max_abs_difference(x, u), 1e-9) << threads;
    std::fill(x.begin(), x.end(), nan_value);
    const CgOutcome csr_run = cg_cpu(csr, b.data(), x.data(), p, threads);
    EXPECT_EQ(csr_run.status, SWITCHYARD_CG_CONVERGED);
    EXPECT_NEAR(csr_run.iterations, one.iterations, 1) << threads;
    EXPECT_LT(max_abs_difference(x, u), 1e-9) << threads;
  }
}

class CgOptions : public ::testing::Test {
 protected:
  const FemGrid g{8, 8, 8};
  const DiaHalf<double> dia = fem_poisson_dia<double>(g, 1);
  const FormattedMatrix<double> m = to_dia(dia, SWITCHYARD_CG_TRIANGLE);
  const switchyard_cg_matrix a = m.descriptor();
  const std::vector<double> b = fem_poisson_rhs(g), u = fem_poisson_solution(g);
};

TEST_F(CgOptions, InitialGuessAtTheSolutionNeedsNoIteration) {
  switchyard_cg_options o = cpu_options();
  o.use_initial_guess = 1;
  o.tolerance = 1e-10;
  std::vector<double> x = u;
  switchyard_cg_result r;
  EXPECT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &r), SWITCHYARD_CG_CONVERGED);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(x, u);
}

TEST_F(CgOptions, InitialGuessIsUsedAndIgnoredAsAsked) {
  switchyard_cg_options o = cpu_options();
  std::vector<double> x(b.size(), nan_value);  // ignored: starts from 0
  switchyard_cg_result from_zero;
  ASSERT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &from_zero), SWITCHYARD_CG_CONVERGED);
  o.use_initial_guess = 1;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = u[i] + 1e-3 * std::sin(double(i));
  switchyard_cg_result from_near;
  ASSERT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &from_near), SWITCHYARD_CG_CONVERGED);
  EXPECT_LT(max_abs_difference(x, u), 1e-9);
  EXPECT_NE(from_near.iterations, from_zero.iterations);
}

TEST_F(CgOptions, ZeroRightHandSideGivesZero) {
  const std::vector<double> zero(b.size(), 0.0);
  std::vector<double> x(b.size(), 3.0);
  switchyard_cg_options o = cpu_options();
  o.use_initial_guess = 1;
  switchyard_cg_result r;
  EXPECT_EQ(switchyard_cg_solve(&a, zero.data(), x.data(), &o, &r), SWITCHYARD_CG_CONVERGED);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(x, zero);
}

TEST_F(CgOptions, MaxIterationsStopsTheSolve) {
  switchyard_cg_options o = cpu_options();
  o.max_iterations = 3;
  std::vector<double> x(b.size(), nan_value);
  switchyard_cg_result r;
  EXPECT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &r), SWITCHYARD_CG_MAX_ITERATIONS);
  EXPECT_EQ(r.iterations, 3);
  EXPECT_GT(r.relative_residual, 1e-6);
  for (double e : x) ASSERT_TRUE(std::isfinite(e));
  o.max_iterations = 0;
  EXPECT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &r), SWITCHYARD_CG_MAX_ITERATIONS);
  EXPECT_EQ(r.iterations, 0);
}

TEST_F(CgOptions, WithoutJacobiItStillConverges) {
  switchyard_cg_options o = cpu_options();
  o.jacobi = 0;
  std::vector<double> x(b.size(), nan_value);
  switchyard_cg_result r;
  EXPECT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &r), SWITCHYARD_CG_CONVERGED);
  EXPECT_LT(max_abs_difference(x, u), 1e-9);
}

TEST_F(CgOptions, NullOptionsAndResultMeanDefaults) {
  std::vector<double> x(b.size(), nan_value);
  EXPECT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), nullptr, nullptr), SWITCHYARD_CG_CONVERGED);
  EXPECT_LT(max_abs_difference(x, u), 1e-9);
}

TEST_F(CgOptions, GpuAskedForWithoutOneRunsOnTheCpu) {
  switchyard_cg_options o = cpu_options();
  o.backend = SWITCHYARD_CG_GPU;
  std::vector<double> x(b.size(), nan_value);
  switchyard_cg_result r;
  EXPECT_EQ(switchyard_cg_solve(&a, b.data(), x.data(), &o, &r), SWITCHYARD_CG_CONVERGED);
  if (!gpu_backend || gpu_backend->unusable()) EXPECT_EQ(r.backend, SWITCHYARD_CG_CPU);
  EXPECT_LT(max_abs_difference(x, u), 1e-9);
}

}  // namespace
}  // namespace switchyard::cg
