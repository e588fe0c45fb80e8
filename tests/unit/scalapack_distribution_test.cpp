// ScaLAPACK's distribution rules as pxGEQRF applies them (scalapack/distribution.hpp): NUMROC,
// CHK1MAT's codes, LWMIN, which layouts the TSQR takes and declines, and where each row of
// sub(A) lies, the last against a plain walk over the block-cyclic layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scalapack/distribution.hpp"
#include "scalapack/rank_threads.hpp"

namespace switchyard::scalapack {
namespace {

// DESCA of an m_ x n_ matrix on grid g, blocks mb x nb from process (rsrc, csrc), with the
// smallest valid LLD on this process.
Descriptor descriptor(int rows, int cols, int mb, int nb, int rsrc, int csrc, const Grid& g) {
  const int lld = std::max(1, numroc(rows, mb, g.myrow, rsrc, g.nprow));
  return {1, 0, rows, cols, mb, nb, rsrc, csrc, lld};
}

TEST(ScalapackDistribution, NumrocDealsBlocksFromTheSourceProcess) {
  // 10 items in blocks of 3 over 2 processes from process 0: {0,1,2, 6,7,8} and {3,4,5, 9}.
  EXPECT_EQ(numroc(10, 3, 0, 0, 2), 6);
  EXPECT_EQ(numroc(10, 3, 1, 0, 2), 4);
  // From process 1 the shares swap.
  EXPECT_EQ(numroc(10, 3, 1, 1, 2), 6);
  EXPECT_EQ(numroc(10, 3, 0, 1, 2), 4);
  EXPECT_EQ(numroc(0, 3, 0, 0, 2), 0);
  EXPECT_EQ(numroc(2, 4, 3, 0, 4), 0);    // a process with nothing
  EXPECT_EQ(index_owner(7, 3, 1, 2), 1);  // global 7 is in block 2, dealt from process 1
  EXPECT_EQ(index_owner(4, 3, 1, 2), 0);
}

TEST(ScalapackDistribution, ArgumentChecksAreChk1matsInItsOrder) {
  const Grid g{2, 1, 0, 0};
  const Descriptor good = descriptor(100, 8, 16, 8, 0, 0, g);
  EXPECT_EQ(check_arguments(100, 8, 1, 1, good, g), 0);
  Descriptor d = good;
  d.dtype = 2;
  EXPECT_EQ(check_arguments(100, 8, 1, 1, d, g), -601);
  EXPECT_EQ(check_arguments(-1, 8, 1, 1, good, g), -1);
  EXPECT_EQ(check_arguments(100, -1, 1, 1, good, g), -2);
  EXPECT_EQ(check_arguments(100, 8, 0, 1, good, g), -4);
  EXPECT_EQ(check_arguments(100, 8, 1, 0, good, g), -5);
  d = good;
  d.mb = 0;
  EXPECT_EQ(check_arguments(100, 8, 1, 1, d, g), -605);
  d = good;
  d.nb = 0;
  EXPECT_EQ(check_arguments(100, 8, 1, 1, d, g), -606);
  d = good;
  d.rsrc = 2;
  EXPECT_EQ(check_arguments(100, 8, 1, 1, d, g), -607);
  d = good;
  d.csrc = -1;
  EXPECT_EQ(check_arguments(100, 8, 1, 1, d, g), -608);
  d = good;
  d.lld = 0;
  EXPECT_EQ(check_arguments(100, 8, 1, 1, d, g), -609);
  d = good;
  d.lld = good.lld - 1;
  EXPECT_EQ(check_arguments(100, 8, 1, 1, d, g), -609);
  // Past the matrix: IA + M - 1 > M_ names M, JA + N - 1 > N_ names N, IA > M_ names IA.
  EXPECT_EQ(check_arguments(100, 8, 2, 1, good, g), -1);
  EXPECT_EQ(check_arguments(100, 8, 1, 2, good, g), -2);
  EXPECT_EQ(check_arguments(1, 8, 101, 1, good, g), -4);
  // An empty sub(A) is checked only for a negative M_ or N_.
  EXPECT_EQ(check_arguments(0, 8, 500, 1, good, g), 0);
  // The earliest failing argument wins: M before DESCA's entries.
  d = good;
  d.mb = 0;
  EXPECT_EQ(check_arguments(-1, 8, 1, 1, d, g), -1);
}

TEST(ScalapackDistribution, AProcessWithoutColumnsMayHaveAnyLld) {
  // On a 1 x 2 grid with NB = 8, process column 1 holds none of 8 columns.
  const Grid holds_none{1, 2, 0, 1};
  Descriptor d{1, 0, 100, 8, 16, 8, 0, 0, 1};
  EXPECT_EQ(check_arguments(100, 8, 1, 1, d, holds_none), 0);
  const Grid holds_all{1, 2, 0, 0};
  EXPECT_EQ(check_arguments(100, 8, 1, 1, d, holds_all), -609);
}

TEST(ScalapackDistribution, MinimumWorkspaceIsPdgeqrfs) {
  // LWMIN = NB (MP0 + NQ0 + NB), MP0 and NQ0 counted from IA's and JA's block starts.
  const Grid g{2, 1, 1, 0};
  const Descriptor d = descriptor(1000, 8, 64, 8, 0, 0, g);
  // Rows 1..1000 in blocks of 64 over 2 process rows: process row 1 holds blocks 1, 3, .., 15,
  // the last of them rows 961..1000: 7 * 64 + 40 rows.
  EXPECT_EQ(minimum_lwork(1000, 8, 1, 1, d, g), 8 * (7 * 64 + 40 + 8 + 8));
  // IA = 3: MP0 counts M + 2 rows from IA's block start.
  EXPECT_EQ(minimum_lwork(998, 8, 3, 1, d, g), 8 * (7 * 64 + 40 + 8 + 8));
}

TEST(ScalapackDistribution, TsqrTakesColumnsHeldByOneProcessColumn) {
  const Grid column{4, 1, 0, 0};
  const Grid square{2, 2, 0, 0};
  // A P x 1 grid holds every column in its one process column, whatever NB.
  EXPECT_EQ(layout_declines(1000, 32, 1, 1, descriptor(1000, 32, 16, 4, 0, 0, column), column),
            nullptr);
  // On a 2 x 2 grid, JA's column block must hold all N columns.
  EXPECT_EQ(layout_declines(1000, 32, 1, 1, descriptor(1000, 32, 16, 32, 0, 0, square), square),
            nullptr);
  EXPECT_NE(layout_declines(1000, 32, 1, 1, descriptor(1000, 32, 16, 16, 0, 0, square), square),
            nullptr);
  // JA = 5 in blocks of 32: columns 5..36 cross into the next block, 5..32 do not.
  const Descriptor wide = descriptor(1000, 64, 16, 32, 0, 0, square);
  EXPECT_NE(layout_declines(1000, 32, 1, 5, wide, square), nullptr);
  EXPECT_EQ(layout_declines(1000, 28, 1, 5, wide, square), nullptr);
}

TEST(ScalapackDistribution, TsqrDeclinesShortAndEmptyMatrices) {
  const Grid g{2, 1, 0, 0};
  const Descriptor d = descriptor(1000, 64, 16, 64, 0, 0, g);
  EXPECT_NE(layout_declines(20, 32, 1, 1, d, g), nullptr);  // M < N
  EXPECT_NE(layout_declines(1000, 0, 1, 1, d, g), nullptr);
  EXPECT_EQ(layout_declines(32, 32, 1, 1, d, g), nullptr);  // square is still a QR
}

TEST(ScalapackDistribution, GpuVariantNeedsTheTopRowsOnOneProcess) {
  const Grid two{2, 1, 0, 0};
  const Descriptor d = descriptor(4096, 64, 1024, 64, 0, 0, two);
  EXPECT_EQ(gpu_layout_declines(4096, 64, 1, d, two), nullptr);
  // Panels of 64 columns up to the GPU QR's 256.
  const Descriptor wide = descriptor(4096, 512, 1024, 512, 0, 0, two);
  EXPECT_EQ(gpu_layout_declines(4096, 256, 1, wide, two), nullptr);
  EXPECT_NE(gpu_layout_declines(4096, 257, 1, wide, two), nullptr);
  // IA = 1000 in blocks of 1024: rows 1000..1063 cross into process 1's block, 1000..1024 not.
  EXPECT_NE(gpu_layout_declines(3000, 64, 1000, d, two), nullptr);
  EXPECT_EQ(gpu_layout_declines(3000, 25, 1000, d, two), nullptr);
  // One process row holds every row, however small its blocks.
  const Grid one{1, 2, 0, 0};
  EXPECT_EQ(gpu_layout_declines(4096, 64, 1, descriptor(4096, 64, 8, 64, 0, 0, one), one),
            nullptr);
  // M = 1024 + 10: process 1 holds 10 rows, fewer than N = 64 but some.
  EXPECT_NE(gpu_layout_declines(1034, 64, 1, d, two), nullptr);
  // M = 1024: process 1 holds none, which is allowed.
  EXPECT_EQ(gpu_layout_declines(1024, 64, 1, d, two), nullptr);
}

// Every row of sub(A), found by walking the block-cyclic layout row by row, against share_of
// and row_place, for offsets, sources and block sizes around their edges.
TEST(ScalapackDistribution, SharesAndRowPlacesMatchTheLayout) {
  for (int nprow : {1, 2, 3, 4}) {
    for (int mb : {1, 3, 7, 16}) {
      for (int rsrc = 0; rsrc < nprow; ++rsrc) {
        for (int ia : {1, 2, 5, 17}) {
          for (int m : {0, 1, 9, 40}) {
            const int rows = ia - 1 + m + 3;
            std::vector<int> local_next(std::size_t(nprow), 0);  // local rows seen per process
            std::vector<int> first(std::size_t(nprow), -1), count(std::size_t(nprow), 0);
            std::vector<RowPlace> places;
            for (int global = 0; global < rows; ++global) {
              const int p = (rsrc + global / mb) % nprow;
              const int local = local_next[std::size_t(p)]++;
              if (global < ia - 1 || global >= ia - 1 + m) continue;
              if (first[std::size_t(p)] < 0) first[std::size_t(p)] = local;
              places.push_back({p, count[std::size_t(p)]++});
            }
            for (int p = 0; p < nprow; ++p) {
              const Grid g{nprow, 1, p, 0};
              const Descriptor d = descriptor(rows, 4, mb, 4, rsrc, 0, g);
              const Share s = share_of(m, ia, 1, d, g);
              SCOPED_TRACE(::testing::Message() << "P " << nprow << " MB " << mb << " RSRC " << rsrc
                                                << " IA " << ia << " M " << m << " p " << p);
              EXPECT_TRUE(s.in_column);
              EXPECT_EQ(s.rows, count[std::size_t(p)]);
              if (s.rows > 0) EXPECT_EQ(s.first_row, first[std::size_t(p)]);
            }
            for (int i = 0; i < m; ++i) {
              const Descriptor d = descriptor(rows, 4, mb, 4, rsrc, 0, Grid{nprow, 1, 0, 0});
              const RowPlace place = row_place(i, ia, d, nprow);
              EXPECT_EQ(place.prow, places[std::size_t(i)].prow) << "row " << i;
              EXPECT_EQ(place.index, places[std::size_t(i)].index) << "row " << i;
            }
          }
        }
      }
    }
  }
}

TEST(ScalapackDistribution, ShareFindsTheColumnHoldingJa) {
  // 1 x 3 grid, NB = 4, CSRC = 1: JA = 6 is in column block 1, on process column 2, where it
  // is local column 1 (0-based).
  for (int mycol = 0; mycol < 3; ++mycol) {
    const Grid g{1, 3, 0, mycol};
    const Descriptor d = descriptor(50, 20, 8, 4, 0, 1, g);
    const Share s = share_of(50, 1, 6, d, g);
    EXPECT_EQ(s.column, 2);
    EXPECT_EQ(s.in_column, mycol == 2);
    if (mycol == 2) EXPECT_EQ(s.first_col, 1);
  }
}

TEST(ScalapackDistribution, RankThreadsShareTheMachine) {
  const auto none = [](const char*) -> const char* { return nullptr; };
  const auto four_ranks = [](const char* name) -> const char* {
    return std::string(name) == "OMPI_COMM_WORLD_LOCAL_SIZE" ? "4" : nullptr;
  };
  EXPECT_EQ(rank_threads(1, 16, four_ranks), 1);   // bound to one CPU
  EXPECT_EQ(rank_threads(16, 16, four_ranks), 4);  // unbound: a quarter each
  EXPECT_EQ(rank_threads(2, 2, four_ranks), 1);    // more ranks than CPUs
  EXPECT_EQ(rank_threads(8, 8, none), 8);          // no launcher: the whole machine
}

}  // namespace
}  // namespace switchyard::scalapack
