// The NVIDIA TN kernel emitters: which parameter sets they accept, and what the sources hold.
// The kernels themselves run on the GPU machine (tools/bench/mma_probe.cpp checks them there).
#include "gemm/mma_kernel_source.hpp"

#include <gtest/gtest.h>

#include "gemm/ffma_kernel_source.hpp"
#include "gemm/inplace_kernel_source.hpp"

namespace sg = switchyard::gemm;

TEST(MmaKernelSource, DefaultsAreValidAndFitNvidiaLocalMemory) {
  const sg::MmaKernelParams p;
  EXPECT_EQ(sg::check(p), "");
  EXPECT_EQ(sg::threads(p), 128);
  EXPECT_LE(sg::local_memory_bytes(p), 49152u);
}

TEST(MmaKernelSource, RejectsTilesTheShapeCannotCover) {
  sg::MmaKernelParams p;
  p.shape = sg::MmaShape::m16n8k16;
  p.bk = 8;  // shallower than one mma
  EXPECT_NE(sg::check(p), "");
  p = {};
  p.wm = 24;  // not a multiple of 16 rows
  EXPECT_NE(sg::check(p), "");
  p = {};
  p.bm = 96;  // not a multiple of the warp tile
  EXPECT_NE(sg::check(p), "");
  p = {};
  p.bm = 512, p.bn = 512, p.wm = 32, p.wn = 16;  // 2048 threads
  EXPECT_NE(sg::check(p), "");
  p = {};
  p.async_copy = false, p.stages = 3;  // register staging has one or two buffers
  EXPECT_NE(sg::check(p), "");
  p.stages = 1;
  EXPECT_EQ(sg::check(p), "");
}

TEST(MmaKernelSource, SourceUsesTheChosenInstructionAndCopyPath) {
  sg::MmaKernelParams p;
  p.shape = sg::MmaShape::m16n8k16, p.bm = 128, p.bn = 64, p.bk = 16, p.stages = 1;
  p.async_copy = false;
  ASSERT_EQ(sg::check(p), "");
  std::string s = sg::mma_kernel_source(p);
  EXPECT_NE(s.find(std::string("void ") + sg::kTnKernel + "("), std::string::npos);
  EXPECT_NE(s.find("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64"), std::string::npos);
  EXPECT_EQ(s.find("cp.async"), std::string::npos);
  p.async_copy = true, p.stages = 2, p.bn = 32, p.wn = 16;
  ASSERT_EQ(sg::check(p), "");
  s = sg::mma_kernel_source(p);
  EXPECT_NE(s.find("cp.async.cg.shared.global"), std::string::npos);
  EXPECT_NE(s.find("cp.async.wait_group 0"), std::string::npos);
}

// Swizzled tiles drop the 4 doubles of padding per row, so the default tile double-buffers
// within NVIDIA's 48 KiB; the fragment reads then flip columns by the k-row (g ^ 4t).
TEST(MmaKernelSource, SwizzledTilesDoubleBufferTheDefaultTile) {
  sg::MmaKernelParams p;
  p.stages = 2, p.swizzle = false;
  EXPECT_EQ(sg::local_memory_bytes(p), 51200u);
  p.swizzle = true;
  ASSERT_EQ(sg::check(p), "");
  EXPECT_EQ(sg::local_memory_bytes(p), 49152u);
  EXPECT_EQ(sg::name(p), "m16k16_128x64x16_w64x32_r2_g8_xor");
  const std::string s = sg::mma_kernel_source(p);
  // 2 x 16 x 128 of A, then 2 x 16 x 64 of B.
  EXPECT_NE(s.find("__local double tile_local[6144]"), std::string::npos);
  EXPECT_NE(s.find("b_local = tile_local + 4096;"), std::string::npos);
  EXPECT_NE(s.find("(g ^ (t << 2))"), std::string::npos);
  EXPECT_NE(s.find("a_frag8"), std::string::npos);
  p.swizzle = false;
  EXPECT_EQ(sg::mma_kernel_source(p).find("(g ^ (t << 2))"), std::string::npos);
}

// With beta != 0, the default kernel stages C a warp tile's strip at a time through local
// memory (128 x 32 doubles, columns 132 apart, within the 6144 of the slabs) by cp.async; with
// beta = 0 it never reads C. A tile whose strip does not fit reads C from global memory.
TEST(MmaKernelSource, StagesCThroughLocalMemoryWhenBetaIsNotZero) {
  sg::MmaKernelParams p;
  p.stages = 2, p.swizzle = true;
  const std::string s = sg::mma_kernel_source(p);
  const std::size_t zero = s.find("if (beta == 0.0) {"), other = s.find("} else {", zero);
  ASSERT_NE(zero, std::string::npos);
  ASSERT_NE(other, std::string::npos);
  const std::string without = s.substr(zero, other - zero), with = s.substr(other);
  EXPECT_EQ(without.find("beta *"), std::string::npos);
  EXPECT_NE(with.find("for (int h = 0; h < 2; ++h) {"), std::string::npos);
  EXPECT_NE(with.find("cp.async.ca.shared.global [%0], [%1], 8;"), std::string::npos);
  EXPECT_NE(with.find("c_local + (e / 128) * 132 + e % 128"), std::string::npos);
  EXPECT_NE(with.find("beta * c_local[(c_col0 + 0 - strip0) * 132 + c_row0 + 0 - m0]"),
            std::string::npos);
  EXPECT_EQ(with.find("beta * cb["), std::string::npos);
  EXPECT_LE(32 * 132, 6144);
  // 256 x 64 warp tiles: a strip of 64 x 260 doubles is more than 2 x 16 x (256 + 128).
  p.bm = 256, p.bn = 128, p.wm = 64, p.wn = 64, p.stages = 2;
  ASSERT_EQ(sg::check(p), "");
  const std::string big = sg::mma_kernel_source(p);
  EXPECT_EQ(big.find("cp.async.ca.shared.global"), std::string::npos);
  EXPECT_NE(big.find("beta * cb["), std::string::npos);
}

TEST(MmaKernelSource, SwizzleNeedsWarpTilesOf16) {
  sg::MmaKernelParams p;
  p.shape = sg::MmaShape::m8n8k4, p.bm = 64, p.bn = 64, p.bk = 8, p.wm = 8, p.wn = 64;
  p.stages = 2, p.swizzle = false;
  ASSERT_EQ(sg::check(p), "");
  p.swizzle = true;
  EXPECT_NE(sg::check(p), "");
  p.wm = 32, p.wn = 32;
  EXPECT_EQ(sg::check(p), "");
}

TEST(MmaKernelSource, ComputeCapabilityOfEachShape) {
  EXPECT_EQ(sg::min_compute_capability(sg::MmaShape::m8n8k4), 80);
  EXPECT_EQ(sg::min_compute_capability(sg::MmaShape::m16n8k4), 90);
  EXPECT_EQ(sg::min_compute_capability(sg::MmaShape::m16n8k16), 90);
  EXPECT_EQ(sg::mma_m(sg::MmaShape::m8n8k4), 8);
  EXPECT_EQ(sg::mma_k(sg::MmaShape::m16n8k8), 8);
}

TEST(FfmaKernelSource, DefaultsAreValidAndPortableWithoutCpAsync) {
  sg::FfmaKernelParams p;
  EXPECT_EQ(sg::check(p), "");
  EXPECT_EQ(sg::threads(p), 256);
  p.async_copy = false, p.stages = 2;
  ASSERT_EQ(sg::check(p), "");
  const std::string s = sg::ffma_kernel_source(p);
  EXPECT_EQ(s.find("__asm__"), std::string::npos);
  EXPECT_NE(s.find(std::string("void ") + sg::kTnKernel + "("), std::string::npos);
}

TEST(FfmaKernelSource, RejectsBadThreadTiles) {
  sg::FfmaKernelParams p;
  p.tm = 6;
  EXPECT_NE(sg::check(p), "");
  p = {};
  p.warp_rows = 3;
  EXPECT_NE(sg::check(p), "");
  p = {};
  p.bm = 64, p.tm = 8, p.warp_rows = 16;  // 8 thread rows cannot hold 16 lanes
  EXPECT_NE(sg::check(p), "");
}

// Split-K (split_k.hpp): both families take the slice from get_group_id(2), multiply its k_len
// rows from row k0 of the ROW operands, and write its partial at c + slice * c_slice; all of it
// in the shared head, before the slabs are set up from a and b.
void expect_slice_prologue(const std::string& s) {
  EXPECT_NE(s.find("const long c_offset, const int ldc,\n    const int Ks, const long c_slice) {"),
            std::string::npos);
  const std::size_t slabs = s.find("_row0 * lda");
  ASSERT_NE(slabs, std::string::npos);
  std::size_t last = 0;
  for (const char* line :
       {"const int slice = get_group_id(2);",
        "const int k0 = slice * Ks, k_len = min(Ks, Kp - k0);", "c += (long)slice * c_slice;",
        "const int k_pad = k_len;", "a += (size_t)k0 * lda;", "b += (size_t)k0 * ldb;"}) {
    const std::size_t at = s.find(line);
    ASSERT_NE(at, std::string::npos) << line;
    EXPECT_GT(at, last) << line;
    EXPECT_LT(at, slabs) << line;
    last = at;
  }
  EXPECT_NE(s.find("const int kt_count = k_pad / "), std::string::npos);
}

TEST(MmaKernelSource, SlicePrologue) {
  const sg::MmaKernelParams p;
  ASSERT_EQ(sg::check(p), "");
  expect_slice_prologue(sg::mma_kernel_source(p));
}

TEST(FfmaKernelSource, SlicePrologue) {
  const sg::FfmaKernelParams p;
  ASSERT_EQ(sg::check(p), "");
  expect_slice_prologue(sg::ffma_kernel_source(p));
}

// The text of in-place kernel `name` in `source`, whose operands are of `type`; empty when it
// is not there.
std::string inplace_kernel_text(const std::string& source, const char* name, const char* type) {
  const std::size_t at = source.find(
      std::string("void ") + name + "(const int K, const int m, const int n,\n    __global const " +
      type + "* restrict a, const long a_offset, const int lda,");
  return at == std::string::npos ? std::string() : source.substr(at, source.find("\n}\n", at) - at);
}

std::size_t occurrences(const std::string& text, const char* what) {
  std::size_t count = 0;
  for (std::size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1)) ++count;
  return count;
}

// In kernel `k`: with beta = 0 (the branch that `if (beta == <zero>) {` opens) C is never read;
// with beta, every read of C comes before the first write.
void expect_c_read_only_with_beta(const std::string& k, const std::string& zero, const char* name) {
  const std::size_t at = k.find("if (beta == " + zero + ") {"), other = k.find("} else {", at);
  ASSERT_NE(at, std::string::npos) << name;
  EXPECT_EQ(k.substr(at, other - at).find("beta *"), std::string::npos) << name;
  const std::string with_beta = k.substr(other);
  const std::size_t last_read = with_beta.rfind("beta * c["), first_write = with_beta.find("] = c");
  ASSERT_NE(last_read, std::string::npos) << name;
  ASSERT_NE(first_write, std::string::npos) << name;
  EXPECT_LT(last_read, first_write) << name;
}

// The single-precision in-place kernels take the double kernels' arguments with float alpha
// and beta, copy by 4-byte cp.async three slabs ahead, and sum a lane's 4 x 8 on FMAs from
// 16-byte local reads; four stages of both operands fit NVIDIA's 48 KiB.
TEST(InplaceKernelSource, SinglePrecisionOnFmas) {
  const std::string s = sg::inplace_float_kernels_source();
  for (const char* name :
       {"gemm_inplace_nn", "gemm_inplace_nt", "gemm_inplace_tn", "gemm_inplace_tt"}) {
    const std::string k = inplace_kernel_text(s, name, "float");
    ASSERT_FALSE(k.empty()) << name;
    EXPECT_NE(k.find("const float alpha, const float beta, __global float* c"), std::string::npos);
    EXPECT_NE(k.find("__local float a_local[4352] __attribute__((aligned(16)));"),
              std::string::npos);
    EXPECT_NE(k.find("cp.async.ca.shared.global [%0], [%1], 4, %2;"), std::string::npos);
    EXPECT_NE(k.find("cp.async.wait_group 2;"), std::string::npos);
    EXPECT_NE(k.find("if (!idle)"), std::string::npos);
    EXPECT_NE(k.find("(one ? a_local : b_local)"), std::string::npos);
    EXPECT_EQ(occurrences(k, " = fma("), 32u) << name;
    expect_c_read_only_with_beta(k, "0.0f", name);
  }
  EXPECT_LE(2 * 4352 * sizeof(float), 49152u);
}

// The in-place kernels read A and B where they lie: their arguments carry the offsets and
// leading dimensions, each operand is copied k-contiguous (A^T, B) or along C's side (A, B^T)
// into local memory by cp.async, zero past the edge and past the slice's k rows, two slabs ahead
// of the product; three stages of both operands fit NVIDIA's 48 KiB of local memory, and a
// diagonal tile of a Gram product skips B.
TEST(InplaceKernelSource, ReadsInPlaceWithinItsSlice) {
  EXPECT_EQ(sg::inplace_kernel_name('T', 'N'), "gemm_inplace_tn");
  EXPECT_EQ(sg::inplace_kernel_name('N', 'T'), "gemm_inplace_nt");
  const std::string s = sg::inplace_kernels_source();
  for (const char* name :
       {"gemm_inplace_nn", "gemm_inplace_nt", "gemm_inplace_tn", "gemm_inplace_tt"}) {
    const std::string k = inplace_kernel_text(s, name, "double");
    ASSERT_FALSE(k.empty()) << name;
    EXPECT_NE(k.find("const int Ks, const long c_slice, const int same) {"), std::string::npos);
    EXPECT_NE(k.find("const int k0 = slice * Ks, k_len = min(Ks, K - k0);"), std::string::npos);
    EXPECT_NE(k.find("const bool one = same && m0 == n0;"), std::string::npos);
    EXPECT_NE(k.find("(one ? a_local : b_local)"), std::string::npos);
    EXPECT_NE(k.find("__local double a_local[3072];"), std::string::npos);
    EXPECT_NE(k.find("cp.async.wait_group 1;"), std::string::npos);
    // A warp tile past C's edge skips the products.
    EXPECT_NE(k.find("const bool idle = m0 + warp_m * 32 >= m || n0 + warp_n * 32 >= n;"),
              std::string::npos);
    EXPECT_NE(k.find("if (!idle)"), std::string::npos);
    // Eight m16n8k16 per slab: 2 x 4 tiles of the warp's 32 x 32.
    EXPECT_EQ(occurrences(k, "mma.sync"), 8u) << name;
    expect_c_read_only_with_beta(k, "0.0", name);
  }
  EXPECT_LE(2 * 3072 * sizeof(double), 49152u);
  const std::size_t tn = s.find("void gemm_inplace_tn("), nt = s.find("void gemm_inplace_nt(");
  const std::string k_contiguous = s.substr(tn, s.find("\n}\n", tn) - tn);
  const std::string along_c = s.substr(nt, s.find("\n}\n", nt) - nt);
  // A^T: columns clamped to the last one, k contiguous.
  EXPECT_NE(k_contiguous.find("const long a_col7 = (long)min(m0 + a_i + 56, m - 1) * lda;"),
            std::string::npos);
  EXPECT_NE(k_contiguous.find("const bool in_ = base + a_k < k_len && a_left > 24;"),
            std::string::npos);
  EXPECT_NE(k_contiguous.find("(ulong)(in_ ? ga + a_col3 + base + a_k : ga)"), std::string::npos);
  // A: one column per thread, clamped, k rows lda apart.
  EXPECT_NE(along_c.find("const int a_col = min(m0 + a_i, m - 1);"), std::string::npos);
  EXPECT_NE(along_c.find("const bool in_ = base + a_k + 6 < k_len && a_left > 0;"),
            std::string::npos);
  EXPECT_NE(along_c.find("(ulong)(in_ ? ga + (long)(base + a_k + 6) * lda + a_col : ga)"),
            std::string::npos);
  EXPECT_NE(along_c.find("__global const double* ga = a + a_offset + (long)k0 * lda;"),
            std::string::npos);
}
