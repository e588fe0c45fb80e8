// The NVIDIA TN kernel emitters: which parameter sets they accept, and what the sources hold.
// The kernels themselves run on the GPU machine (tools/bench/mma_probe.cpp checks them there).
#include <gtest/gtest.h>

#include "gemm/ffma_kernel_source.hpp"
#include "gemm/mma_kernel_source.hpp"

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
  EXPECT_NE(s.find("__local double a_local[4096]"), std::string::npos);  // 2 x 16 x 128
  EXPECT_NE(s.find("(g ^ (t << 2))"), std::string::npos);
  EXPECT_NE(s.find("a_frag8"), std::string::npos);
  p.swizzle = false;
  EXPECT_EQ(sg::mma_kernel_source(p).find("(g ^ (t << 2))"), std::string::npos);
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
  for (const char* line : {"const int slice = get_group_id(2);",
                           "const int k0 = slice * Ks, k_len = min(Ks, Kp - k0);",
                           "c += (long)slice * c_slice;", "const int k_pad = k_len;",
                           "a += (size_t)k0 * lda;", "b += (size_t)k0 * ldb;"}) {
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
