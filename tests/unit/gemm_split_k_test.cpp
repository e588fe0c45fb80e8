// Split-K in the gemm route (split_k.hpp): how many slices a product gets,
// the slice prologue and reduction in the generated program, and, on the
// OpenCL device (PoCL in CI), split products against reference BLAS: k
// long against tiny m and n, sizes that are multiples of no tile, every
// transpose, lda/ldb/ldc past the rows, beta = 0 over NaN in C, general
// alpha and beta, the rows below m untouched, the same bits from the same
// call, device-resident and streamed, operands already in the packed
// layout read where they lie, and the Gram product streamed from one host
// matrix.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gemm/device_gemm.hpp"
#include "gemm/inplace_kernel_source.hpp"
#include "gemm/kernel_source.hpp"
#include "gemm/split_k.hpp"
#include "gemm/streamed_gemm.hpp"
#include "gemm_cases.hpp"
#include "reference_blas.hpp"

namespace switchyard {
namespace {

using namespace gemm_test;

// The shipped H200 entries: in double a tile of 128 x 64, k steps of 16.
constexpr char kH200Double[] =
    "family=mma shape=m16n8k16 ml=128 nl=64 kl=16 ms=64 ns=32 stages=2 copy=reg group=8 "
    "tiles=xor";
constexpr char kH200Float[] =
    "family=ffma ml=128 nl=64 kl=16 ms=8 ns=8 lanes=4 stages=3 copy=async group=8";

KernelParams h200_tile() { return params(kH200Double, Precision::f64); }

TEST(GemmSplitK, SlicesFillTheUnitsOnlyWhereTheTilesDoNot) {
  const KernelParams p = h200_tile();
  // 64 x 64 x 2^22: one tile, 2 x 132 slices of 15888 rows (the last shorter).
  gemm::Split s = gemm::choose_split(p, 1, 1 << 22, 132);
  EXPECT_EQ(s.slices, 264);
  EXPECT_EQ(s.depth, 15888);
  EXPECT_EQ(s.depth % p.kl, 0);
  EXPECT_GE(long(s.slices) * s.depth, 1L << 22);
  EXPECT_LT(long(s.slices - 1) * s.depth, 1L << 22);
  // 256 x 256 x 2^20: 2 x 4 tiles, 33 slices each.
  EXPECT_EQ(gemm::choose_split(p, 8, 1 << 20, 132).slices, 33);
  // A full device, and square products, are not split.
  EXPECT_EQ(gemm::choose_split(p, 133, 1 << 20, 132).slices, 1);
  EXPECT_EQ(gemm::choose_split(p, 64 * 128, 8192, 132).slices, 1);
  EXPECT_EQ(gemm::choose_split(p, 256, 8192, 132).slices, 1);  // 8192 x 256 x 8192
  // Short k: slices of at least kMinSliceDepth rows.
  EXPECT_EQ(gemm::choose_split(p, 1, 4096, 132).slices, 4096 / gemm::kMinSliceDepth);
  EXPECT_EQ(gemm::choose_split(p, 1, 1008, 132).slices, 1);
  EXPECT_EQ(gemm::choose_split(p, 1, 0, 132).slices, 1);  // no product
  // Forced: whole k steps, so 5 slices of 64 rows in steps of 16 are 4 of 16,
  // and 3 are 2 of 32.
  s = gemm::choose_split(p, 1, 64, 132, 5);
  EXPECT_EQ(s.slices, 4);
  EXPECT_EQ(s.depth, 16);
  s = gemm::choose_split(p, 1, 64, 132, 3);
  EXPECT_EQ(s.slices, 2);
  EXPECT_EQ(s.depth, 32);
  s = gemm::choose_split(p, 1, 96, 132, 4);
  EXPECT_EQ(s.slices, 3);
  EXPECT_EQ(s.depth, 32);
  EXPECT_EQ(gemm::choose_split(p, 1, 16, 132, 8).slices, 1);
}

// The in-place kernels' split: 64 x 64 tiles, four work-groups a unit, whole 16-row steps of
// the unpadded k.
TEST(GemmSplitK, InplaceKernelSlicesFillFourGroupsAUnit) {
  gemm::Split s = gemm::inplace_split(64, 64, 1 << 22, 132);
  EXPECT_EQ(s.slices, 528);
  EXPECT_EQ(s.depth % gemm::kInplaceDepth, 0);
  EXPECT_GE(long(s.slices) * s.depth, 1L << 22);
  EXPECT_LT(long(s.slices - 1) * s.depth, 1L << 22);
  EXPECT_EQ(gemm::inplace_split(256, 256, 1 << 20, 132).slices, 33);  // 16 tiles
  EXPECT_EQ(gemm::inplace_split(60, 3, 3001, 132).slices, 3001 / gemm::kMinSliceDepth);
  s = gemm::inplace_split(20, 10, 3001, 132, 5);  // 188 steps, the last of 9 rows
  EXPECT_EQ(s.slices, 5);
  EXPECT_EQ(s.depth, 38 * 16);
  EXPECT_EQ(gemm::inplace_split(64, 64, 16, 132, 4).slices, 1);
  EXPECT_EQ(gemm::inplace_split(64, 64, 17, 132, 4).slices, 2);
}

// The in-place kernels take a product whose copies would cost more than their slower rate
// (kInplaceFlopsPerCopied): the shapes measured on the H200, with the elements the copy
// kernels of the shipped 128 x 64 x 16 tile would copy.
TEST(GemmSplitK, InplaceKernelsPayAgainstLongCopies) {
  const double big = 8192.0 * 8192, panel = 8192.0 * 256;
  EXPECT_TRUE(gemm::inplace_pays(8192, 256, 8192, big + panel));  // A^T copied: TN, TT
  EXPECT_TRUE(gemm::inplace_pays(256, 8192, 8192, panel + big));  // B copied: NN, TN
  EXPECT_FALSE(gemm::inplace_pays(8192, 256, 8192, panel));  // A in the packed layout: NN
  EXPECT_FALSE(gemm::inplace_pays(8192, 256, 8192, 0));      // both in it: NT
  EXPECT_FALSE(gemm::inplace_pays(8192, 8192, 256, 2 * 256 * 8192.0));
  EXPECT_FALSE(gemm::inplace_pays(4096, 4096, 4096, 2 * 4096 * 4096.0));
  EXPECT_FALSE(gemm::inplace_pays(16384, 4096, 1024, 1024 * (16384.0 + 4096)));
}

TEST(GemmSplitK, ProgramReadsItsSliceAndSumsThePartials) {
  const std::string source = gemm::program_source(
      params("ml=32 nl=16 kl=16 ms=8 ns=4 ks=2 vw=4 local=- layout=CBL,CBL", Precision::f64));
  EXPECT_NE(source.find("const int Ks, const long c_slice"), std::string::npos);
  EXPECT_NE(source.find("const int k0 = slice * Ks, k_len = min(Ks, Kp - k0);"),
            std::string::npos);
  // CBL: a column panel of Kp rows per tile, the slice k0 rows into it.
  EXPECT_NE(source.find("Ap + (long)gi * Kp * 32 + (long)k0 * 32"), std::string::npos);
  EXPECT_NE(source.find("kb < k_len"), std::string::npos);
  EXPECT_NE(source.find(std::string("void ") + gemm::kReduceKernel + "("), std::string::npos);
  EXPECT_NE(source.find("for (int s = 1; s < S; ++s) sum += p[s * slice];"), std::string::npos);
}

// Parameter sets whose layouts put a slice at each of its three kinds of
// offset (ROW, CBL, RBL), and the portable ffma kernel, whose head the mma
// kernel shares.
const char* const kDoubleVariants[] = {
    "ml=32 nl=16 kl=16 ms=8 ns=4 ks=2 vw=4 local=- layout=CBL,CBL",
    "ml=16 nl=32 kl=8 ms=2 ns=4 ks=4 vw=2 local=AB layout=ROW,RBL",
    "ml=16 nl=16 kl=4 ms=4 ns=2 ks=1 vw=1 local=A layout=RBL,ROW",
};
const char* const kFloatVariants[] = {
    "ml=16 nl=32 kl=8 ms=2 ns=4 ks=4 vw=2 local=AB layout=ROW,RBL",
    "family=ffma ml=64 nl=64 kl=16 ms=4 ns=4 lanes=4 stages=2 copy=reg group=8",
};

// A case and the slices it is forced into (0: the device's choice).
struct SplitCase {
  Case c;
  int slices;
};

// Long k against small m and n; sizes that are multiples of no tile; more
// slices asked for than k steps; k below one step (one slice).
const SplitCase kShapes[] = {
    {{'N', 'N', 20, 10, 3001, 1.0, 0.0, 3}, 5},   {{'N', 'N', 64, 64, 4099, -0.7, 0.5, 2}, 7},
    {{'N', 'N', 37, 29, 1000, 1.3, 0.0, 1}, 3},   {{'N', 'N', 3, 70, 513, 2.0, 1.0, 0}, 64},
    {{'N', 'N', 21, 17, 3, 1.0, -2.0, 4}, 4},     {{'N', 'N', 20, 10, 5000, 0.5, 0.25, 1}, 0},
};

// C after enqueue_gemm on device copies of the case's operands, at offsets
// into their buffers, or at their starts.
template <class T>
std::vector<T> device_gemm(opencl::Runtime& rt, gemm::Kernels& kernels, const Case& c,
                           const Problem<T>& p, int slices, bool at_start = false) {
  const opencl::Api& cl = rt.cl();
  const long offset[3] = {at_start ? 0 : 3, at_start ? 0 : 1, at_start ? 0 : 5};
  const std::vector<T>* host[3] = {&p.a, &p.b, &p.c0};
  std::string error;
  std::vector<opencl::Buffer> operands;
  for (int i = 0; i < 3; ++i) {
    operands.push_back(rt.acquire(sizeof(T) * (offset[i] + host[i]->size()), error));
    EXPECT_NE(operands.back().get(), nullptr) << error;
    if (!operands.back().get()) return {};
    cl.EnqueueWriteBuffer(rt.queue(), operands.back().get(), CL_TRUE, sizeof(T) * offset[i],
                          sizeof(T) * host[i]->size(), host[i]->data(), 0, nullptr, nullptr);
  }
  std::vector<opencl::Buffer> scratch;
  const bool ok = gemm::enqueue_gemm<T>(
      rt, kernels, c.ta, c.tb, c.m, c.n, c.k, T(c.alpha), {operands[0].get(), offset[0], p.lda},
      {operands[1].get(), offset[1], p.ldb}, T(c.beta), {operands[2].get(), offset[2], p.ldc},
      scratch, error, slices);
  EXPECT_TRUE(ok) << error;
  std::vector<T> got(p.c0.size());
  cl.EnqueueReadBuffer(rt.queue(), operands[2].get(), CL_TRUE, sizeof(T) * offset[2],
                       sizeof(T) * got.size(), got.data(), 0, nullptr, nullptr);
  return got;
}

// C after enqueue_gemm with A and B the same device buffer (the Gram product on the device).
std::vector<double> device_gram(opencl::Runtime& rt, gemm::Kernels& kernels, const Case& c,
                                const Problem<double>& p) {
  const opencl::Api& cl = rt.cl();
  std::string error;
  opencl::Buffer a = rt.acquire(sizeof(double) * p.a.size(), error);
  opencl::Buffer out = rt.acquire(sizeof(double) * p.c0.size(), error);
  EXPECT_TRUE(a.get() && out.get()) << error;
  if (!a.get() || !out.get()) return {};
  cl.EnqueueWriteBuffer(rt.queue(), a.get(), CL_TRUE, 0, sizeof(double) * p.a.size(),
                        p.a.data(), 0, nullptr, nullptr);
  cl.EnqueueWriteBuffer(rt.queue(), out.get(), CL_TRUE, 0, sizeof(double) * p.c0.size(),
                        p.c0.data(), 0, nullptr, nullptr);
  std::vector<opencl::Buffer> scratch;
  const bool ok = gemm::enqueue_gemm<double>(rt, kernels, c.ta, c.tb, c.m, c.n, c.k, c.alpha,
                                             {a.get(), 0, p.lda}, {a.get(), 0, p.lda}, c.beta,
                                             {out.get(), 0, p.ldc}, scratch, error);
  EXPECT_TRUE(ok) << error;
  std::vector<double> got(p.c0.size());
  cl.EnqueueReadBuffer(rt.queue(), out.get(), CL_TRUE, 0, sizeof(double) * got.size(),
                       got.data(), 0, nullptr, nullptr);
  return got;
}

template <class T>
void check_device_resident(const char* text) {
  const Variant variant = variant_for<T>(text);
  if (!variant.skip.empty()) GTEST_SKIP() << variant.skip;
  ASSERT_NE(variant.kernels, nullptr) << variant.error;
  gemm::Kernels& kernels = *variant.kernels;
  unsigned seed = 900;
  for (const char* pair : {"NN", "NT", "TN", "TT"}) {
    for (SplitCase s : kShapes) {
      s.c.ta = pair[0], s.c.tb = pair[1];
      const gemm::Padded size = gemm::padded(kernels.params, s.c.m, s.c.n, s.c.k);
      if (s.slices == 0) {  // the device's own choice must split this one
        ASSERT_GT(gemm::split_for(kernels, size).slices, 1) << gemm::describe(kernels.params);
      }
      const Problem<T> p = problem<T>(s.c, seed += 3);
      const std::vector<T> got = device_gemm<T>(*variant.rt, kernels, s.c, p, s.slices);
      ASSERT_EQ(got.size(), p.c0.size());
      const std::string what = gemm::describe(kernels.params) + ", " +
                               std::to_string(gemm::split_for(kernels, size, s.slices).slices) +
                               " slices";
      expect_result(s.c, p, got, what);
      if (::testing::Test::HasFatalFailure()) return;
      const std::vector<T> again = device_gemm<T>(*variant.rt, kernels, s.c, p, s.slices);
      ASSERT_EQ(std::memcmp(got.data(), again.data(), sizeof(T) * got.size()), 0)
          << "the same call gave other bits, " << what;
    }
  }
}

TEST(GemmSplitKOpenCl, DeviceResidentDouble) {
  for (const char* v : kDoubleVariants) {
    check_device_resident<double>(v);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

TEST(GemmSplitKOpenCl, DeviceResidentFloat) {
  for (const char* v : kFloatVariants) {
    check_device_resident<float>(v);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

// The NVIDIA-only kernels (the shipped H200 entries' families), on an NVIDIA
// device (the GPU machine).
TEST(GemmSplitKOpenCl, NvidiaFamiliesDeviceResident) {
  opencl::Runtime* rt = device();
  if (!rt || rt->device().nv_compute_capability < 90) GTEST_SKIP() << "no NVIDIA sm_90 device";
  check_device_resident<double>(kH200Double);
  if (::testing::Test::HasFatalFailure()) return;
  check_device_resident<float>(
      "family=ffma ml=128 nl=128 kl=16 ms=8 ns=8 lanes=4 stages=2 copy=async group=8");
}

// Operands that already lie in the TN kernel's packed ROW layout (op(A) = A with lda = Mp,
// op(B) = B^T with ldb = Np, k whole k steps, at the start of their buffers) are read where
// they lie. With m and n short of whole tiles, the entries past them in each row hold random
// values, which must reach no entry of C.
template <class T>
void check_packed_layout(const char* text) {
  const Variant variant = variant_for<T>(text);
  if (!variant.skip.empty()) GTEST_SKIP() << variant.skip;
  ASSERT_NE(variant.kernels, nullptr) << variant.error;
  gemm::Kernels& kernels = *variant.kernels;
  const KernelParams& kp = kernels.params;
  unsigned seed = 1700;
  for (int short_by : {0, 3}) {  // lda = m + short_by = Mp, ldb = n + short_by = Np
    for (const char* pair : {"NN", "NT", "TN", "TT"}) {
      for (int slices : {1, 3}) {
        const Case c{pair[0], pair[1], 2 * kp.ml - short_by, 2 * kp.nl - short_by, 6 * kp.kl,
                     1.3, short_by ? 0.5 : 0.0, short_by};
        const Problem<T> p = problem<T>(c, seed += 3);
        const gemm::Padded size = gemm::padded(kp, c.m, c.n, c.k);
        ASSERT_TRUE(size.kp == c.k && size.mp == c.m + short_by && size.np == c.n + short_by);
        const std::vector<T> got = device_gemm<T>(*variant.rt, kernels, c, p, slices, true);
        ASSERT_EQ(got.size(), p.c0.size());
        expect_result(c, p, got, gemm::describe(kp) + ", " + std::to_string(slices) + " slices");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(GemmSplitKOpenCl, OperandsInThePackedLayoutDouble) {
  for (const char* v : {kDoubleVariants[1], kDoubleVariants[2]}) {  // ROW A, ROW B
    check_packed_layout<double>(v);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

TEST(GemmSplitKOpenCl, OperandsInThePackedLayoutFloat) {
  for (const char* v : kFloatVariants) {
    check_packed_layout<float>(v);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
  }
}

TEST(GemmSplitKOpenCl, NvidiaOperandsInThePackedLayout) {
  opencl::Runtime* rt = device();
  if (!rt || rt->device().nv_compute_capability < 90) GTEST_SKIP() << "no NVIDIA sm_90 device";
  check_packed_layout<double>(kH200Double);
  if (::testing::Test::HasFatalFailure()) return;
  check_packed_layout<float>(kH200Float);
}

// C after gemm_streamed from host memory under `plan`.
template <class T>
std::vector<T> streamed(opencl::Runtime& rt, gemm::Kernels& kernels, const Case& c,
                        const Problem<T>& p, const T* b, const gemm::StreamPlan& plan) {
  std::vector<T> got = p.c0;
  std::string error;
  std::vector<gemm::CBlock> unwritten;
  EXPECT_TRUE(gemm::gemm_streamed<T>(rt, kernels, c.ta, c.tb, c.m, c.n, c.k, T(c.alpha),
                                     p.a.data(), p.lda, b, p.ldb, T(c.beta), got.data(), p.ldc,
                                     plan, unwritten, error))
      << error;
  return got;
}

// Streamed: one panel, and panels of 7 columns (several, the last narrower),
// each split.
template <class T>
void check_streamed(const char* text) {
  const Variant variant = variant_for<T>(text);
  if (!variant.skip.empty()) GTEST_SKIP() << variant.skip;
  ASSERT_NE(variant.kernels, nullptr) << variant.error;
  unsigned seed = 1900;
  for (const char* pair : {"NN", "NT", "TN", "TT"}) {
    for (SplitCase s : kShapes) {
      s.c.ta = pair[0], s.c.tb = pair[1];
      for (const gemm::StreamPlan& plan :
           {gemm::StreamPlan{1024, 1000 * sizeof(T), s.slices},
            gemm::StreamPlan{7, 300 * sizeof(T), s.slices}}) {
        const Problem<T> p = problem<T>(s.c, seed += 3);
        const std::vector<T> got = streamed<T>(*variant.rt, *variant.kernels, s.c, p, p.b.data(), plan);
        expect_result(s.c, p, got,
                      gemm::describe(variant.kernels->params) + ", panels of " +
                          std::to_string(plan.panel_cols) + ", " + std::to_string(s.slices) +
                          " slices asked");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(GemmSplitKOpenCl, StreamedDouble) { check_streamed<double>(kDoubleVariants[0]); }

TEST(GemmSplitKOpenCl, StreamedFloat) { check_streamed<float>(kFloatVariants[1]); }

// dgemm('T', 'N', n, n, k, A, lda, A, lda) and its kin, op(B) the host
// matrix of op(A): uploaded once, packed twice (or read once per diagonal
// tile by the in-place kernels), split; the same bits twice. Device-resident,
// one buffer serves as A and B.
void check_gram(const char* text) {
  const Variant variant = variant_for<double>(text);
  if (!variant.skip.empty()) GTEST_SKIP() << variant.skip;
  ASSERT_NE(variant.kernels, nullptr) << variant.error;
  unsigned seed = 2900;
  // TN and NT: A is k x n (n x k); NN and TT: A is square. 100 x 100 has tiles on the
  // diagonal and off it.
  const Case cases[] = {{'T', 'N', 24, 24, 3000, 1.0, 0.0, 3},
                        {'T', 'N', 100, 100, 2001, 1.0, 0.5, 1},
                        {'N', 'T', 24, 24, 3000, -1.5, 0.5, 2},
                        {'N', 'T', 100, 100, 2001, 0.5, 0.0, 3},
                        {'N', 'N', 45, 45, 45, 1.0, 1.0, 1},
                        {'T', 'T', 45, 45, 45, 0.5, 0.0, 0}};
  for (const Case& c : cases) {
    Problem<double> p = problem<double>(c, seed += 3);
    ASSERT_EQ(p.lda, p.ldb);
    p.b = p.a;  // the reference on the one matrix
    p.expected = p.c0;
    const double alpha = c.alpha, beta = c.beta;
    test::reference_gemm<double>()(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, p.a.data(), &p.lda,
                                   p.a.data(), &p.lda, &beta, p.expected.data(), &p.ldc, 1, 1);
    const std::string what = gemm::describe(variant.kernels->params) + ", Gram " + c.ta + c.tb;
    for (int slices : {0, 4}) {
      const gemm::StreamPlan plan{1024, 4096 * sizeof(double), slices};
      const std::vector<double> got =
          streamed<double>(*variant.rt, *variant.kernels, c, p, p.a.data(), plan);
      // The diagonal sums k squares: its rounding grows with k, not sqrt(k).
      expect_result(c, p, got, what + ", " + std::to_string(slices) + " slices asked", c.k);
      if (::testing::Test::HasFatalFailure()) return;
      const std::vector<double> again =
          streamed<double>(*variant.rt, *variant.kernels, c, p, p.a.data(), plan);
      ASSERT_EQ(std::memcmp(got.data(), again.data(), sizeof(double) * got.size()), 0);
    }
    const std::vector<double> resident = device_gram(*variant.rt, *variant.kernels, c, p);
    ASSERT_EQ(resident.size(), p.c0.size());
    expect_result(c, p, resident, what + ", device-resident", c.k);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(GemmSplitKOpenCl, GramProductFromOneHostMatrix) { check_gram(kDoubleVariants[1]); }

// The shipped H200 double kernel, whose program has the in-place kernels (on an NVIDIA device).
TEST(GemmSplitKOpenCl, NvidiaGramProductFromOneMatrix) {
  opencl::Runtime* rt = device();
  if (!rt || rt->device().nv_compute_capability < 90) GTEST_SKIP() << "no NVIDIA sm_90 device";
  check_gram(kH200Double);
}

// A product whose C fills the device but whose long operand would have to be copied goes to
// the in-place kernels (routes_inplace), for every transpose (operands at offsets, so every
// one would be copied), in both precisions.
template <class T>
void check_inplace_where_copies_cost_more(opencl::Runtime& rt, const char* text) {
  const Variant variant = variant_for<T>(text);
  ASSERT_NE(variant.kernels, nullptr) << variant.error;
  gemm::Kernels& kernels = *variant.kernels;
  ASSERT_FALSE(gemm::takes_inplace(kernels, 8192, 256));  // C's tiles fill the device
  unsigned seed = 2300;
  for (const char* pair : {"NN", "NT", "TN", "TT"}) {
    const Case c{pair[0], pair[1], 8192, 256, 700, 0.9, 0.5, 3};
    const Problem<T> p = problem<T>(c, seed += 3);
    ASSERT_TRUE(gemm::routes_inplace(kernels, c.ta, c.tb, c.m, c.n, c.k, {nullptr, 3, p.lda},
                                     {nullptr, 1, p.ldb}));
    const std::vector<T> got = device_gemm<T>(rt, kernels, c, p, 0);
    ASSERT_EQ(got.size(), p.c0.size());
    expect_result(c, p, got, gemm::describe(kernels.params) + ", the in-place kernels");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(GemmSplitKOpenCl, NvidiaInplaceKernelsWhereCopiesCostMore) {
  opencl::Runtime* rt = device();
  if (!rt || rt->device().nv_compute_capability < 90) GTEST_SKIP() << "no NVIDIA sm_90 device";
  check_inplace_where_copies_cost_more<double>(*rt, kH200Double);
  if (::testing::Test::HasFatalFailure()) return;
  check_inplace_where_copies_cost_more<float>(*rt, kH200Float);
}

}  // namespace
}  // namespace switchyard
