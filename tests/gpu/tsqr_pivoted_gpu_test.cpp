// The GPU pivoted TSQR (switchyard::qr::gpu::geqp3_gpu) against reference LAPACK's
// xGEQP3, judged as the CPU one is (tests/unit/pivoted_checks.hpp), from pageable host memory
// (streamed) and from managed memory (in place), at widths up to the route's 64 columns (one
// TSQR past the 32 columns where the unpivoted QR turns to panels) and with enough rows for
// several levels of the tree. Skipped where there is no CUDA device.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "pivoted_checks.hpp"
#include "qr/gpu/drivers.hpp"
#include "skip_without_cuda.hpp"

namespace switchyard::tsqr {
namespace {

using namespace checks;

constexpr int kExtraRows = 3;  // lda - m: rows the factorization must leave alone
constexpr float kPadding = -99;

enum class Memory { kHost, kManaged };

// Our factorization on a copy of `input` (leading dimension m + kExtraRows, padding checked),
// in `memory`; tau and WORK(1) poisoned with NaN first.
template <class T>
Pivoted<T> ours(const Matrix<double>& input, std::vector<int> jpvt, Memory memory) {
  Matrix<T> a = convert<T>(input, input.m + kExtraRows);
  for (int j = 0; j < a.n; ++j) std::fill(&a(0, j) + a.m, &a(0, j) + a.ld, T(kPadding));
  std::vector<T> tau(std::size_t(a.n), std::numeric_limits<T>::quiet_NaN());
  T work1 = std::numeric_limits<T>::quiet_NaN();
  T* managed = nullptr;
  T* where = a.ptr();
  if (memory == Memory::kManaged) {
    EXPECT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&managed), sizeof(T) * a.data.size()),
              cudaSuccess);
    std::memcpy(managed, a.ptr(), sizeof(T) * a.data.size());
    where = managed;
  }
  std::string error;
  EXPECT_TRUE(qr::gpu::geqp3_gpu(a.m, a.n, where, a.ld, jpvt.data(), tau.data(),
                                 Reference<T>::table(), &work1, error))
      << error;
  if (managed) {
    std::memcpy(a.ptr(), managed, sizeof(T) * a.data.size());
    cudaFree(managed);
  }
  for (int j = 0; j < a.n; ++j) {
    EXPECT_TRUE(std::all_of(&a(0, j) + a.m, &a(0, j) + a.ld, [](T x) { return x == kPadding; }));
  }
  return {{convert<T>(a, a.m), tau}, jpvt, work1};
}

template <class T>
void check(const Matrix<double>& input, Expect expect, Memory memory,
           std::vector<int> jpvt_in = {}) {
  SCOPED_TRACE(::testing::Message() << input.m << " x " << input.n << ", "
                                    << (memory == Memory::kHost ? "host" : "managed")
                                    << " memory, fixed " << fixed_count(jpvt_in));
  if (jpvt_in.empty()) jpvt_in.assign(std::size_t(input.n), 0);
  expect_pivoted_qr(input, expect, jpvt_in, ours<T>(input, jpvt_in, memory));
}

template <class T>
class TsqrPivotedGpu : public ::testing::Test {};

using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TsqrPivotedGpu, Precisions);

TYPED_TEST(TsqrPivotedGpu, PivotsAsGeqp3) {
  SKIP_WITHOUT_CUDA();
  for (Memory memory : {Memory::kHost, Memory::kManaged}) {
    check<TypeParam>(distinct_norms(30000, 20, 1), Expect::kSamePivots, memory);
    check<TypeParam>(distinct_norms(100000, 48, 2), Expect::kSamePivots, memory);
    check<TypeParam>(distinct_norms(70001, 64, 3), Expect::kSamePivots, memory);
    check<TypeParam>(distinct_norms(200, 10, 4), Expect::kSamePivots, memory);  // one block
  }
}

TYPED_TEST(TsqrPivotedGpu, FixedColumnsLead) {
  SKIP_WITHOUT_CUDA();
  std::vector<int> jpvt(40, 0);
  jpvt[3] = 1;
  jpvt[19] = -4;  // any nonzero value fixes a column
  jpvt[39] = 7;
  check<TypeParam>(distinct_norms(20000, 40, 5), Expect::kSamePivots, Memory::kHost, jpvt);
  check<TypeParam>(distinct_norms(20000, 16, 6), Expect::kSamePivots, Memory::kManaged,
                   std::vector<int>(16, 1));  // every column fixed: xGEQRF's order
}

TYPED_TEST(TsqrPivotedGpu, RankDeficient) {
  SKIP_WITHOUT_CUDA();
  check<TypeParam>(with_rank(20000, 40, 12, 7), Expect::kAnyPivots, Memory::kHost);
  check<TypeParam>(with_zero_columns(20000, 12, {0, 5, 11}, 8), Expect::kAnyPivots,
                   Memory::kManaged);
  check<TypeParam>(with_condition(20000, 33, 1e12, 9), Expect::kAnyPivots, Memory::kHost);
  check<TypeParam>(graded(20000, 24, 1, 10), Expect::kSamePivots, Memory::kHost);
}

TYPED_TEST(TsqrPivotedGpu, DeclinesPastOneTsqrAndLeavesJpvt) {
  using T = TypeParam;
  Matrix<T> a = convert<T>(gaussian(1000, qr::gpu::kMaxPivotedColumns + 1, 11), 1000);
  std::vector<int> jpvt(std::size_t(a.n), 3);
  std::vector<T> tau(std::size_t(a.n), T(-7));
  T work1 = T(-7);
  std::string error;
  EXPECT_FALSE(qr::gpu::geqp3_gpu(a.m, a.n, a.ptr(), a.ld, jpvt.data(), tau.data(),
                                  Reference<T>::table(), &work1, error));
  EXPECT_EQ(error, "invalid arguments");
  EXPECT_EQ(jpvt, std::vector<int>(std::size_t(a.n), 3));
  EXPECT_EQ(tau, std::vector<T>(std::size_t(a.n), T(-7)));
  EXPECT_EQ(work1, T(-7));
}

}  // namespace
}  // namespace switchyard::tsqr
