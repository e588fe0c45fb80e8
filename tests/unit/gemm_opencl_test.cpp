// The gemm route's OpenCL pieces against reference BLAS: the generated
// copy and TN kernels on the OpenCL device (PoCL in CI) for every transpose
// pair, sizes that are multiples of no tile, k = 0, alpha = 0, lda > rows,
// NaN in C with beta = 0, and the rows below m in C left alone; and the
// generator, database, cost model and platform rule on their own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "config.hpp"
#include "device/opencl_runtime.hpp"
#include "device/opencl_staging.hpp"
#include "device/program_cache.hpp"
#include "gemm/cost_model.hpp"
#include "gemm/device_gemm.hpp"
#include "gemm/finish_blocks.hpp"
#include "gemm/kernel_source.hpp"
#include "gemm/nv_families.hpp"
#include "gemm/streamed_gemm.hpp"
#include "gemm/tuning_db.hpp"
#include "gemm_cases.hpp"
#include "reference_blas.hpp"

namespace switchyard {
namespace {

using namespace gemm_test;
using gemm::KernelParams;
using gemm::Layout;
using gemm::Precision;

// Parameter sets that between them use every layout, local memory for A, B
// and both, and vector widths 1, 2 and 4.
const char* const kVariants[] = {
    "ml=32 nl=16 kl=16 ms=8 ns=4 ks=2 vw=4 local=- layout=CBL,CBL",
    "ml=16 nl=32 kl=8 ms=2 ns=4 ks=4 vw=2 local=AB layout=ROW,RBL",
    "ml=16 nl=16 kl=4 ms=4 ns=2 ks=1 vw=1 local=A layout=RBL,ROW",
    "ml=8 nl=16 kl=8 ms=2 ns=4 ks=2 vw=2 local=B layout=CBL,ROW",
};

TEST(GemmKernelSource, DescribeAndParseAreInverse) {
  for (const char* text : kVariants) {
    EXPECT_EQ(gemm::describe(params(text, Precision::f64)), text);
  }
  KernelParams p;
  EXPECT_FALSE(gemm::parse("ml=32 nl=16", Precision::f64, p));
  EXPECT_FALSE(gemm::parse("ml=32 nl=16 kl=16 ms=8 ns=4 ks=2 vw=4 local=C layout=CBL,CBL",
                           Precision::f64, p));
  EXPECT_FALSE(gemm::parse("ml=32 nl=16 kl=16 ms=8 ns=4 ks=2 vw=4 local=- layout=CBL,XYZ",
                           Precision::f64, p));
}

// The NVIDIA families (nv_families.hpp). ffma with register-staged copies is
// portable OpenCL C, so it runs on PoCL too; the others need an NVIDIA GPU.
const char* const kFfmaPortable[] = {
    "family=ffma ml=64 nl=64 kl=16 ms=4 ns=4 lanes=4 stages=2 copy=reg group=8",
    "family=ffma ml=32 nl=64 kl=16 ms=4 ns=8 lanes=8 stages=1 copy=reg group=2",
};
const char* const kMma[] = {
    "family=mma shape=m16n8k16 ml=128 nl=64 kl=16 ms=64 ns=32 stages=1 copy=reg group=8",
    "family=mma shape=m16n8k8 ml=64 nl=64 kl=8 ms=32 ns=32 stages=3 copy=async group=1",
    "family=mma shape=m8n8k4 ml=64 nl=64 kl=8 ms=32 ns=32 stages=2 copy=reg group=8",
    "family=mma shape=m16n8k16 ml=128 nl=64 kl=16 ms=64 ns=32 stages=2 copy=reg group=8 tiles=xor",
    "family=mma shape=m16n8k16 ml=64 nl=64 kl=16 ms=32 ns=32 stages=3 copy=async group=8 tiles=xor",
};
const char* const kFfmaAsync =
    "family=ffma ml=128 nl=128 kl=16 ms=8 ns=8 lanes=4 stages=2 copy=async group=8";

TEST(GemmKernelSource, NvidiaFamiliesDescribeParseAndLimits) {
  for (const char* text : kMma) EXPECT_EQ(gemm::describe(params(text, Precision::f64)), text);
  for (const char* text : kFfmaPortable)
    EXPECT_EQ(gemm::describe(params(text, Precision::f32)), text);
  KernelParams p;
  EXPECT_FALSE(gemm::parse(
      "family=mma shape=m16n8k2 ml=128 nl=64 kl=16 ms=64 ns=32 stages=1 copy=reg group=8",
      Precision::f64, p));
  EXPECT_FALSE(gemm::parse("family=ffma ml=64 nl=64 kl=16 ms=4 ns=4 stages=2 copy=reg group=8",
                           Precision::f32, p));
  EXPECT_FALSE(gemm::parse(std::string(kFfmaPortable[0]) + " tiles=xor", Precision::f32, p));
  EXPECT_FALSE(gemm::parse(std::string(kMma[0]) + " tiles=swizzled", Precision::f64, p));
  // tiles=pad is the default, which describe() leaves out.
  EXPECT_EQ(gemm::describe(params((std::string(kMma[0]) + " tiles=pad").c_str(), Precision::f64)),
            kMma[0]);
  const gemm::DeviceLimits pocl{4096, 1 << 20, 0}, h200{1024, 49152, 90}, a100{1024, 49152, 80};
  EXPECT_EQ(gemm::invalid(params(kMma[0], Precision::f64), pocl),
            "needs an NVIDIA device of compute capability 9.0");
  EXPECT_EQ(gemm::invalid(params(kMma[0], Precision::f64), a100),
            "needs an NVIDIA device of compute capability 9.0");
  EXPECT_EQ(gemm::invalid(params(kMma[2], Precision::f64), a100), "");
  EXPECT_EQ(gemm::invalid(params(kMma[0], Precision::f64), h200), "");
  EXPECT_EQ(gemm::invalid(params(kMma[0], Precision::f32), h200), "mma is a DGEMM family");
  EXPECT_EQ(gemm::invalid(params(kFfmaAsync, Precision::f32), pocl),
            "needs an NVIDIA device of compute capability 8.0");
  EXPECT_EQ(gemm::invalid(params(kFfmaPortable[0], Precision::f32), pocl), "");
  // 3 stages of 128 x 64 x 16 doubles exceed NVIDIA's 48 KiB of local memory.
  p = params(kMma[0], Precision::f64);
  p.stages = 3, p.async_copy = true;
  EXPECT_EQ(gemm::invalid(p, h200), "tiles larger than the device's local memory");
  // Two padded stages of that tile take 50 KiB; swizzled, exactly the 48 KiB there are.
  p = params(kMma[0], Precision::f64);
  p.stages = 2;
  EXPECT_EQ(gemm::invalid(p, h200), "tiles larger than the device's local memory");
  p.swizzle = true;
  EXPECT_EQ(gemm::invalid(p, h200), "");
  EXPECT_EQ(p.local_bytes(), 49152u);
  EXPECT_FALSE(gemm::nv_search_space(Precision::f64, h200).empty());
  for (const KernelParams& c : gemm::nv_search_space(Precision::f32, h200))
    EXPECT_EQ(gemm::invalid(c, h200), "") << gemm::describe(c);
}

TEST(GemmTuningDatabase, NvidiaDevicesDefaultToTheirFamilies) {
  opencl::DeviceInfo h200;
  h200.name = "Some NVIDIA GPU";
  h200.is_gpu = true;
  h200.nv_compute_capability = 90;
  h200.compute_units = 132;
  h200.max_clock_mhz = 1980;
  EXPECT_EQ(gemm::select(h200, Precision::f64).source,
            "NVIDIA sm_90 default (mma family, rate estimated)");
  EXPECT_EQ(gemm::select(h200, Precision::f64).entry.params.family, gemm::Family::mma);
  EXPECT_TRUE(gemm::select(h200, Precision::f64).entry.params.swizzle);
  EXPECT_EQ(gemm::select(h200, Precision::f32).entry.params.family, gemm::Family::ffma);
  h200.name = "NVIDIA H200";  // the shipped entries parse
  EXPECT_EQ(gemm::select(h200, Precision::f64).source, "shipped (H200)");
  EXPECT_EQ(gemm::select(h200, Precision::f32).source, "shipped (H200)");
  h200.name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(gemm::select(h200, Precision::f64).source, "shipped (H100 80GB HBM3)");
  EXPECT_EQ(gemm::select(h200, Precision::f32).entry.params.stages, 2);
  h200.name = "NVIDIA H100 PCIe";
  EXPECT_EQ(gemm::select(h200, Precision::f64).source,
            "NVIDIA sm_90 default (mma family, rate estimated)");
  h200.name = "Some NVIDIA GPU";
  h200.nv_compute_capability = 75;
  EXPECT_EQ(gemm::select(h200, Precision::f64).source, "generic GPU default");
}

// Without a tuned entry the router weighs an NVIDIA device by its family's peak at the H200's
// share of it: the H200 itself comes out at its shipped rates, an A100 at its FP64 tensor cores'
// rate, a GeForce card at its FP64 units' (which the fallback's CPU may well beat).
TEST(GemmTuningDatabase, NvidiaRatesAreEstimatedWithoutAnEntry) {
  EXPECT_NEAR(gemm::nv_estimated_gflops(90, 132, 1980, Precision::f64), 52700, 600);
  EXPECT_NEAR(gemm::nv_estimated_gflops(90, 132, 1980, Precision::f32), 51400, 600);
  EXPECT_NEAR(gemm::nv_estimated_gflops(80, 108, 1410, Precision::f64), 15400, 300);
  EXPECT_NEAR(gemm::nv_estimated_gflops(89, 128, 2520, Precision::f64), 1020, 30);
  EXPECT_GT(gemm::nv_estimated_gflops(89, 128, 2520, Precision::f32), 60000);
  opencl::DeviceInfo a100;
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.is_gpu = true;
  a100.nv_compute_capability = 80;
  a100.compute_units = 108;
  a100.max_clock_mhz = 1410;
  const gemm::Selection s = gemm::select(a100, Precision::f64);
  EXPECT_EQ(s.entry.params.shape, gemm::MmaShape::m8n8k4);
  EXPECT_DOUBLE_EQ(s.entry.gflops, gemm::nv_estimated_gflops(80, 108, 1410, Precision::f64));
}

TEST(GemmKernelSource, InvalidParametersAreNamed) {
  const gemm::DeviceLimits limits{256, 32768};
  KernelParams p = params(kVariants[0], Precision::f64);
  EXPECT_EQ(gemm::invalid(p, limits), "");
  p.vw = 3;
  EXPECT_NE(gemm::invalid(p, limits), "");
  p = params(kVariants[0], Precision::f64);
  p.ms = 64;  // larger than ml
  EXPECT_NE(gemm::invalid(p, limits), "");
  p = params(kVariants[0], Precision::f64);
  p.ml = 512;  // 64 x 4 work-items
  EXPECT_EQ(gemm::invalid(p, gemm::DeviceLimits{128, 32768}),
            "work-group larger than the device allows");
  p = params("ml=128 nl=128 kl=32 ms=8 ns=8 ks=1 vw=1 local=AB layout=CBL,CBL", Precision::f64);
  EXPECT_EQ(gemm::invalid(p, limits), "tiles larger than the device's local memory");
}

TEST(GemmKernelSource, ProgramHasEveryKernel) {
  const std::string source = gemm::program_source(params(kVariants[1], Precision::f32));
  for (const char* name :
       {"pack_a_direct", "pack_a_transposed", "pack_b_direct", "pack_b_transposed", "gemm_tn"}) {
    EXPECT_NE(source.find(std::string("void ") + name + "("), std::string::npos) << name;
  }
  EXPECT_EQ(source.find("double"), std::string::npos);
  EXPECT_NE(source.find("__local T la["), std::string::npos);
  EXPECT_NE(source.find("__local T lb["), std::string::npos);
}

TEST(GemmTuningDatabase, EntriesRoundTrip) {
  gemm::TuningEntry e;
  ASSERT_TRUE(gemm::parse_entry(std::string("s | Some GPU | ") + kVariants[2] + " | 123.5", e));
  EXPECT_EQ(e.precision, Precision::f32);
  EXPECT_EQ(e.device, "Some GPU");
  EXPECT_DOUBLE_EQ(e.gflops, 123.5);
  EXPECT_EQ(gemm::format_entry(e), std::string("s | Some GPU | ") + kVariants[2] + " | 123.5");
  EXPECT_FALSE(gemm::parse_entry("# a comment", e));
  EXPECT_FALSE(gemm::parse_entry("d | x | ml=1 | 1", e));
  EXPECT_FALSE(gemm::parse_entry(std::string("q | x | ") + kVariants[0] + " | 1", e));
}

TEST(GemmTuningDatabase, ShippedEntryForPoclAndGenericOtherwise) {
  opencl::DeviceInfo pocl;
  pocl.name = "pthread-skylake-avx512-AMD EPYC";
  EXPECT_EQ(gemm::select(pocl, Precision::f64).source, "shipped (pthread)");
  opencl::DeviceInfo other;
  other.name = "Unknown Accelerator";
  other.is_gpu = true;
  EXPECT_EQ(gemm::select(other, Precision::f32).source, "generic GPU default");
}

TEST(GemmCostModel, TransfersAndOccupancySetTheTime) {
  const gemm::CostModel h200 = gemm::cost_model("NVIDIA H200", 30000.0, 128, 64);
  // An outer product moves 8192^2 elements up and back for almost no flops, over a link of
  // h200.link_gbs (52 GB/s).
  const double link = h200.link_gbs * 1e9;
  EXPECT_DOUBLE_EQ(h200.link_gbs, 52.0);
  // 8192^3 with beta = 0: the kernel's flops dominate, at its rate, after the first of op(A)'s
  // four row blocks has gone up; the other blocks and op(B) go up under the kernels.
  Shape cube{8192, 8192, 8192, 'N', 'N'};
  cube.reads_c = false;
  const double square = gemm::device_seconds(h200, 8, cube);
  const double matrix_up = 8.0 * 8192 * 8192 / link;
  EXPECT_NEAR(square,
              h200.launch_s + matrix_up / 4 + 2.0 * 8192.0 * 8192 * 8192 / 30000e9 + matrix_up / 8,
              1e-9);
  // A product bound by its transfers (A, B and C up, C down) pays for all of op(A) all the
  // same.
  const double long_k = gemm::device_seconds(h200, 8, Shape{16384, 256, 16384, 'N', 'N'});
  EXPECT_NEAR(long_k,
              h200.launch_s + 8.0 * (16384.0 * 16384 + 16384.0 * 256 * (2 + 1.0 / 8)) / link, 1e-9);
  const double outer = gemm::device_seconds(h200, 8, Shape{8192, 8192, 4, 'N', 'N'});
  EXPECT_GT(outer, 8.0 * 8192 * 8192 / link);
  // A 64 x 64 C is one tile, but split-K gives it every unit: the time is A and B going up.
  const double a_up = 8.0 * 64 * (1 << 22) / link;
  Shape gram{64, 64, 1 << 22, 'T', 'N'};
  const double two_operands = gemm::device_seconds(h200, 8, gram);
  EXPECT_GT(two_operands, 2 * a_up);
  EXPECT_LT(two_operands, 2 * a_up + 0.01);
  // The Gram product of one matrix moves it once.
  gram.same_operand = true;
  const double one_operand = gemm::device_seconds(h200, 8, gram);
  EXPECT_NEAR(one_operand * 2, two_operands, 0.02);
  // With beta = 0, C only comes down: a tall C over a short k saves its whole upload.
  Shape tall{262144, 192, 64, 'N', 'N'};
  const double c_read = gemm::device_seconds(h200, 8, tall);
  tall.reads_c = false;
  const double c_written = gemm::device_seconds(h200, 8, tall);
  EXPECT_NEAR(c_read - c_written, 8.0 * 262144 * 192 / link, 5e-4);
}

// A device run that stopped after writing part of C is finished block by block in the
// fallback: blocks written by the "device" (here, reference gemm on the whole C) stay, and the
// unwritten ones, filled with the caller's C, come out as if the whole product had run at once,
// for every transpose, lda/ldb/ldc past the rows, and beta = 0 with NaN in the unwritten C.
TEST(GemmFinishBlocks, UnwrittenBlocksEqualTheWholeProduct) {
  const int m = 37, n = 29, k = 11, ld_pad = 3;
  for (const char ta : {'N', 'T'}) {
    for (const char tb : {'N', 'T'}) {
      for (const double beta : {0.0, -0.75}) {
        SCOPED_TRACE(std::string(1, ta) + tb + " beta " + std::to_string(beta));
        const int lda = (ta == 'N' ? m : k) + ld_pad, ldb = (tb == 'N' ? k : n) + ld_pad;
        const int ldc = m + ld_pad;
        const std::vector<double> a =
            test::random_matrix<double>(std::size_t(lda) * (ta == 'N' ? k : m), 1);
        const std::vector<double> b =
            test::random_matrix<double>(std::size_t(ldb) * (tb == 'N' ? n : k), 2);
        std::vector<double> c0 = test::random_matrix<double>(std::size_t(ldc) * n, 3);
        if (beta == 0.0) std::fill(c0.begin(), c0.end(), std::numeric_limits<double>::quiet_NaN());
        const double alpha = 1.25;
        std::vector<double> expected = c0;
        test::reference_gemm<double>()(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb,
                                       &beta, expected.data(), &ldc, 1, 1);
        // The "device" wrote everything but these blocks, which still hold c0.
        const std::vector<gemm::CBlock> unwritten = {{0, 20, m, 9}, {10, 0, 17, 20}};
        std::vector<double> c = expected;
        for (const gemm::CBlock& x : unwritten)
          for (int j = x.col; j < x.col + x.cols; ++j)
            for (int i = x.row; i < x.row + x.rows; ++i)
              c[i + std::size_t(j) * ldc] = c0[i + std::size_t(j) * ldc];
        const GemmCall<double> call{ta,  tb,       m,   n,    k,        alpha, a.data(),
                                    lda, b.data(), ldb, beta, c.data(), ldc};
        gemm::finish_blocks(test::reference_gemm<double>(), call, unwritten);
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < ldc; ++i) {
            const double want = expected[i + std::size_t(j) * ldc];
            const double got = c[i + std::size_t(j) * ldc];
            if (i >= m) {  // rows past m: never written, as given
              EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : got == want) << i << "," << j;
            } else {
              EXPECT_NEAR(got, want, 1e-13) << i << "," << j;
            }
          }
      }
    }
  }
}

// ---- On the OpenCL device --------------------------------------------------

template <class T>
void check_case(opencl::Runtime& rt, gemm::Kernels& kernels, const Case& c, unsigned seed,
                const gemm::StreamPlan* plan = nullptr) {
  const Problem<T> p = problem<T>(c, seed);
  std::vector<T> got = p.c0;
  std::string error;
  std::vector<gemm::CBlock> unwritten;
  ASSERT_TRUE(gemm::gemm_streamed<T>(
      rt, kernels, c.ta, c.tb, c.m, c.n, c.k, T(c.alpha), p.a.data(), p.lda, p.b.data(), p.ldb,
      T(c.beta), got.data(), p.ldc, plan ? *plan : gemm::default_plan(kernels.params, c.n),
      unwritten, error))
      << error;
  ASSERT_TRUE(unwritten.empty());
  expect_result(c, p, got,
                gemm::describe(kernels.params) +
                    (plan ? " panels of " + std::to_string(plan->panel_cols) +
                                " columns, pieces of " + std::to_string(plan->piece_bytes) +
                                " bytes, " + std::to_string(plan->slices) + " slices, " +
                                std::to_string(plan->row_blocks) + " row blocks"
                          : std::string()));
}

template <class T>
void check_variant(const char* text) {
  const Variant variant = variant_for<T>(text);
  if (!variant.skip.empty()) GTEST_SKIP() << variant.skip;
  ASSERT_NE(variant.kernels, nullptr) << variant.error;
  opencl::Runtime* rt = variant.rt;
  gemm::Kernels* kernels = variant.kernels;
  // Sizes that are multiples of no tile, single rows and columns, k larger
  // than m and n, a k below one k step.
  const Case shapes[] = {{'N', 'N', 37, 29, 19, 1.0, 0.0, 3},  {'N', 'N', 1, 1, 1, 1.0, 1.0, 0},
                         {'N', 'N', 67, 5, 131, -0.7, 0.5, 2}, {'N', 'N', 3, 70, 2, 2.0, 1.0, 5},
                         {'N', 'N', 40, 33, 0, 1.5, 0.5, 1},   {'N', 'N', 21, 17, 9, 0.0, -2.0, 0},
                         {'N', 'N', 21, 17, 9, 0.0, 0.0, 4}};
  unsigned seed = 1;
  for (const char* pair : {"NN", "NT", "TN", "TT", "CN", "NC"}) {
    for (Case c : shapes) {
      c.ta = pair[0];  // real matrices: C is T
      c.tb = pair[1];
      check_case<T>(*rt, *kernels, c, seed += 3);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(GemmOpenCl, DoubleEveryLayoutAndTranspose) {
  for (const char* v : kVariants) {
    check_variant<double>(v);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

TEST(GemmOpenCl, FloatEveryLayoutAndTranspose) {
  for (const char* v : kVariants) {
    check_variant<float>(v);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

TEST(GemmOpenCl, PortableFfmaFamilyEveryTranspose) {
  for (const char* v : kFfmaPortable) {
    check_variant<float>(v);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

// The NVIDIA-only kernels, on an NVIDIA device (the GPU machine), through the whole route.
TEST(GemmOpenCl, NvidiaFamiliesEveryTranspose) {
  opencl::Runtime* rt = device();
  if (!rt || rt->device().nv_compute_capability < 80) GTEST_SKIP() << "no NVIDIA OpenCL device";
  const gemm::DeviceLimits limits{rt->device().max_work_group, rt->device().local_memory,
                                  rt->device().nv_compute_capability};
  for (const char* v : kMma) {
    if (!gemm::invalid(params(v, Precision::f64), limits).empty()) continue;
    check_variant<double>(v);
    if (::testing::Test::HasFatalFailure()) return;
  }
  check_variant<float>(kFfmaAsync);
}

// The kernels of the device's chosen double entry; null, with a failure recorded, when they
// do not build.
gemm::Kernels* chosen_kernels(opencl::Runtime& rt) {
  std::string error;
  gemm::Kernels* kernels =
      gemm::kernels_for(rt, gemm::select(rt.device(), Precision::f64).entry.params, error);
  EXPECT_NE(kernels, nullptr) << error;
  return kernels;
}

TEST(GemmOpenCl, ChosenEntryRunsALargerProduct) {
  opencl::Runtime* rt = device();
  if (!rt) GTEST_SKIP() << "no OpenCL device";
  gemm::Kernels* kernels = chosen_kernels(*rt);
  ASSERT_NE(kernels, nullptr);
  check_case<double>(*rt, *kernels, {'T', 'N', 259, 133, 301, 1.0, 0.0, 7}, 99);
}

// Fills every free pooled device buffer and every pinned slot with NaN, so
// that a streamed call that reads what it did not write shows it.
template <class T>
void poison(opencl::Runtime& rt) {
  std::string error;
  opencl::Staging* st = opencl::staging(rt, error);
  ASSERT_NE(st, nullptr) << error;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (auto* slots : {&st->up, &st->down}) {
    for (opencl::PinnedSlot& s : *slots) {
      if (s.last) rt.cl().WaitForEvents(1, &s.last);
      std::fill_n(static_cast<T*>(s.host), opencl::Staging::kSlotBytes / sizeof(T), nan);
    }
  }
  std::vector<opencl::Buffer> taken;
  for (std::size_t bytes = 64; bytes <= (std::size_t(1) << 20); bytes *= 2) {
    taken.push_back(rt.acquire(bytes, error));
    if (!taken.back().get()) continue;
    rt.cl().EnqueueFillBuffer(rt.queue(), taken.back().get(), &nan, sizeof(T), 0,
                              taken.back().bytes(), 0, nullptr, nullptr);
  }
  rt.cl().Finish(rt.queue());
}

// visit(plan, c) for every plan, every shape and every transpose of A and B (NN, NT, TN,
// TT), until a fatal failure.
template <std::size_t Plans, std::size_t Shapes, class Visit>
void for_each_streamed(const gemm::StreamPlan (&plans)[Plans], const Case (&shapes)[Shapes],
                       Visit&& visit) {
  for (const gemm::StreamPlan& plan : plans) {
    for (const char* pair : {"NN", "NT", "TN", "TT"}) {
      for (Case c : shapes) {
        c.ta = pair[0];
        c.tb = pair[1];
        visit(plan, c);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// The streamed path with panels and pieces far smaller than the defaults:
// many panels (one column wide, and widths that divide nothing), pieces of
// part of a column and of several columns, every transpose, beta = 0 with
// NaN in C, alpha = 0, k = 0, lda > rows, over poisoned buffers and slots.
template <class T>
void check_streamed(const char* text) {
  const Variant variant = variant_for<T>(text);
  if (!variant.skip.empty()) GTEST_SKIP() << variant.skip;
  ASSERT_NE(variant.kernels, nullptr) << variant.error;
  opencl::Runtime* rt = variant.rt;
  gemm::Kernels* kernels = variant.kernels;
  // The last three cut op(A) into row blocks: more blocks than panels, as many, fewer.
  const gemm::StreamPlan plans[] = {{1, 7 * sizeof(T)},
                                    {5, 40 * sizeof(T)},
                                    {13, 1000 * sizeof(T)},
                                    {64, 40 * sizeof(T), 0, 0, 3},
                                    {13, 40 * sizeof(T), 0, 0, 3},
                                    {5, 7 * sizeof(T), 0, 0, 2}};
  const Case shapes[] = {{'N', 'N', 37, 29, 19, 1.0, 0.0, 3},
                         {'N', 'N', 67, 11, 45, -0.7, 0.5, 2},
                         {'N', 'N', 3, 17, 2, 2.0, 1.0, 5},
                         {'N', 'N', 40, 9, 0, 1.5, 0.5, 1},
                         {'N', 'N', 21, 17, 9, 0.0, 0.0, 4}};
  unsigned seed = 500;
  for_each_streamed(plans, shapes, [&](const gemm::StreamPlan& plan, const Case& c) {
    poison<T>(*rt);
    check_case<T>(*rt, *kernels, c, seed += 3, &plan);
  });
}

TEST(GemmOpenCl, StreamedPanelsAndPiecesDouble) { check_streamed<double>(kVariants[0]); }

TEST(GemmOpenCl, StreamedPanelsAndPiecesFloat) { check_streamed<float>(kVariants[1]); }

// Pieces of 1 MiB and more, whose host copies run in parts of 512 KiB on the helper threads
// (device/host_copies.hpp), both ways: whole columns of an operand whose leading dimension is
// its rows (one range) and of one that is longer (parts ending inside a column), beta = 0 and
// beta != 0 (C goes up too), over poisoned buffers and slots.
TEST(GemmOpenCl, StreamedPiecesCopiedInParts) {
  const Variant variant = variant_for<double>(kVariants[0]);
  if (!variant.skip.empty()) GTEST_SKIP() << variant.skip;
  ASSERT_NE(variant.kernels, nullptr) << variant.error;
  const gemm::StreamPlan plans[] = {{300, std::size_t(3) << 19}};
  const Case shapes[] = {{'N', 'N', 700, 600, 500, 1.0, 0.0, 0},
                         {'N', 'N', 700, 600, 500, -0.5, 0.75, 3}};
  unsigned seed = 2100;
  for_each_streamed(plans, shapes, [&](const gemm::StreamPlan& plan, const Case& c) {
    poison<double>(*variant.rt);
    check_case<double>(*variant.rt, *variant.kernels, c, seed += 3, &plan);
  });
}

// The device's chosen kernels on a product streamed in row blocks of op(A), tall enough that
// it does not go to the in-place kernels (which read op(A) whole), every transpose.
TEST(GemmOpenCl, ChosenEntryInRowBlocks) {
  opencl::Runtime* rt = device();
  if (!rt) GTEST_SKIP() << "no OpenCL device";
  gemm::Kernels* kernels = chosen_kernels(*rt);
  ASSERT_NE(kernels, nullptr);
  const gemm::StreamPlan plan{512, std::size_t(1) << 18, 0, 0, 3};
  int m = 256;
  while (gemm::takes_inplace(*kernels, m, plan.panel_cols)) m *= 2;
  const Case shape{'N', 'N', m + 37, 1100, 129, -0.5, 0.25, 4};
  unsigned seed = 1300;
  const gemm::StreamPlan plans[] = {plan};
  const Case shapes[] = {shape};
  for_each_streamed(plans, shapes, [&](const gemm::StreamPlan& p, const Case& c) {
    ASSERT_EQ(
        gemm::stream_row_blocks(*kernels, p, c.m, c.n, c.k, true, false, sizeof(double)).count, 3);
    poison<double>(*rt);
    check_case<double>(*rt, *kernels, c, seed += 3, &p);
  });
}

// ---- A streamed call that fails part-way ----------------------------------
//
// A failure planted in one enqueue of a streamed call (stream_fault.hpp)
// takes the path a real failure takes. The call must then report as
// unwritten exactly the pieces of C it did not write, leave them as the
// caller gave them and everything else final; and what the gpu route does
// next (the whole call in the fallback when C is untouched, the unwritten
// blocks alone otherwise) must give the whole product, no block computed
// twice. The checks know where each step's pieces lie from how the plan
// cuts the operands, not from the call.

// How many pieces a rows x cols rectangle travels in with pieces of `elems`
// elements: whole columns, as many as fit, or parts of one column of
// `elems` rows where a column is longer.
int piece_count(int rows, int cols, int elems) {
  if (rows <= 0 || cols <= 0) return 0;
  if (rows <= elems) return (cols + elems / rows - 1) / (elems / rows);
  return cols * ((rows + elems - 1) / elems);
}

// The transfers of a case under a plan: panels of C, the upload pieces
// before each panel is complete, and the download pieces, in transfer order.
// Row blocks of op(A) go up as gemm_streamed orders them: A0, B0, A1, B1, ...
// then the rest of the more numerous, and a panel is complete once both its
// own stage and the last row block are up.
struct Transfers {
  int m, width, elems, panels;
  int a_pieces;                       // uploaded before any panel: row block 0 of op(A)
  std::vector<int> uploads_before;    // [j]: pieces uploaded up to panel j's last products
  std::vector<int> downloads_before;  // [j]: download pieces of the panels before j

  Transfers(const gemm::Kernels& kernels, const Case& c, const gemm::StreamPlan& plan,
            std::size_t element_bytes)
      : m(c.m), width(plan.panel_cols), elems(int(plan.piece_bytes / element_bytes)) {
    panels = (c.n + width - 1) / width;
    const bool product = c.alpha != 0 && c.k > 0;
    const gemm::RowBlocks blocks =
        gemm::stream_row_blocks(kernels, plan, c.m, c.n, c.k, product, false, element_bytes);
    const auto block_pieces = [&](int r) {
      const int rows = std::min(blocks.rows, c.m - r * blocks.rows);
      return product ? piece_count(c.ta == 'N' ? rows : c.k, c.ta == 'N' ? c.k : rows, elems) : 0;
    };
    a_pieces = block_pieces(0);
    int up = 0, down = 0, all_blocks_up = 0;
    // [j]: pieces up to and with panel j's stage.
    std::vector<int> panel_up(static_cast<std::size_t>(panels));
    for (int i = 0; i < std::max(blocks.count, panels); ++i) {
      if (i < blocks.count) {
        up += block_pieces(i);
        if (i + 1 == blocks.count) all_blocks_up = up;
      }
      if (i < panels) {
        const int nj = std::min(width, c.n - i * width);
        if (product) up += piece_count(c.tb == 'N' ? c.k : nj, c.tb == 'N' ? nj : c.k, elems);
        if (c.beta != 0) up += piece_count(c.m, nj, elems);
        panel_up[i] = up;
      }
    }
    for (int j = 0; j < panels; ++j) {
      const int nj = std::min(width, c.n - j * width);
      uploads_before.push_back(std::max(panel_up[j], all_blocks_up));
      downloads_before.push_back(down);
      down += piece_count(c.m, nj, elems);
    }
    downloads_before.push_back(down);
  }
  int uploads() const { return uploads_before.back(); }
  int downloads() const { return downloads_before.back(); }

  // The download piece that carries C(i, j).
  int download_of(int i, int j) const {
    const int panel = j / width, col = j - panel * width;
    const int local = m <= elems ? col / (elems / m) : col * ((m + elems - 1) / elems) + i / elems;
    return downloads_before[panel] + local;
  }
  // Whether C(i, j) is still unwritten after `fault`: a failed upload or
  // kernel launch stops the call before its panel's kernels, so the panels
  // before it are downloaded; a failed download stops that piece and those
  // after it.
  bool unwritten(const gemm::StreamFault& fault, int i, int j) const {
    int first_lost = fault.index;  // the first panel whose kernels do not run
    switch (fault.step) {
      case gemm::StreamFault::Step::download: return download_of(i, j) >= fault.index;
      case gemm::StreamFault::Step::kernels: break;
      case gemm::StreamFault::Step::upload:
        first_lost = 0;
        while (uploads_before[first_lost] <= fault.index) ++first_lost;
        break;
    }
    return j / width >= first_lost;
  }
};

const char* step_name(gemm::StreamFault::Step step) {
  switch (step) {
    case gemm::StreamFault::Step::upload: return "upload";
    case gemm::StreamFault::Step::kernels: return "kernels";
    case gemm::StreamFault::Step::download: return "download";
  }
  return "";
}

// The faults tried on a case: each step's first (nothing of C written yet),
// one early, one in the middle and its last.
std::vector<gemm::StreamFault> faults_for(const Transfers& t) {
  using Step = gemm::StreamFault::Step;
  std::vector<gemm::StreamFault> faults;
  const auto add = [&](Step step, int count, std::initializer_list<int> indices) {
    for (const int i : indices) {
      const bool seen = std::any_of(faults.begin(), faults.end(), [&](const gemm::StreamFault& f) {
        return f.step == step && f.index == i;
      });
      if (i >= 0 && i < count && !seen) faults.push_back({step, i});
    }
  };
  add(Step::kernels, t.panels, {0, 1, t.panels / 2, t.panels - 1});
  // Uploads: the first; the first of panel 0 (after A); the first and the
  // last of panel 2; the last of the call.
  add(Step::upload, t.uploads(),
      {0, t.a_pieces, t.panels > 2 ? t.uploads_before[1] : -1,
       t.panels > 2 ? t.uploads_before[2] - 1 : -1, t.uploads() - 1});
  add(Step::download, t.downloads(), {0, 1, t.downloads() / 2, t.downloads() - 1});
  return faults;
}

template <class T>
void check_failure(opencl::Runtime& rt, gemm::Kernels& kernels, const Case& c,
                   const gemm::StreamPlan& plan, const gemm::StreamFault& fault, unsigned seed) {
  const Problem<T> p = problem<T>(c, seed);
  const Transfers t(kernels, c, plan, sizeof(T));
  const int ldc = p.ldc;
  std::vector<T> got = p.c0;
  const T alpha = T(c.alpha), beta = T(c.beta);
  std::string error;
  std::vector<gemm::CBlock> unwritten;
  ASSERT_FALSE(gemm::gemm_streamed<T>(rt, kernels, c.ta, c.tb, c.m, c.n, c.k, alpha, p.a.data(),
                                      p.lda, p.b.data(), p.ldb, beta, got.data(), ldc, plan,
                                      unwritten, error, &fault));
  EXPECT_NE(error.find(opencl::error_name(fault.code)), std::string::npos) << error;

  // Each element of C lies in as many reported blocks as it is unwritten
  // (1 or 0), and the reported ones still hold what the caller gave.
  std::vector<int> reported(std::size_t(ldc) * c.n, 0);
  for (const gemm::CBlock& x : unwritten) {
    ASSERT_TRUE(x.row >= 0 && x.col >= 0 && x.rows > 0 && x.cols > 0 && x.row + x.rows <= c.m &&
                x.col + x.cols <= c.n)
        << "block at (" << x.row << ", " << x.col << ") of " << x.rows << " x " << x.cols;
    for (int j = x.col; j < x.col + x.cols; ++j)
      for (int i = x.row; i < x.row + x.rows; ++i) ++reported[i + std::size_t(j) * ldc];
  }
  bool all_unwritten = true;
  for (int j = 0; j < c.n; ++j) {
    for (int i = 0; i < ldc; ++i) {
      const std::size_t at = i + std::size_t(j) * ldc;
      if (i >= c.m) {
        ASSERT_EQ(got[at], Problem<T>::sentinel) << "row " << i << " below m was written";
        continue;
      }
      const bool lost = t.unwritten(fault, i, j);
      all_unwritten = all_unwritten && lost;
      ASSERT_EQ(reported[at], lost ? 1 : 0) << "C(" << i << ", " << j << ") reported unwritten "
                                            << reported[at] << " times";
      if (lost) {
        ASSERT_EQ(std::memcmp(&got[at], &p.c0[at], sizeof(T)), 0)
            << "C(" << i << ", " << j << ") was written but reported unwritten";
      } else {
        ASSERT_NEAR(double(got[at]), double(p.expected[at]), tolerance<T>(c))
            << "C(" << i << ", " << j << ") reported written";
      }
    }
  }
  ASSERT_EQ(gemm::untouched(unwritten, c.m, c.n), all_unwritten);

  // What the gpu route does next.
  if (all_unwritten) {
    test::reference_gemm<T>()(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, p.a.data(), &p.lda,
                              p.b.data(), &p.ldb, &beta, got.data(), &ldc, 1, 1);
  } else {
    const GemmCall<T> call{c.ta, c.tb, c.m, c.n, c.k, alpha, p.a.data(), p.lda,
                           p.b.data(), p.ldb, beta, got.data(), ldc};
    gemm::finish_blocks(test::reference_gemm<T>(), call, unwritten);
  }
  expect_result(c, p, got, "the unwritten blocks finished in reference gemm");
}

// Every transpose; beta = 0 over NaN and beta != 0; alpha = 0 with and
// without beta (then nothing is uploaded); columns in one piece each and
// columns cut into three pieces, in several panels and in one (whose
// download runs on the calling thread); padded lda, ldb, ldc. Then a call
// with no fault, on the same slots and buffers, is right.
template <class T>
void check_failures(const char* text) {
  const Variant variant = variant_for<T>(text);
  if (!variant.skip.empty()) GTEST_SKIP() << variant.skip;
  ASSERT_NE(variant.kernels, nullptr) << variant.error;
  opencl::Runtime* rt = variant.rt;
  gemm::Kernels* kernels = variant.kernels;
  // The second and the last cut op(A) into row blocks: fewer than the panels, and more.
  const gemm::StreamPlan plans[] = {{5, 40 * sizeof(T)},
                                    {6, 16 * sizeof(T), 0, 0, 2},
                                    {64, 16 * sizeof(T)},
                                    {13, 40 * sizeof(T), 0, 0, 4}};
  const Case shapes[] = {{'N', 'N', 37, 23, 19, 1.25, 0.0, 3},
                         {'N', 'N', 37, 23, 19, -0.7, 0.5, 2},
                         {'N', 'N', 37, 23, 19, 0.0, 0.5, 1},
                         {'N', 'N', 37, 23, 19, 0.0, 0.0, 4}};
  unsigned seed = 900;
  for_each_streamed(plans, shapes, [&](const gemm::StreamPlan& plan, const Case& c) {
    for (const gemm::StreamFault& fault : faults_for(Transfers(*kernels, c, plan, sizeof(T)))) {
      SCOPED_TRACE(std::string(1, c.ta) + c.tb + " alpha " + std::to_string(c.alpha) + " beta " +
                   std::to_string(c.beta) + ", panels of " + std::to_string(plan.panel_cols) +
                   ", pieces of " + std::to_string(plan.piece_bytes / sizeof(T)) + ", " +
                   std::to_string(plan.row_blocks) + " row blocks: " + step_name(fault.step) + " " +
                   std::to_string(fault.index) + " fails");
      poison<T>(*rt);
      check_failure<T>(*rt, *kernels, c, plan, fault, seed += 3);
      if (::testing::Test::HasFatalFailure()) return;
    }
  });
  if (::testing::Test::HasFatalFailure()) return;
  check_case<T>(*rt, *kernels, shapes[1], seed, &plans[1]);
}

TEST(GemmOpenCl, StreamedFailureDouble) { check_failures<double>(kVariants[0]); }

TEST(GemmOpenCl, StreamedFailureFloat) { check_failures<float>(kVariants[1]); }

TEST(GemmStreamPlan, EighthsOfWholeTilesFrom512Columns) {
  const KernelParams p = params(kVariants[1], Precision::f64);  // nl = 32
  EXPECT_EQ(gemm::default_plan(p, 8192).panel_cols, 1024);
  EXPECT_EQ(gemm::default_plan(p, 5000).panel_cols, 640);
  EXPECT_EQ(gemm::default_plan(p, 1000).panel_cols, 512);
}

TEST(GemmStreamPlan, RowBlocksOfLargeOperandsOnly) {
  // One block per 2048 rows, at most four, from 64 MiB of op(A).
  EXPECT_EQ(gemm::row_blocks_for(16384, 16384, sizeof(double)), 4);
  EXPECT_EQ(gemm::row_blocks_for(8192, 8192, sizeof(double)), 4);
  EXPECT_EQ(gemm::row_blocks_for(4096, 4096, sizeof(double)), 2);
  EXPECT_EQ(gemm::row_blocks_for(4096, 4096, sizeof(float)), 2);
  EXPECT_EQ(gemm::row_blocks_for(4096, 2048, sizeof(float)), 1);  // 32 MiB
  EXPECT_EQ(gemm::row_blocks_for(2048, 1 << 20, sizeof(double)), 1);
  EXPECT_EQ(gemm::row_blocks_for(1 << 20, 64, sizeof(double)), 4);
  // Blocks of whole rows, the last one shorter; never an empty one.
  EXPECT_EQ(gemm::row_blocks(37, 3).rows, 13);
  EXPECT_EQ(gemm::row_blocks(37, 3).count, 3);
  EXPECT_EQ(gemm::row_blocks(2, 3).rows, 1);
  EXPECT_EQ(gemm::row_blocks(2, 3).count, 2);
  EXPECT_EQ(gemm::row_blocks(9, 4).count, 3);  // rows of 3
  EXPECT_EQ(gemm::row_blocks(16384, 1).rows, 16384);
}

// A cache entry that is cut short, or whole but not a program the device
// takes, costs a rebuild, never the call.
TEST(GemmOpenCl, CorruptCacheEntriesAreRebuilt) {
  opencl::Runtime* rt = device();
  if (!rt) GTEST_SKIP() << "no OpenCL device";
  std::vector<unsigned char> junk(64, 0x5a);
  const std::string cache = cache_directory();
  program_cache::store(cache, "cl-test-entry.bin", junk);
  std::vector<unsigned char> loaded;
  if (program_cache::load(cache, "cl-test-entry.bin", loaded)) EXPECT_EQ(loaded, junk);
  const std::string path = cache + "/cl-test-entry.bin";
  if (FILE* f = std::fopen(path.c_str(), "r+b")) {  // truncated: the payload cut in half
    std::fseek(f, 0, SEEK_END);
    const long size = std::ftell(f);
    std::fclose(f);
    ASSERT_EQ(truncate(path.c_str(), size - 32), 0);
    EXPECT_FALSE(program_cache::load(cache, "cl-test-entry.bin", loaded));
  }
  std::remove(path.c_str());

  // A whole entry of junk under the key of a program: built from source instead.
  const KernelParams p =
      params("ml=8 nl=8 kl=4 ms=2 ns=2 ks=1 vw=1 local=- layout=ROW,ROW", Precision::f32);
  const std::string key =
      program_cache::key(rt->device(), gemm::program_source(p), gemm::kBuildOptions);
  program_cache::store(cache, key, junk);
  std::string error;
  gemm::Kernels* kernels = gemm::kernels_for(*rt, p, error);
  ASSERT_NE(kernels, nullptr) << error;
  check_case<float>(*rt, *kernels, {'N', 'T', 13, 11, 7, 1.0, 0.5, 1}, 7);
}

// Whether an OpenCL GPU can be present, from the ICD files alone (no OpenCL loaded).
TEST(OpenClPlatforms, OnlyPoclIcdsRuleOutAGpu) {
  namespace fs = std::filesystem;
  char pattern[] = "/tmp/switchyard-icds-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path dir = pattern;
  const auto icd = [&](const char* file, const char* library) {
    std::ofstream(dir / file) << library << "\n";
  };
  EXPECT_FALSE(opencl::icds_allow_gpu(dir, true, false));  // an empty folder: no platform
  icd("pocl.icd", "libpocl.so.2.11.0");
  icd("notes.txt", "libnvidia-opencl.so.1");  // not an ICD file
  EXPECT_FALSE(opencl::icds_allow_gpu(dir, false, false));
  EXPECT_TRUE(opencl::icds_allow_gpu(dir, false, true));  // PoCL's CUDA device may be there
  icd("nvidia.icd", "libnvidia-opencl.so.1");
  EXPECT_TRUE(opencl::icds_allow_gpu(dir, false, false));
  EXPECT_TRUE(opencl::icds_allow_gpu(dir / "missing", true, false));  // named: not guessed at
  EXPECT_FALSE(opencl::icds_allow_gpu(dir / "missing", false, false));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace switchyard
