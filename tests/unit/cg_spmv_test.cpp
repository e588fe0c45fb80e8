// Host SpMV (half-storage DIA and full CSR), the format conversions and the
// FEM generator, against the straightforward reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cg/convert.hpp"
#include "cg/fem_poisson.hpp"
#include "cg/spmv_cpu.hpp"
#include "cg_reference.hpp"

namespace switchyard::cg {
namespace {

using testing::lower_of;
using testing::random_banded_spd;
using testing::ref_multiply;
using testing::ref_of;
using testing::RefMatrix;

const double nan_value = std::numeric_limits<double>::quiet_NaN();

std::vector<double> random_vector(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& e : v) e = u(rng);
  return v;
}

// y = A x through the kernel, in row ranges that split chunks and the band
// edges, on a poisoned y; the returned sums add up to x'y.
template <class Matrix>
std::vector<double> product_in_pieces(const Matrix& a, const std::vector<double>& x,
                                      double& dot) {
  std::vector<double> y(x.size(), nan_value);
  const Index n = a.n;
  const Index cuts[] = {0, 1, 7, n / 3, n / 3 + kDiaChunkRows + 5, n - 2, n};
  dot = 0.0;
  for (std::size_t c = 0; c + 1 < std::size(cuts); ++c) {
    const Index r0 = std::min(cuts[c], n), r1 = std::min(cuts[c + 1], n);
    if (r0 < r1) dot += spmv_rows(a, x.data(), y.data(), r0, r1);
  }
  return y;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  double scale = 0.0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * scale) << "row " << i;
  }
}

double dot_of(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

TEST(CgSpmv, HalfDiaAndCsrMatchReferenceOnRandomBandedMatrices) {
  const std::vector<std::vector<int>> bands = {{1}, {1, 2, 5, 17, 40}, {3, 64, 700}, {1, 1199}};
  unsigned seed = 1;
  for (const auto& offsets : bands) {
    for (double density : {1.0, 0.6}) {
      const RefMatrix ref = random_banded_spd(1200, offsets, density, seed++);
      const LowerCsr<double> lower = lower_of<double>(ref);
      const std::vector<double> x = random_vector(ref.n, seed++);
      const std::vector<double> want = ref_multiply(ref, x);
      double dot = 0.0;
      const std::vector<double> dia_y = product_in_pieces(dia_from_lower(lower), x, dot);
      expect_close(dia_y, want, 1e-14);
      EXPECT_NEAR(dot, dot_of(x, want), 1e-12 * std::abs(dot_of(x, want)) + 1e-12);
      const std::vector<double> csr_y = product_in_pieces(csr_from_lower(lower), x, dot);
      expect_close(csr_y, want, 1e-14);
    }
  }
}

TEST(CgSpmv, FloatValuesWithDoubleVectors) {
  const RefMatrix ref = random_banded_spd(900, {1, 3, 30}, 0.8, 11);
  const LowerCsr<float> lower = lower_of<float>(ref);
  const RefMatrix rounded = ref_of(lower);  // the float values, exactly
  const std::vector<double> x = random_vector(ref.n, 12);
  double dot = 0.0;
  expect_close(product_in_pieces(dia_from_lower(lower), x, dot), ref_multiply(rounded, x), 1e-14);
  expect_close(product_in_pieces(csr_from_lower(lower), x, dot), ref_multiply(rounded, x), 1e-14);
}

TEST(CgSpmv, LowerCsrSurvivesTheRoundTripThroughDia) {
  const RefMatrix ref = random_banded_spd(500, {2, 9, 31}, 0.5, 5);
  const LowerCsr<double> lower = lower_of<double>(ref);
  const LowerCsr<double> back = lower_from_dia(dia_from_lower(lower), true);
  EXPECT_EQ(back.row_ptr, lower.row_ptr);
  EXPECT_EQ(back.col, lower.col);
  EXPECT_EQ(back.val, lower.val);
}

TEST(CgFem, GeneratorHasTheQ1StructureAndTheExactSolution) {
  const FemGrid g{7, 6, 5};
  const DiaHalf<double> a = fem_poisson_dia<double>(g, 1);
  ASSERT_EQ(a.n, 7 * 6 * 5);
  // nx = 7, nx ny = 42: offsets 1, nx - 1 .. nx + 1, nx ny - nx - 1 .. nx ny + nx + 1.
  const std::vector<int> want_offsets = {1, 6, 7, 8, 34, 35, 36, 41, 42, 43, 48, 49, 50};
  EXPECT_EQ(a.offsets, want_offsets);
  // Interior rows couple to all 27 neighbours with the Q1 Laplacian's
  // entries (h = 1/6, 1/5, 1/4 make them differ by direction).
  const RefMatrix ref = ref_of(lower_from_dia(a, true));
  const int interior = 3 + 7 * (2 + 6 * 2);
  EXPECT_EQ(ref.rows[std::size_t(interior)].size(), 27u);
  for (int i = 0; i < a.n; ++i) {
    double row_sum = 0.0;
    for (const auto& [j, v] : ref.rows[std::size_t(i)]) row_sum += v;
    // Constants are in the kernel of the Neumann operator: rows away from
    // the Dirichlet face sum to zero.
    if (i % 7 > 1) EXPECT_NEAR(row_sum, 0.0, 1e-13) << "row " << i;
  }
  const std::vector<double> u = fem_poisson_solution(g);
  const std::vector<double> b = fem_poisson_rhs(g);
  double dot = 0.0;
  expect_close(product_in_pieces(a, u, dot), b, 1e-13);
  expect_close(ref_multiply(ref, u), b, 1e-13);
}

TEST(CgFem, ThreadsBuildTheSameMatrixBitForBit) {
  const FemGrid g{9, 4, 11, 2.0, 1.0, 0.5};
  const DiaHalf<double> one = fem_poisson_dia<double>(g, 1);
  const DiaHalf<double> three = fem_poisson_dia<double>(g, 3);
  EXPECT_EQ(one.diag, three.diag);
  EXPECT_EQ(one.lower, three.lower);
  EXPECT_EQ(one.offsets, three.offsets);
}

TEST(CgFem, SmallestGridsShareOffsetsWithoutLosingEntries) {
  // nx = ny = 2: different neighbour kinds share offsets.
  const FemGrid g{2, 2, 3};
  const DiaHalf<double> a = fem_poisson_dia<double>(g, 1);
  const RefMatrix ref = ref_of(lower_from_dia(a, false));
  double dot = 0.0;
  expect_close(product_in_pieces(a, fem_poisson_solution(g), dot), fem_poisson_rhs(g), 1e-13);
  EXPECT_EQ(ref.n, 12);
}

TEST(CgKernelChoice, DiaForTheFemMatrixCsrForAScatteredBand) {
  // Unequal spacings: on cubes the Q1 Laplacian's face couplings vanish.
  const DiaHalf<double> fem = fem_poisson_dia<double>(FemGrid{10, 10, 10, 1.0, 0.8, 0.6}, 1);
  const KernelChoice c = choose_kernel(lower_from_dia(fem, true), kDefaultDiaMaxRatio, nullptr);
  EXPECT_EQ(c.kernel, Kernel::dia);
  EXPECT_EQ(c.ndiag, 13);
  EXPECT_LT(c.dia_bytes, 0.5 * c.csr_bytes);  // 0.37 in the interior, more near boundaries

  std::vector<int> scattered;
  for (int m = 1; m < 400; m += 7) scattered.push_back(m);
  const RefMatrix sparse = random_banded_spd(1000, scattered, 0.05, 3);
  const LowerCsr<double> lower = lower_of<double>(sparse);
  const KernelChoice s = choose_kernel(lower, kDefaultDiaMaxRatio, nullptr);
  EXPECT_EQ(s.kernel, Kernel::csr);
  const Kernel forced = Kernel::dia;
  EXPECT_EQ(choose_kernel(lower, kDefaultDiaMaxRatio, &forced).kernel, Kernel::dia);
}

}  // namespace
}  // namespace switchyard::cg
