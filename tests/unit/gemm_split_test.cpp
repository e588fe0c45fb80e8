// The gemm route split over several OpenCL devices (split_gemm.hpp) against reference BLAS:
// how C is cut, and a split call on the devices SWITCHYARD_DEVICES names (in CI three contexts
// on PoCL's one device, SWITCHYARD_DEVICES=0,0,0; on the GPU machine every GPU) for every
// transpose, C cut along its rows and along its columns, beta = 0 over NaN, alpha = 0, k = 0,
// padded leading dimensions, with the operand every device reads copied once for all and
// copied by each; and a call whose one device fails, which must report exactly that device's
// block as unwritten and leave it as given, while the others finish theirs.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/finish_blocks.hpp"
#include "gemm/split_gemm.hpp"
#include "gemm_cases.hpp"
#include "reference_blas.hpp"

namespace switchyard {
namespace {

using namespace gemm_test;

// Every element of an m x n C in exactly one block, blocks along the longer side in order.
void expect_cover(const std::vector<gemm::CBlock>& blocks, int m, int n) {
  std::vector<int> count(std::size_t(m) * n, 0);
  for (const gemm::CBlock& b : blocks) {
    ASSERT_TRUE(b.rows > 0 && b.cols > 0 && b.row + b.rows <= m && b.col + b.cols <= n);
    for (int j = b.col; j < b.col + b.cols; ++j)
      for (int i = b.row; i < b.row + b.rows; ++i) ++count[i + std::size_t(j) * m];
  }
  for (int c : count) ASSERT_EQ(c, 1);
}

TEST(GemmSplitRules, BlocksCoverCOnceAlongItsLongerSide) {
  // Rows, in whole steps of 64 but the last.
  std::vector<gemm::CBlock> b = gemm::split_blocks(1000, 300, 2, 64, 32);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].rows, 512);
  EXPECT_EQ(b[1].row, 512);
  EXPECT_EQ(b[0].cols, 300);
  expect_cover(b, 1000, 300);
  // Columns when C is wider than tall.
  b = gemm::split_blocks(300, 1000, 3, 64, 32);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].cols % 32, 0);
  EXPECT_EQ(b[0].rows, 300);
  expect_cover(b, 300, 1000);
  // Fewer steps than devices: one block a step.
  b = gemm::split_blocks(70, 5, 4, 64, 32);
  EXPECT_EQ(b.size(), 2u);
  expect_cover(b, 70, 5);
  b = gemm::split_blocks(1, 1, 2, 64, 32);
  EXPECT_EQ(b.size(), 1u);
  expect_cover(b, 1, 1);
}

TEST(GemmSplitRules, OnlyProductsBoundByTheirKernelsPay) {
  EXPECT_FALSE(gemm::pays_to_split(16384, 16384, 16384, 8, 1));
  EXPECT_TRUE(gemm::pays_to_split(16384, 16384, 16384, 8, 2));  // 1365 flop/byte
  EXPECT_TRUE(gemm::pays_to_split(20000, 20000, 20000, 8, 8));
  EXPECT_FALSE(gemm::pays_to_split(12288, 12288, 12288, 8, 2));  // 1024
  EXPECT_TRUE(gemm::pays_to_split(12288, 12288, 12288, 4, 2));   // single: 2048
  EXPECT_FALSE(gemm::pays_to_split(8192, 8192, 8192, 4, 2));     // 1365, but not measured split
  EXPECT_FALSE(gemm::pays_to_split(32768, 4096, 8192, 8, 2));    // 630
  EXPECT_FALSE(gemm::pays_to_split(65536, 65536, 256, 8, 2));    // a long, thin k
  EXPECT_FALSE(gemm::pays_to_split(0, 16384, 16384, 8, 2));
}

// A variant whose tiles are small, so that small products are cut over every device.
const char* const kSmallTiles = "ml=16 nl=16 kl=4 ms=4 ns=2 ks=1 vw=1 local=A layout=RBL,ROW";

// The shares of the devices SWITCHYARD_DEVICES names, with the kernels of kSmallTiles in T's
// precision; `skip` says why there are none.
template <class T>
std::vector<gemm::Share> shares(std::string& skip) {
  std::string why;
  const std::vector<opencl::Runtime*> runtimes = opencl::split_runtimes(why);
  if (runtimes.empty()) {
    skip = "no split: " + why;
    return {};
  }
  const Precision precision = sizeof(T) == 8 ? Precision::f64 : Precision::f32;
  if (precision == Precision::f64 && !runtimes[0]->device().has_fp64) {
    skip = "no fp64";
    return {};
  }
  std::vector<gemm::Share> made;
  for (opencl::Runtime* rt : runtimes) {
    gemm::Kernels* kernels = gemm::kernels_for(*rt, params(kSmallTiles, precision), why);
    EXPECT_NE(kernels, nullptr) << why;
    if (!kernels) return {};
    made.push_back({rt, kernels});
  }
  return made;
}

// The shared staging of the shares' devices.
opencl::SharedStaging* shared_staging_of(const std::vector<gemm::Share>& s) {
  std::vector<opencl::Runtime*> runtimes;
  for (const gemm::Share& share : s) runtimes.push_back(share.rt);
  std::string error;
  opencl::SharedStaging* shared = opencl::shared_staging(runtimes, error);
  EXPECT_NE(shared, nullptr) << error;
  return shared;
}

// Each call runs with the operand every device reads copied by each and copied once for all,
// in pieces of 40 bytes, so that every slot is filled again many times in one call.
template <class T>
void check_split() {
  std::string skip;
  const std::vector<gemm::Share> s = shares<T>(skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_FALSE(s.empty());
  opencl::SharedStaging* const shared = shared_staging_of(s);
  ASSERT_NE(shared, nullptr);
  gemm::SplitProbe small_pieces;
  small_pieces.piece_bytes = 40;
  // Tall and wide C over every device, one step of the tile, k = 0, alpha = 0.
  const Case shapes[] = {{'N', 'N', 101, 23, 37, 1.0, 0.0, 3},
                         {'N', 'N', 29, 133, 19, -0.7, 0.5, 2},
                         {'N', 'N', 16, 7, 5, 2.0, 1.0, 0},
                         {'N', 'N', 64, 40, 0, 1.5, 0.5, 1},
                         {'N', 'N', 70, 17, 9, 0.0, -2.0, 0}};
  unsigned seed = 70;
  for (const char* pair : {"NN", "NT", "TN", "TT"}) {
    for (Case c : shapes) {
      c.ta = pair[0];
      c.tb = pair[1];
      const Problem<T> p = problem<T>(c, seed += 3);
      for (opencl::SharedStaging* staging :
           {static_cast<opencl::SharedStaging*>(nullptr), shared}) {
        std::vector<T> got = p.c0;
        std::string error;
        std::vector<gemm::CBlock> unwritten;
        ASSERT_TRUE(gemm::gemm_split<T>(s, staging, c.ta, c.tb, c.m, c.n, c.k, T(c.alpha),
                                        p.a.data(), p.lda, p.b.data(), p.ldb, T(c.beta), got.data(),
                                        p.ldc, unwritten, error, small_pieces))
            << error;
        EXPECT_TRUE(unwritten.empty());
        expect_result(c, p, got,
                      "a split over " + std::to_string(s.size()) + " devices" +
                          (staging ? ", the operand all read copied once" : ""));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(GemmSplit, DoubleEveryTransposeBothCuts) { check_split<double>(); }

TEST(GemmSplit, FloatEveryTransposeBothCuts) { check_split<float>(); }

// One device's first upload fails: its block, and only its block, is reported unwritten and
// holds what the caller gave; every other block is final; finishing the reported block in
// reference gemm gives the product. When C is a single block, the failure leaves all of C.
TEST(GemmSplit, OneDeviceFailingLeavesItsBlockAsGiven) {
  std::string skip;
  const std::vector<gemm::Share> s = shares<double>(skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  opencl::SharedStaging* const shared = shared_staging_of(s);
  ASSERT_NE(shared, nullptr);
  const gemm::StreamFault fault{gemm::StreamFault::Step::upload, 0};
  for (const Case& c :
       {Case{'T', 'N', 101, 23, 37, 1.0, 0.5, 2}, Case{'N', 'T', 9, 5, 7, 1.0, 0.0, 0}}) {
    const std::vector<gemm::CBlock> blocks = gemm::split_blocks(c.m, c.n, int(s.size()), 16, 16);
    for (int failing = 0; failing < int(blocks.size()); ++failing) {
      SCOPED_TRACE("device " + std::to_string(failing) + " of " + std::to_string(blocks.size()));
      const Problem<double> p = problem<double>(c, 300 + unsigned(failing));
      std::vector<double> got = p.c0;
      std::string error;
      std::vector<gemm::CBlock> unwritten;
      gemm::SplitProbe probe;
      probe.fault = &fault;
      probe.fault_share = failing;
      probe.piece_bytes = 40;
      ASSERT_FALSE(gemm::gemm_split<double>(s, shared, c.ta, c.tb, c.m, c.n, c.k, c.alpha,
                                            p.a.data(), p.lda, p.b.data(), p.ldb, c.beta,
                                            got.data(), p.ldc, unwritten, error, probe));
      EXPECT_NE(error.find("device " + std::to_string(failing)), std::string::npos) << error;
      ASSERT_EQ(unwritten.size(), 1u);
      const gemm::CBlock& u = unwritten[0];
      const gemm::CBlock& b = blocks[std::size_t(failing)];
      EXPECT_TRUE(u.row == b.row && u.col == b.col && u.rows == b.rows && u.cols == b.cols);
      EXPECT_EQ(gemm::untouched(unwritten, c.m, c.n), blocks.size() == 1);
      for (int j = u.col; j < u.col + u.cols; ++j)
        for (int i = u.row; i < u.row + u.rows; ++i) {
          const std::size_t at = i + std::size_t(j) * p.ldc;
          ASSERT_EQ(std::memcmp(&got[at], &p.c0[at], sizeof(double)), 0) << i << "," << j;
        }
      const GemmCall<double> call{c.ta,  c.tb,       c.m,   c.n,    c.k,        c.alpha, p.a.data(),
                                  p.lda, p.b.data(), p.ldb, c.beta, got.data(), p.ldc};
      gemm::finish_blocks(test::reference_gemm<double>(), call, unwritten);
      expect_result(c, p, got, "the failed device's block finished in reference gemm");
    }
  }
}

// A device whose pieces of the shared operand differ from those the feed was offered first is
// refused: it leaves the feed and copies its own, in its own slots' size, and C is right.
TEST(GemmSplit, ADeviceRefusedByTheFeedCopiesItsOwn) {
  std::string skip;
  const std::vector<gemm::Share> s = shares<double>(skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  opencl::SharedStaging* const shared = shared_staging_of(s);
  ASSERT_NE(shared, nullptr);
  const Case c{'N', 'N', 40, 30, 50, 1.0, 0.5, 1};
  const Problem<double> p = problem<double>(c, 900);
  // Device 0 offers pieces of another matrix, then stops. The matrix outlives the feed, whose
  // workers may still be copying from it until the feed is destroyed.
  std::vector<double> other(std::size_t(c.k) * c.n);
  std::vector<gemm::Piece<double>> others;
  gemm::split<double>(other.data(), c.k, c.k, c.n, nullptr, c.k, 0, 0, 100, others);
  gemm::Feed<double> feed(&s[0].rt->cl(), shared->slots, opencl::SharedStaging::kSlotBytes, 2);
  ASSERT_TRUE(feed.working());
  std::vector<const gemm::Piece<double>*> offered;
  for (const gemm::Piece<double>& piece : others) offered.push_back(&piece);
  ASSERT_TRUE(feed.offer(0, offered));
  feed.leave(0);
  // Device 1: its op(B) is another host matrix, so the feed refuses it.
  gemm::StreamPlan plan = gemm::default_plan(s[0].kernels->params, c.n);
  plan.piece_bytes = 40;
  plan.fed_piece_bytes = std::size_t(64) << 20;  // more than its own slots hold
  std::vector<double> got = p.c0;
  std::string error;
  std::vector<gemm::CBlock> unwritten;
  ASSERT_TRUE(gemm::gemm_streamed<double>(*s[0].rt, *s[0].kernels, c.ta, c.tb, c.m, c.n, c.k,
                                          c.alpha, p.a.data(), p.lda, p.b.data(), p.ldb, c.beta,
                                          got.data(), p.ldc, plan, unwritten, error, nullptr,
                                          {&feed, 1, gemm::Operand::b}))
      << error;
  expect_result(c, p, got, "a device refused by the feed");
}

}  // namespace
}  // namespace switchyard
