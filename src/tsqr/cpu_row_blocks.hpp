// The row blocks of the CPU TSQR (cpu_tsqr.hpp) and what working on them takes: how A's rows
// are cut into cache-sized blocks, the padded copies the kernels work on, and the worker
// threads that take the blocks one at a time. Shared by the one-process TSQR, the local stage
// of the distributed one (scalapack/distributed_tsqr.hpp), and the host stage of the TSQR split
// over devices (qr/gpu/split_tsqr.hpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

namespace switchyard::tsqr {

using Index = std::ptrdiff_t;

// Leaf blocks of about a core's L2 cache size: factor_block sweeps a block once per column,
// and larger blocks shrink the serial stack factorization.
constexpr std::size_t kLeafBlockBytes = 1024 * 1024;

// Where the stack is factored serially (default_block_rows), that costs about 5 p n^3 flops
// against 5 m n^2 / threads for the parallel passes, a ratio of threads n / rows; blocks of at
// least this many times threads * n rows keep it below 1/16.
constexpr int kStackRowsPerThreadColumn = 16;

// Rows [first(i), first(i) + height(i)) form block i; the last block also takes the remainder,
// so every block has at least `rows` >= n rows.
struct RowBlocks {
  Index m;
  int rows;
  int count;

  Index first(int i) const { return Index{i} * rows; }
  // The last block's remainder is less than 2 rows' worth of blocks: it fits an int.
  int height(int i) const { return i + 1 < count ? rows : int(m - first(count - 1)); }
  int max_height() const { return height(count - 1); }
};

inline RowBlocks split_rows(Index m, int block_rows) {
  return {m, block_rows, int(std::max<Index>(1, m / block_rows))};
}

// Leaves for a TSQR whose stack is factored on one thread (the distributed TSQR's local stage).
inline int default_block_rows(Index m, int n, int threads, std::size_t element_bytes) {
  const Index cache_rows = Index(kLeafBlockBytes / (element_bytes * std::size_t(n)));
  const Index stack_rows = Index{kStackRowsPerThreadColumn} * threads * n;
  const Index rows_per_thread = m / threads;
  return int(std::max<Index>(n, std::min(std::max(cache_rows, stack_rows), rows_per_thread)));
}

// The one-process TSQR (cpu_tsqr.cpp) reduces its stack of R factors in parallel levels, so
// its leaves need not grow with the number of threads: a cache's size, but at least
// kMinLeafRowsPerColumn * n rows up to kMaxLeafRows, which keeps each leaf's work of order n^3
// (its T, its part of the stacks above) small beside its h n^2, and at most m / threads, so
// that every thread has a leaf. In double on the H200 machine's 16 cores (2 MiB of L2 each),
// 4096 rows did best at n = 32 and 64 and 8192 at n = 256, where 16384 ran an eighth slower
// on 2 cores.
constexpr int kMinLeafRowsPerColumn = 64;
constexpr int kMaxLeafRows = 8192;

// A short matrix leaves fewer threads their leaf: none is cut shorter than kShortestLeafRows
// rows and kShortestLeafElements elements. Below that, what a thread costs to start and the
// levels of R factors above the leaves outweigh a leaf's own work. Best of 3 on the H200
// machine's 16 cores, `cpu-tsqr-timing --threads P` at P = 2 to 16 (2026-12-03): 4096 x 256
// took 60.8 ms on 4 threads (leaves of 1024 rows) against 120 on 16, 4096 x 128 14.8 against
// 23.5, 8192 x 16 0.5 against 1.2; from 16384 x 32 and 16384 x 64 on, 16 threads did as well
// as any. The fastest leaves held 1024 to 2048 rows from 32 columns on, 2048 to 5000 at 8 and
// 16 columns.
constexpr int kShortestLeafRows = 1024;
constexpr int kShortestLeafElements = 32768;

inline int leaf_block_rows(Index m, int n, int threads, std::size_t element_bytes) {
  const Index cache_rows = Index(kLeafBlockBytes / (element_bytes * std::size_t(n)));
  const Index least_rows = std::min(Index{kMinLeafRowsPerColumn} * n, Index{kMaxLeafRows});
  const Index shortest_rows = std::max(kShortestLeafRows, kShortestLeafElements / n);
  const Index thread_rows = std::max(m / threads, shortest_rows);
  return int(std::max<Index>(n, std::min(std::max(cache_rows, least_rows), thread_rows)));
}

// Runs task(worker, item) for every item in [0, items) on up to `workers` threads, the caller's
// included, handing items out one at a time. A thread that cannot be started only costs speed:
// the running ones take its share, so this cannot fail once A is being overwritten.
template <class Task>
void run_parallel(int items, int workers, const Task& task) {
  std::atomic<int> next{0};
  const auto work = [&](int worker) {
    for (int item = next.fetch_add(1); item < items; item = next.fetch_add(1)) task(worker, item);
  };
  std::vector<std::thread> pool;
  try {
    pool.reserve(std::size_t(workers - 1));
    for (int worker = 1; worker < workers; ++worker) pool.emplace_back(work, worker);
  } catch (const std::exception&) {
    // Carry on with the threads that did start.
  }
  work(0);
  for (std::thread& thread : pool) thread.join();
}

template <class T>
void copy_matrix(int m, int n, const T* from, Index ld_from, T* to, Index ld_to) {
  for (int j = 0; j < n; ++j) std::copy_n(from + Index{j} * ld_from, m, to + Index{j} * ld_to);
}

// The kernels work on a copy of a block whose columns lie an odd number of cache lines apart:
// in A they are lda apart, often a multiple of a large power of two, and would then all map to
// the same few cache sets, so that a block that fits the cache by size would not stay in it.
// Copied column by column, A is also read and written in long contiguous runs.
template <class T>
int padded_lead(int rows) {
  constexpr int kLine = int(64 / sizeof(T));
  return (rows + kLine - 1) / kLine * kLine + kLine;
}

template <class T>
void copy_upper_triangle(int n, const T* from, Index ld_from, T* to, Index ld_to) {
  for (int j = 0; j < n; ++j) std::copy_n(from + Index{j} * ld_from, j + 1, to + Index{j} * ld_to);
}

// Scratch for one worker thread.
template <class T>
struct Workspace {
  // A block being worked on, columns padded_lead apart. Left uninitialised: every element read
  // is first copied in, so its pages are first touched by the worker that uses them, in
  // parallel, rather than zeroed by the caller, one thread for every worker's buffer (16 MiB
  // and more on 16 threads, at every call's start).
  std::unique_ptr<T[]> block;
  std::vector<T> kernel;  // the cpu_leaf kernels' work
  std::vector<T> tau;     // factor_block's tau, not needed past T's diagonal, which repeats it
};

}  // namespace switchyard::tsqr
