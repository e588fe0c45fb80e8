#pragma once

// TSQR over the process rows of a ScaLAPACK grid, with the output of pxGEQRF: each process
// factors its own rows of sub(A) on the CPU, the small factors are exchanged with two
// all-gathers over the grid's communicator, and Householder reconstruction gives each process
// its rows of V, so that V, R and TAU end where pxGEQRF puts them.
//
// 1. A process with h >= n rows factors them as the CPU TSQR does (tsqr/cpu_tsqr.hpp): cache-
//    sized leaves on worker threads, then the stack of their R factors, giving its n x n R_p
//    and a local thin Q_p that is kept implicit. A process with 0 < h < n rows keeps them as
//    they are (Q_p = I); one with none contributes nothing.
// 2. All-gather: every process sends R_p (its raw rows padded with zeros when h < n) and W_p,
//    the rows of Q_p at its rows of sub(A) among the first n, if any. Every process of sub(A)'s
//    column then factors the same stack [R_0; ...; R_{P-1}] (P = process rows) with the same
//    kernels, so each one holds the same bits of R and of the stack's explicit Q, whose slice
//    G_p turns Q_p into process p's rows of A's Q. The first n rows of Q, Q1, are W_p G_p for
//    their owners p, and Q1 - S = V1 U is factored by LU on every process (tsqr/cpu_tsqr.hpp
//    explains the reconstruction), again with the same bits everywhere.
// 3. Each process writes V2 = Q2 inv(U) over its rows in one pass over its leaves: its
//    leaves' slices of the local stack's Q times G_p inv(U). Its rows among the first n get
//    V1 and R (R <- S R).
// 4. All-gather of one byte per column: whether any process's V2 column is nonzero. A column
//    whose reflector came out as v = e(j) (already reduced: zero below the diagonal) gets
//    tau = 0 and row j of R is negated, as xGEQRF and pxGEQRF report it. tau(j) = -s(j) U(j,j)
//    on every process of the column, as pxGEQRF replicates TAU there.
//
// Processes outside sub(A)'s process column take part in the all-gathers only.

#include <cstddef>
#include <functional>
#include <vector>

#include "distribution.hpp"

namespace switchyard::scalapack {

// Gathers `bytes` bytes from every process of the communicator into `all`, in rank order;
// false if the communication failed.
using AllGather = std::function<bool(const void* mine, void* all, std::size_t bytes)>;

// The processes as the factorization sees them.
struct Layout {
  int n = 0;                      // columns of sub(A)
  int ranks = 0;                  // processes of the communicator
  std::vector<int> column_ranks;  // the communicator's rank of each process row of the column
  int my_prow = -1;               // this process's row if it is in the column, else -1
  std::vector<RowPlace> top;      // where rows 0 .. n-1 of sub(A) lie
};

// The layout of sub(A) = A(IA:IA+M-1, JA:JA+N-1) for this process, on a grid whose
// communicator ranks the processes row by row (BLACS's).
Layout layout_of(int n, int ia, int ja, const Descriptor& d, const Grid& g);

// The bytes each process sends in the first all-gather, for n columns of T.
std::size_t factor_bytes(int n, std::size_t element_bytes);

// kGpuStepFailed: a device step failed on some process (gpu_ranks.hpp); every process then
// knows it, and A and TAU are as they were.
enum Status : int { kOk = 0, kOutOfMemory = 1, kCommunicationFailed = 2, kGpuStepFailed = 3 };

template <class T>
class DistributedTsqr {
 public:
  // This process's rows of sub(A): h x n at a (lda >= h), in global order. Its leaves have
  // leaf_rows rows (at least n), or about a core's cache size where leaf_rows is 0.
  DistributedTsqr(Layout layout, int h, T* a, int lda, int threads, int leaf_rows = 0);

  // Everything that can fail before A is touched; kOk or kOutOfMemory.
  int allocate();

  // Factors; TAU's n entries are written when this process is in the column (tau may be null
  // otherwise). kCommunicationFailed leaves A partly overwritten.
  int run(const AllGather& gather, T* tau);

 private:
  bool factors_rows() const { return h_ >= layout_.n; }
  int top_rows() const;
  void factor_local();
  void fill_payload();
  void factor_stack_of_r();
  void factor_q1_minus_s();
  void write_v();
  void note_nonzero_v2();
  void write_top_rows_and_tau(T* tau);

  const Layout layout_;
  const int n_;
  const int h_;
  T* const a_;
  const int lda_;
  const int threads_;
  int leaves_ = 0;
  int leaf_rows_ = 0;

  std::vector<T> leaf_t_;    // each leaf's compact-WY T, n x n
  std::vector<T> local_;     // the leaves' R factors stacked, then their reduction's slices
  std::vector<T> local_t_;   // T of that stack, n x n
  std::vector<T> payload_;   // R_p and W_p, n x n each
  std::vector<T> gathered_;  // every process's payload
  std::vector<T> stack_;     // the column's stack of R factors, then its explicit Q
  std::vector<T> stack_t_;   // n x n
  std::vector<T> identity_;  // n x n
  std::vector<T> r_;         // R of sub(A) before the signs, n x n
  std::vector<T> q1_;        // Q1, then V1 below its diagonal and U on and above it
  std::vector<T> s_;         // the reconstruction signs
  std::vector<T> x_;         // G_p inv(U), n x n
  std::vector<T> scratch_;   // n x n
  std::vector<unsigned char> nonzero_;           // this process's V2 columns that are nonzero
  std::vector<unsigned char> gathered_nonzero_;  // every process's
  std::vector<std::vector<T>>* blocks_ = nullptr;  // a padded leaf copy per worker (kept)
  std::vector<std::vector<T>> kernel_;           // the leaf kernels' work per worker
  std::vector<std::vector<T>> taus_;  // factor_block's tau per worker (T's diagonal repeats it)
};

}  // namespace switchyard::scalapack
