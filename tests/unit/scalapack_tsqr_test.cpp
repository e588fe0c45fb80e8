// The distributed TSQR (scalapack/distributed_tsqr.hpp) on simulated processes: one thread per
// process of the grid, the all-gathers through shared memory. The local arrays are filled from
// one global matrix as ScaLAPACK lays it out, and the factored sub(A) put back together must
// meet LAPACK's contract and match xGEQRF's V, tau and R (tsqr_checks.hpp); every process of
// sub(A)'s column must hold the same tau bits, a second run must give the same bits, and
// nothing outside sub(A) may change.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <ostream>
#include <thread>
#include <vector>

#include "scalapack/distributed_tsqr.hpp"
#include "scalapack/distribution.hpp"
#include "tsqr_checks.hpp"

namespace switchyard::scalapack {
namespace {

using tsqr::checks::Factored;
using tsqr::checks::Matrix;

// An all-gather among `size` threads: each writes its bytes into a shared slot, and all wait
// until every slot of this round is written and then until every thread has read them.
class SharedGather {
 public:
  explicit SharedGather(int size) : size_(size), slots_(std::size_t(size)) {}

  bool gather(int rank, const void* mine, void* all, std::size_t bytes) {
    const auto* from = static_cast<const unsigned char*>(mine);
    slots_[std::size_t(rank)].assign(from, from + bytes);
    wait();
    for (int r = 0; r < size_; ++r) {
      std::memcpy(static_cast<unsigned char*>(all) + std::size_t(r) * bytes,
                  slots_[std::size_t(r)].data(), bytes);
    }
    wait();
    return true;
  }

 private:
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const int round = round_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++round_;
      done_.notify_all();
    } else {
      done_.wait(lock, [&] { return round_ != round; });
    }
  }

  const int size_;
  std::vector<std::vector<unsigned char>> slots_;
  std::mutex mutex_;
  std::condition_variable done_;
  int arrived_ = 0;
  int round_ = 0;
};

struct Case {
  int m, n, ia, ja;
  int nprow, npcol, mb, nb, rsrc, csrc;
  int leaf_rows;  // 0: cache-sized leaves
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.m << " x " << c.n << " at (" << c.ia << ", " << c.ja << "), " << c.nprow << " x "
      << c.npcol << " grid, MB " << c.mb << " NB " << c.nb << " RSRC " << c.rsrc << " CSRC "
      << c.csrc << ", leaf rows " << c.leaf_rows;
}

// The global matrix: sub(A) at (IA, JA), other entries marked so that a change shows.
struct Global {
  Case c;
  int rows, cols;
  Matrix<double> a;
};

Global global_matrix(const Case& c, const Matrix<double>& sub) {
  Global g{c, c.ia - 1 + c.m + 5, c.ja - 1 + c.n + 2,
           Matrix<double>(c.ia - 1 + c.m + 5, c.ja - 1 + c.n + 2)};
  for (int j = 0; j < g.cols; ++j)
    for (int i = 0; i < g.rows; ++i) g.a(i, j) = 1000 + i + 0.5 * j;
  for (int j = 0; j < c.n; ++j)
    for (int i = 0; i < c.m; ++i) g.a(c.ia - 1 + i, c.ja - 1 + j) = sub(i, j);
  return g;
}

// Process (p, q)'s local array, LLD its row count (at least 1).
Matrix<double> local_array(const Global& g, const Descriptor& d, int p, int q) {
  const Case& c = g.c;
  Matrix<double> local(std::max(1, numroc(g.rows, c.mb, p, c.rsrc, c.nprow)),
                       std::max(1, numroc(g.cols, c.nb, q, c.csrc, c.npcol)));
  for (int j = 0; j < g.cols; ++j) {
    if (index_owner(j + 1, d.nb, d.csrc, c.npcol) != q) continue;
    for (int i = 0; i < g.rows; ++i) {
      if (index_owner(i + 1, d.mb, d.rsrc, c.nprow) != p) continue;
      local(numroc(i, c.mb, p, c.rsrc, c.nprow), numroc(j, c.nb, q, c.csrc, c.npcol)) = g.a(i, j);
    }
  }
  return local;
}

struct Result {
  Matrix<double> a;                       // the global matrix put back together
  std::vector<std::vector<double>> taus;  // per process of the column
};

Result run_distributed(const Global& g) {
  const Case& c = g.c;
  const int ranks = c.nprow * c.npcol;
  std::vector<Matrix<double>> locals;
  std::vector<std::vector<double>> taus{std::size_t(ranks)};
  const Descriptor base{1, 0, g.rows, g.cols, c.mb, c.nb, c.rsrc, c.csrc, 1};
  for (int r = 0; r < ranks; ++r) locals.push_back(local_array(g, base, r / c.npcol, r % c.npcol));
  SharedGather shared(ranks);
  std::vector<std::thread> threads;
  std::vector<int> statuses(std::size_t(ranks), -1);
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      const Grid grid{c.nprow, c.npcol, r / c.npcol, r % c.npcol};
      Descriptor d = base;
      d.lld = locals[std::size_t(r)].ld;
      const Share share = share_of(c.m, c.ia, c.ja, d, grid);
      Matrix<double>& local = locals[std::size_t(r)];
      taus[std::size_t(r)].assign(std::size_t(local.n), -7.0);
      DistributedTsqr<double> tsqr(
          layout_of(c.n, c.ia, c.ja, d, grid), share.in_column ? share.rows : 0,
          local.ptr() + share.first_row + std::size_t(share.first_col) * d.lld, d.lld, 2,
          c.leaf_rows);
      if (tsqr.allocate() != kOk) return;
      const auto gather = [&shared, r](const void* mine, void* all, std::size_t bytes) {
        return shared.gather(r, mine, all, bytes);
      };
      statuses[std::size_t(r)] = tsqr.run(
          gather, share.in_column ? taus[std::size_t(r)].data() + share.first_col : nullptr);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int status : statuses) EXPECT_EQ(status, kOk);

  Result result{Matrix<double>(g.rows, g.cols), {}};
  for (int j = 0; j < g.cols; ++j) {
    const int q = index_owner(j + 1, c.nb, c.csrc, c.npcol);
    for (int i = 0; i < g.rows; ++i) {
      const int p = index_owner(i + 1, c.mb, c.rsrc, c.nprow);
      result.a(i, j) = locals[std::size_t(p * c.npcol + q)](numroc(i, c.mb, p, c.rsrc, c.nprow),
                                                            numroc(j, c.nb, q, c.csrc, c.npcol));
    }
  }
  const int column = index_owner(c.ja, c.nb, c.csrc, c.npcol);
  const int first_col = numroc(c.ja - 1, c.nb, column, c.csrc, c.npcol);
  for (int r = 0; r < ranks; ++r) {
    std::vector<double>& tau = taus[std::size_t(r)];
    if (r % c.npcol == column) {
      result.taus.emplace_back(tau.begin() + first_col, tau.begin() + first_col + c.n);
    } else {
      for (double t : tau) EXPECT_EQ(t, -7.0) << "TAU written outside sub(A)'s column";
    }
  }
  return result;
}

void expect_distributed_qr(const Case& c, const Matrix<double>& sub) {
  const Global g = global_matrix(c, sub);
  const Result first = run_distributed(g);
  for (int j = 0; j < g.cols; ++j) {
    for (int i = 0; i < g.rows; ++i) {
      const bool inside =
          i >= c.ia - 1 && i < c.ia - 1 + c.m && j >= c.ja - 1 && j < c.ja - 1 + c.n;
      if (!inside)
        EXPECT_EQ(first.a(i, j), g.a(i, j)) << "changed outside sub(A) at " << i << ", " << j;
    }
  }
  for (const std::vector<double>& tau : first.taus) {
    EXPECT_EQ(std::memcmp(tau.data(), first.taus[0].data(), tau.size() * sizeof(double)), 0)
        << "processes of the column hold different tau";
  }
  Factored<double> f{Matrix<double>(c.m, c.n), first.taus[0]};
  for (int j = 0; j < c.n; ++j)
    for (int i = 0; i < c.m; ++i) f.a(i, j) = first.a(c.ia - 1 + i, c.ja - 1 + j);
  tsqr::checks::expect_lapack_contract(sub, f);
  tsqr::checks::expect_matches_reference(sub, f);

  const Result second = run_distributed(g);
  EXPECT_EQ(std::memcmp(second.a.ptr(), first.a.ptr(), first.a.data.size() * sizeof(double)), 0)
      << "a second run gave other bits";
}

class DistributedTsqrTest : public ::testing::TestWithParam<Case> {};

TEST_P(DistributedTsqrTest, MatchesGeqrf) {
  const Case& c = GetParam();
  expect_distributed_qr(c, tsqr::checks::gaussian(c.m, c.n, 17));
}

// m, n, IA, JA, grid, MB, NB, RSRC, CSRC, leaf rows.
INSTANTIATE_TEST_SUITE_P(
    Layouts, DistributedTsqrTest,
    ::testing::Values(
        Case{1000, 8, 1, 1, 2, 1, 64, 8, 0, 0, 0},      // P x 1, each process one leaf
        Case{4000, 16, 1, 1, 3, 1, 100, 16, 1, 0, 64},  // several leaves per process, RSRC 1
        Case{2003, 5, 4, 1, 4, 1, 7, 5, 2, 0, 20},      // IA offset, MB < N spreads Q1's rows
        Case{99, 32, 1, 1, 4, 1, 7, 32, 0, 0, 0},       // every process has fewer rows than N
        Case{99, 32, 1, 1, 4, 1, 64, 32, 0, 0, 0},      // processes with no rows
        Case{600, 12, 3, 5, 2, 2, 50, 16, 0, 1, 40},    // 2 x 2: JA's block holds the columns
        Case{32, 32, 1, 1, 2, 1, 5, 32, 0, 0, 0},       // square
        Case{500, 1, 1, 1, 3, 1, 9, 1, 0, 0, 10}));     // one column

TEST(DistributedTsqr, UpperTriangularComesBackUnchangedWithTauZero) {
  const Case c{300, 6, 1, 1, 3, 1, 16, 6, 0, 0, 0};
  Matrix<double> sub(c.m, c.n);
  for (int j = 0; j < c.n; ++j)
    for (int i = 0; i <= j; ++i) sub(i, j) = 1.0 + i + 2.0 * j;
  const Global g = global_matrix(c, sub);
  const Result r = run_distributed(g);
  for (double t : r.taus[0]) EXPECT_EQ(t, 0.0);
  for (int j = 0; j < c.n; ++j)
    for (int i = 0; i < c.m; ++i) EXPECT_EQ(r.a(i, j), sub(i, j)) << i << ", " << j;
}

}  // namespace
}  // namespace switchyard::scalapack
