// The GPU xORGQR and xORMQR, in one compact-WY block and in several, against reference LAPACK, on
// reflectors from the reference xGEQRF: the same Q, the same Q C and Q^T C up to rounding, with
// LAPACK's LIN measures on the formed Q; from host memory (streamed) and from device memory (in
// place), with rows past m poisoned and checked untouched; and both split over several devices
// (split_apply.hpp: two and three shares of one device, every device where there are two or
// more), bit-identical from run to run. Skipped where there is no CUDA device.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "device_lists.hpp"
#include "qr/gpu/drivers.hpp"
#include "qr/gpu/split_apply.hpp"
#include "skip_without_cuda.hpp"
#include "tsqr_checks.hpp"

namespace switchyard::qr {
namespace {

using namespace tsqr::checks;

[[maybe_unused]] const auto* const kPrintWorstRatios =
    ::testing::AddGlobalTestEnvironment(new PrintWorstRatios);

template <class T>
constexpr T kPoison = T(-7.25e3);

enum class Residence { host, device, managed };

// A column-major matrix held where the test says; rows m..ld-1 hold kPoison.
template <class T>
class Placed {
 public:
  Placed(const Matrix<T>& a, Residence where) : host_(a), where_(where) {
    for (int j = 0; j < a.n; ++j)
      for (int i = a.m; i < a.ld; ++i) host_(i, j) = kPoison<T>;
    void** const p = reinterpret_cast<void**>(&device_);
    if (where_ != Residence::host) {
      EXPECT_EQ(
          where_ == Residence::device ? cudaMalloc(p, bytes()) : cudaMallocManaged(p, bytes()),
          cudaSuccess);
      EXPECT_EQ(cudaMemcpy(device_, host_.ptr(), bytes(), cudaMemcpyDefault), cudaSuccess);
    }
  }
  ~Placed() { cudaFree(device_); }
  Placed(const Placed&) = delete;
  Placed& operator=(const Placed&) = delete;
  T* get() { return device_ ? device_ : host_.ptr(); }
  // The matrix now, with the poisoned rows checked.
  Matrix<T> result() {
    if (device_) {
      EXPECT_EQ(cudaMemcpy(host_.ptr(), device_, bytes(), cudaMemcpyDefault), cudaSuccess);
    }
    for (int j = 0; j < host_.n; ++j)
      for (int i = host_.m; i < host_.ld; ++i) {
        if (host_(i, j) != kPoison<T>) {
          ADD_FAILURE() << "row " << i << " past m written in column " << j;
          return host_;
        }
      }
    return host_;
  }

 private:
  std::size_t bytes() const { return sizeof(T) * host_.data.size(); }
  Matrix<T> host_;
  Residence where_;
  T* device_ = nullptr;
};

// A matrix factored by the reference xGEQRF, with ld = m + pad.
template <class T>
struct Factored {
  Matrix<T> a;
  Matrix<T> v;
  std::vector<T> tau;
};

template <class T>
Factored<T> factored(const Matrix<double>& input, int pad) {
  const Matrix<T> a = convert<T>(input, input.m + pad);
  Matrix<T> v = a;
  std::vector<T> tau = reference_geqrf(v);
  return {a, v, tau};
}

template <class T>
double max_difference(const Matrix<T>& x, const Matrix<T>& y) {
  double worst = 0;
  for (int j = 0; j < x.n; ++j)
    for (int i = 0; i < x.m; ++i) {
      const double d = std::fabs(double(x(i, j)) - double(y(i, j)));
      if (!(d <= worst)) worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
    }
  return worst;
}

// ||x - y||_1 / (m eps ||c||_1), as xQRT03 judges op(Q) C (0 when c is 0).
template <class T>
double ratio_to_c(const Matrix<T>& x, const Matrix<T>& y, const Matrix<T>& c) {
  double difference = 0, c_norm = 0;
  for (int j = 0; j < c.n; ++j) {
    double column_difference = 0, column = 0;
    for (int i = 0; i < c.m; ++i) {
      column_difference += std::fabs(double(x(i, j)) - double(y(i, j)));
      column += std::fabs(double(c(i, j)));
    }
    if (std::isnan(column_difference)) return std::numeric_limits<double>::infinity();
    difference = std::max(difference, column_difference);
    c_norm = std::max(c_norm, column);
  }
  return c_norm == 0 ? 0 : difference / (c.m * unit_roundoff<T>() * c_norm);
}

// Reference xORGQR of f's reflectors (k of them): Q's first n columns.
template <class T>
Matrix<T> reference_q(const Factored<T>& f, int k) {
  Matrix<T> q = f.v;
  const int lwork = 64 * q.n;
  std::vector<T> work(static_cast<std::size_t>(lwork));
  int info = 0;
  Reference<T>::orgqr()(&q.m, &q.n, &k, q.ptr(), &q.ld, f.tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info, 0);
  return q;
}

// Reference xORMQR (SIDE = 'L') of f's reflectors on c: op(Q) C.
template <class T>
Matrix<T> reference_apply(const Factored<T>& f, char trans, const Matrix<T>& c) {
  Matrix<T> out = c;
  const int lwork = 64 * c.n, k = f.v.n;
  std::vector<T> work(static_cast<std::size_t>(lwork));
  int info = 0;
  const char side = 'L';
  Reference<T>::ormqr()(&side, &trans, &out.m, &out.n, &k, f.v.ptr(), &f.v.ld, f.tau.data(),
                        out.ptr(), &out.ld, work.data(), &lwork, &info, 1, 1);
  EXPECT_EQ(info, 0);
  return out;
}

template <class T>
class QrApplyGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(QrApplyGpu, Precisions);

struct Case {
  std::string name;
  Matrix<double> a;
  int k;  // reflectors used (k <= n)
};

std::vector<Case> form_q_cases() {
  return {{"random 70000x64", gaussian(70000, 64, 1), 64},
          {"random 2049x64 (one row past a block)", gaussian(2049, 64, 2), 64},
          {"random 40000x33, k = 20", gaussian(40000, 33, 3), 20},
          {"graded 30000x24", graded(30000, 24, 1, 4), 24},
          {"zero columns 20000x16", with_zero_columns(20000, 16, {0, 5, 15}, 5), 16},
          {"upper triangular 5000x8 (tau = 0)", upper_triangular(5000, 8, 6), 8},
          {"square 64x64", gaussian(64, 64, 7), 64},
          {"single column 100000x1", gaussian(100000, 1, 8), 1},
          {"random 40000x128 (two groups)", gaussian(40000, 128, 9), 128},
          {"random 20000x200, k = 197 (four groups)", gaussian(20000, 200, 10), 197},
          {"random 30000x256", gaussian(30000, 256, 11), 256},
          {"random 5000x100, k = 70", gaussian(5000, 100, 12), 70},
          {"zero columns 20000x130", with_zero_columns(20000, 130, {3, 64, 129}, 13), 130},
          {"square 150x150", gaussian(150, 150, 14), 150}};
}

// Q from the GPU equals reference xORGQR's up to rounding, is orthonormal, and with the
// reference R reproduces A: LAPACK's LIN measures under their threshold of 30.
TYPED_TEST(QrApplyGpu, FormQMatchesReferenceOrgqr) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const double eps = unit_roundoff<T>();
  for (const Case& c : form_q_cases()) {
    for (Residence where : {Residence::host, Residence::device}) {
      SCOPED_TRACE(c.name + (where == Residence::host ? ", host" : ", device"));
      const Factored<T> f = factored<T>(c.a, 3);
      const int m = f.v.m, n = f.v.n;
      const Matrix<T> expected = reference_q(f, c.k);
      Placed<T> placed(f.v, where);
      std::string error;
      ASSERT_TRUE(gpu::orgqr_gpu(m, n, c.k, placed.get(), f.v.ld, f.tau.data(), error)) << error;
      const Matrix<T> q = placed.result();
      EXPECT_LE(max_difference(q, expected), 32.0 * c.k * eps);
      const double orthogonality = double(one_norm(identity_minus_qtq(q)) / m / eps);
      EXPECT_LT(orthogonality, 30.0);
      note_ratio<T>("orgqr |I - Q'Q| / (m eps)", orthogonality);
      if (c.k == n) {
        const double residual = ratio_to_a(f.a, f.a, q_times_r(q, r_factor(f.v)));
        EXPECT_LT(residual, 30.0);
        note_ratio<T>("orgqr |A - QR| / (|A| m eps)", residual);
      }
    }
  }
}

// Q C and Q^T C from the GPU equal reference xORMQR's up to rounding (xQRT03's measure under
// LAPACK's threshold of 30), for V and C each in host or device memory; up to the route's
// widest, 256 reflectors on 256 columns of C.
TYPED_TEST(QrApplyGpu, ApplyQMatchesReferenceOrmqr) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  struct Shape {
    int m, k, nc;
  };
  for (const Shape& s :
       {Shape{70000, 64, 1}, Shape{70000, 64, 64}, Shape{30000, 10, 5}, Shape{2055, 33, 17},
        Shape{64, 64, 3}, Shape{40000, 128, 3}, Shape{30000, 200, 100}, Shape{20000, 70, 130},
        Shape{20000, 30, 150}, Shape{256, 256, 5}, Shape{2055, 130, 70}, Shape{5000, 256, 256}}) {
    const Factored<T> f = factored<T>(gaussian(s.m, s.k, unsigned(s.m + s.k)), 2);
    const Matrix<T> c = convert<T>(gaussian(s.m, s.nc, 99), s.m + 5);
    for (char trans : {'N', 'T'}) {
      const Matrix<T> expected = reference_apply(f, trans, c);
      for (Residence v_where : {Residence::host, Residence::device}) {
        for (Residence c_where : {Residence::host, Residence::device}) {
          SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + ", " +
                       std::to_string(s.nc) + " columns, trans " + trans + ", V on " +
                       (v_where == Residence::host ? "host" : "device") + ", C on " +
                       (c_where == Residence::host ? "host" : "device"));
          Placed<T> v(f.v, v_where);
          Placed<T> placed_c(c, c_where);
          std::string error;
          ASSERT_TRUE(gpu::ormqr_gpu(trans == 'T', s.m, s.nc, s.k, v.get(), f.v.ld, f.tau.data(),
                                     placed_c.get(), c.ld, error))
              << error;
          const double ratio = ratio_to_c(placed_c.result(), expected, c);
          EXPECT_LT(ratio, 30.0);
          note_ratio<T>("ormqr |QC - QC_ref| / (m eps |C|)", ratio);
          EXPECT_LE(max_difference(v.result(), f.v), 0.0) << "V changed";
        }
      }
    }
  }
}

// ---- Split over several devices -------------------------------------------------------

// Every device list, with the matrices in host memory (streamed to the devices) and in managed
// memory (worked on in place, each device on its rows).
std::vector<std::pair<std::vector<int>, Residence>> split_placements() {
  std::vector<std::pair<std::vector<int>, Residence>> placements;
  for (const std::vector<int>& devices : test::device_lists()) {
    placements.push_back({devices, Residence::host});
    placements.push_back({devices, Residence::managed});
  }
  return placements;
}
const char* named(Residence where) {
  return where == Residence::host     ? ", host"
         : where == Residence::device ? ", device"
                                      : ", managed";
}

// Shapes whose shares end in a last share of one row, of part of a row block, and of several
// blocks; k below n; tau = 0 columns; a single reflector.
std::vector<Case> split_form_q_cases() {
  return {{"random 70000x64", gaussian(70000, 64, 21), 64},
          {"random 513x16 (a last share of one row)", gaussian(513, 16, 22), 16},
          {"random 40000x33, k = 20", gaussian(40000, 33, 23), 20},
          {"zero columns 20000x16", with_zero_columns(20000, 16, {0, 5, 15}, 25), 16},
          {"single column 100000x1", gaussian(100000, 1, 28), 1}};
}

TYPED_TEST(QrApplyGpu, SplitFormQMatchesReferenceOrgqr) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const double eps = unit_roundoff<T>();
  for (const Case& c : split_form_q_cases()) {
    const Factored<T> f = factored<T>(c.a, 3);
    const int m = f.v.m, n = f.v.n;
    const Matrix<T> expected = reference_q(f, c.k);
    for (const auto& [devices, where] : split_placements()) {
      SCOPED_TRACE(c.name + ", " + test::named(devices) + named(where));
      ASSERT_TRUE(gpu::apply_splits(devices, m, c.k, n));
      std::vector<Matrix<T>> runs;
      for (int run = 0; run < 2; ++run) {
        Placed<T> placed(f.v, where);
        std::string error;
        ASSERT_TRUE(gpu::orgqr_split(devices, m, n, c.k, placed.get(), f.v.ld, f.tau.data(), error))
            << error;
        runs.push_back(placed.result());
      }
      EXPECT_TRUE(runs[0].data == runs[1].data) << "two runs differ";
      const Matrix<T>& q = runs[0];
      EXPECT_LE(max_difference(q, expected), 32.0 * c.k * eps);
      const double orthogonality = double(one_norm(identity_minus_qtq(q)) / m / eps);
      EXPECT_LT(orthogonality, 30.0);
      note_ratio<T>("split orgqr |I - Q'Q| / (m eps)", orthogonality);
    }
  }
}

TYPED_TEST(QrApplyGpu, SplitApplyQMatchesReferenceOrmqr) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  struct Shape {
    int m, k, nc;
  };
  for (const Shape& s :
       {Shape{70000, 48, 16}, Shape{30000, 10, 5}, Shape{4097, 33, 1}, Shape{100000, 1, 63}}) {
    const Factored<T> f = factored<T>(gaussian(s.m, s.k, unsigned(s.m + s.k)), 2);
    const Matrix<T> c = convert<T>(gaussian(s.m, s.nc, 98), s.m + 5);
    for (char trans : {'N', 'T'}) {
      const Matrix<T> expected = reference_apply(f, trans, c);
      for (const auto& [devices, where] : split_placements()) {
        SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + ", " + std::to_string(s.nc) +
                     " columns, trans " + trans + ", " + test::named(devices) + named(where));
        ASSERT_TRUE(gpu::apply_splits(devices, s.m, s.k, s.k + s.nc));
        std::vector<Matrix<T>> runs;
        for (int run = 0; run < 2; ++run) {
          Placed<T> v(f.v, where);
          Placed<T> placed_c(c, where);
          std::string error;
          ASSERT_TRUE(gpu::ormqr_split(devices, trans == 'T', s.m, s.nc, s.k, v.get(), f.v.ld,
                                       f.tau.data(), placed_c.get(), c.ld, error))
              << error;
          runs.push_back(placed_c.result());
          EXPECT_LE(max_difference(v.result(), f.v), 0.0) << "V changed";
        }
        EXPECT_TRUE(runs[0].data == runs[1].data) << "two runs differ";
        const double ratio = ratio_to_c(runs[0], expected, c);
        EXPECT_LT(ratio, 30.0);
        note_ratio<T>("split ormqr |QC - QC_ref| / (m eps |C|)", ratio);
      }
    }
  }
}

TEST(SplitApplyRules, OneBlockAndAShareOfAtLeastOneRowForEachDevice) {
  const std::vector<int> two = {0, 0}, three = {0, 0, 0}, one = {0};
  EXPECT_TRUE(gpu::apply_splits(two, 70000, 64, 64));
  // Shares are whole TSQR leaf blocks (256 rows), as the split xGEQRF cuts them.
  EXPECT_TRUE(gpu::apply_splits(two, 4097, 16, 16));    // shares of 2304 and 1793 rows
  EXPECT_TRUE(gpu::apply_splits(two, 257, 16, 16));     // 256 and 1
  EXPECT_FALSE(gpu::apply_splits(two, 256, 16, 16));    // one share of 256 takes it all
  EXPECT_TRUE(gpu::apply_splits(three, 513, 32, 48));   // 256, 256 and 1
  EXPECT_FALSE(gpu::apply_splits(three, 512, 32, 48));  // the third share has no rows
  EXPECT_FALSE(gpu::apply_splits(one, 70000, 64, 64));
  EXPECT_FALSE(gpu::apply_splits(two, 70000, 64, 65));  // past one block
  EXPECT_FALSE(gpu::apply_splits(two, 70000, 65, 65));
  EXPECT_FALSE(gpu::apply_splits(two, 70000, 0, 16));
}

// Invalid arguments are refused before anything runs: A and C as given.
TYPED_TEST(QrApplyGpu, SplitRefusesWithoutTouching) {
  SKIP_WITHOUT_CUDA();
  using T = TypeParam;
  const Factored<T> f = factored<T>(gaussian(10000, 8, 31), 0);
  Matrix<T> a = f.v;
  std::string error;
  EXPECT_FALSE(gpu::orgqr_split({0, 0}, a.m, 80, 8, a.ptr(), a.ld, f.tau.data(), error));
  EXPECT_FALSE(gpu::orgqr_split({0, 0}, a.m, 8, 8, a.ptr(), a.m - 1, f.tau.data(), error));
  EXPECT_TRUE(a.data == f.v.data);
  Matrix<T> c = convert<T>(gaussian(10000, 60, 32), 10000);
  const Matrix<T> c0 = c;
  EXPECT_FALSE(gpu::ormqr_split({0, 0}, true, c.m, 60, 8, a.ptr(), a.ld, f.tau.data(), c.ptr(),
                                c.ld, error));  // k + nc past one block
  EXPECT_TRUE(c.data == c0.data);
}

}  // namespace
}  // namespace switchyard::qr
