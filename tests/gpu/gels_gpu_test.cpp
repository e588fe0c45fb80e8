// The GPU least squares (switchyard::qr::solve_least_squares_gpu) against reference LAPACK's
// xGELS: A's factors keep xGEQRF's contract (tests/unit/tsqr_checks.hpp), the solution and the
// residual's norm per right-hand side are the reference's to rounding, a zero column gives the
// reference's INFO, and a problem xGELS would scale is left untouched. From pageable host
// memory and from managed memory, one TSQR and panels, more reflectors and more right-hand sides
// than one compact-WY block takes. Skipped where there is no CUDA device.

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "fallback.hpp"
#include "qr/gpu/least_squares.hpp"
#include "tsqr_checks.hpp"
#include "skip_without_cuda.hpp"

namespace switchyard::qr {
namespace {

using namespace tsqr::checks;

template <class Fn>
Fn* lapack_symbol(const char* name) {
  void* handle = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
  void* s = handle ? dlsym(handle, name) : nullptr;
  if (!s) std::abort();
  return reinterpret_cast<Fn*>(s);
}

template <class T>
TrtrsFn<T>* reference_trtrs() {
  return lapack_symbol<TrtrsFn<T>>(sizeof(T) == 8 ? "dtrtrs_" : "strtrs_");
}

template <class T>
GelsFn<T>* reference_gels() {
  return lapack_symbol<GelsFn<T>>(sizeof(T) == 8 ? "dgels_" : "sgels_");
}

enum class Memory { kHost, kManaged };

// A copy of host data in managed memory, copied back on request.
template <class T>
class Managed {
 public:
  explicit Managed(const std::vector<T>& host) : size_(host.size()) {
    EXPECT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&data_), sizeof(T) * size_), cudaSuccess);
    std::memcpy(data_, host.data(), sizeof(T) * size_);
  }
  ~Managed() { cudaFree(data_); }
  Managed(const Managed&) = delete;
  Managed& operator=(const Managed&) = delete;
  T* get() const { return data_; }
  std::vector<T> to_host() const { return std::vector<T>(data_, data_ + size_); }

 private:
  T* data_ = nullptr;
  std::size_t size_;
};

template <class T>
struct Solved {
  gpu::Outcome outcome;
  std::vector<T> a, b, tau;
  int info = -1;
};

// Ours on copies of a (ld m + 1) and b (ld m + 2) in `memory`; tau poisoned with NaN.
template <class T>
Solved<T> ours(const Matrix<T>& a, const Matrix<T>& b, Memory memory) {
  Solved<T> s{gpu::Outcome::kFailed, a.data, b.data,
              std::vector<T>(std::size_t(a.n), std::numeric_limits<T>::quiet_NaN())};
  std::string error;
  if (memory == Memory::kHost) {
    s.outcome = gpu::gels_gpu(a.m, a.n, b.n, s.a.data(), a.ld, s.b.data(), b.ld, s.tau.data(),
                              reference_trtrs<T>(), &s.info, error);
  } else {
    Managed<T> ma(a.data), mb(b.data);
    s.outcome = gpu::gels_gpu(a.m, a.n, b.n, ma.get(), a.ld, mb.get(), b.ld, s.tau.data(),
                              reference_trtrs<T>(), &s.info, error);
    s.a = ma.to_host();
    s.b = mb.to_host();
  }
  EXPECT_NE(s.outcome, gpu::Outcome::kFailed) << error;
  return s;
}

template <class T>
Solved<T> reference(const Matrix<T>& a, const Matrix<T>& b) {
  Solved<T> s{gpu::Outcome::kSolved, a.data, b.data, {}};
  const int lwork = 64 * (a.n + b.n) + a.n;
  std::vector<T> work(static_cast<std::size_t>(lwork));
  reference_gels<T>()("N", &a.m, &a.n, &b.n, s.a.data(), &a.ld, s.b.data(), &b.ld, work.data(),
                      &lwork, &s.info, 1);
  return s;
}

// LIN's least-squares measure (xQRT17's): the residual r = b - A x of each right-hand side is
// orthogonal to A's columns up to rounding, ||A^T r|| / (||A|| (||A|| ||x|| + ||b||) m eps),
// whatever A's condition.
template <class T>
double orthogonality_ratio(const Matrix<T>& a, const Matrix<T>& b, const std::vector<T>& x, int ldx,
                           int column) {
  const int m = a.m, n = a.n;
  long double a_norm = 0, b_norm = 0, x_norm = 0, at_r = 0;
  std::vector<long double> r(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) r[i] = b(i, column);
  for (int j = 0; j < n; ++j) {
    const long double xj = x[j + std::size_t(column) * ldx];
    x_norm += xj * xj;
    for (int i = 0; i < m; ++i) {
      r[i] -= (long double)a(i, j) * xj;
      a_norm += (long double)a(i, j) * a(i, j);
    }
  }
  for (int i = 0; i < m; ++i) b_norm += (long double)b(i, column) * b(i, column);
  for (int j = 0; j < n; ++j) {
    long double dot = 0;
    for (int i = 0; i < m; ++i) dot += (long double)a(i, j) * r[i];
    at_r += dot * dot;
  }
  const long double scale = std::sqrt(a_norm) *
                            (std::sqrt(a_norm) * std::sqrt(x_norm) + std::sqrt(b_norm)) * m *
                            unit_roundoff<T>();
  return scale == 0 ? 0.0 : double(std::sqrt(at_r) / scale);
}

// `well_conditioned`: the solutions and the residuals' norms are also the reference's to
// rounding (of an ill-conditioned A, both solutions are as good, and far apart).
template <class T>
void check(const Matrix<double>& input, int nrhs, Memory memory, unsigned seed,
           bool well_conditioned = true) {
  SCOPED_TRACE(::testing::Message() << input.m << " x " << input.n << ", " << nrhs << " rhs, "
                                    << (memory == Memory::kHost ? "host" : "managed"));
  const Matrix<T> a = convert<T>(input, input.m + 1);
  const Matrix<T> b = convert<T>(gaussian(input.m, nrhs, seed), input.m + 2);
  const Solved<T> got = ours(a, b, memory);
  const Solved<T> want = reference(a, b);
  ASSERT_EQ(got.outcome, gpu::Outcome::kSolved);
  ASSERT_EQ(got.info, want.info);
  // Rows past m are left alone.
  for (int j = 0; j < a.n; ++j) EXPECT_EQ(got.a[a.m + std::size_t(j) * a.ld], a(a.m, j));
  for (int j = 0; j < nrhs; ++j) {
    for (int i = a.m; i < b.ld; ++i) EXPECT_EQ(got.b[i + std::size_t(j) * b.ld], b(i, j));
  }
  Matrix<T> factors(a.m, a.n);
  for (int j = 0; j < a.n; ++j) {
    std::copy_n(&got.a[std::size_t(j) * a.ld], a.m, &factors(0, j));
  }
  expect_lapack_contract(convert<T>(input, input.m), Factored<T>{factors, got.tau});
  if (want.info != 0) return;
  for (int j = 0; j < nrhs; ++j) {
    EXPECT_LT(orthogonality_ratio(a, b, got.b, b.ld, j), 30.0) << "column " << j;
  }
  if (!well_conditioned) return;
  const double tolerance = 300 * std::sqrt(double(a.m)) * unit_roundoff<T>();
  for (int j = 0; j < nrhs; ++j) {
    const T* x = &got.b[std::size_t(j) * b.ld];
    const T* y = &want.b[std::size_t(j) * b.ld];
    double scale = 0, residual_got = 0, residual_want = 0;
    for (int i = 0; i < a.n; ++i) scale = std::max(scale, std::fabs(double(y[i])));
    for (int i = 0; i < a.n; ++i) {
      EXPECT_NEAR(x[i], y[i], tolerance * scale) << "X(" << i << ", " << j << ")";
    }
    for (int i = a.n; i < a.m; ++i) {
      residual_got += double(x[i]) * x[i];
      residual_want += double(y[i]) * y[i];
    }
    EXPECT_NEAR(std::sqrt(residual_got), std::sqrt(residual_want),
                tolerance * std::sqrt(residual_want));
  }
}

template <class T>
class GelsGpu : public ::testing::Test {};

using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GelsGpu, Precisions);

TYPED_TEST(GelsGpu, SolvesAsReference) {
  SKIP_WITHOUT_CUDA();
  for (Memory memory : {Memory::kHost, Memory::kManaged}) {
    check<TypeParam>(gaussian(50000, 20, 1), 1, memory, 2);  // one TSQR
    check<TypeParam>(gaussian(40000, 48, 3), 3, memory, 4);  // panels
    check<TypeParam>(gaussian(30000, 200, 5), 70, memory,
                     6);                                   // blocks of 64 reflectors and columns
    check<TypeParam>(gaussian(300, 16, 7), 2, memory, 8);  // one block
  }
  check<TypeParam>(with_condition(40000, 24, 1e6, 9), 2, Memory::kHost, 10, false);
}

// A zero column leaves R(j, j) exactly zero: xTRTRS's INFO, as from the reference.
TYPED_TEST(GelsGpu, SingularRGivesReferenceInfo) {
  SKIP_WITHOUT_CUDA();
  check<TypeParam>(with_zero_columns(20000, 12, {5}, 11), 2, Memory::kHost, 12);
  check<TypeParam>(with_zero_columns(20000, 40, {0, 33}, 13), 1, Memory::kManaged, 14);
}

// A tiny A (largest magnitude below the safe minimum over epsilon), a huge B, a zero A: xGELS
// would scale or return at once; nothing is written and the fallback takes it.
TYPED_TEST(GelsGpu, ProblemsToScaleAreLeftToTheFallback) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const T tiny = std::numeric_limits<T>::min() * 4, huge = std::numeric_limits<T>::max() / 4;
  Matrix<T> a = convert<T>(gaussian(5000, 8, 15), 5000);
  Matrix<T> b = convert<T>(gaussian(5000, 2, 16), 5000);
  for (int pass = 0; pass < 3; ++pass) {
    SCOPED_TRACE(pass);
    Matrix<T> sa = a, sb = b;
    if (pass == 0) std::for_each(sa.data.begin(), sa.data.end(), [&](T& x) { x *= tiny; });
    if (pass == 1) sb(17, 1) = huge;
    if (pass == 2) std::fill(sa.data.begin(), sa.data.end(), T(0));
    const Matrix<T> before_a = sa, before_b = sb;
    std::vector<T> tau(8, T(-3));
    int info = -7;
    std::string error;
    EXPECT_EQ(gpu::gels_gpu(sa.m, sa.n, sb.n, sa.ptr(), sa.ld, sb.ptr(), sb.ld, tau.data(),
                            reference_trtrs<T>(), &info, error),
              gpu::Outcome::kNeedsScaling);
    EXPECT_EQ(sa.data, before_a.data);
    EXPECT_EQ(sb.data, before_b.data);
    EXPECT_EQ(info, -7);
    EXPECT_EQ(tau, std::vector<T>(8, T(-3)));
  }
}

}  // namespace
}  // namespace switchyard::qr
