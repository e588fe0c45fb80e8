#include "cpu_tsqr.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <new>
#include <stdexcept>
#include <vector>

#include "cpu_leaf.hpp"
#include "cpu_row_blocks.hpp"
#include "small_pivoted_qr.hpp"

namespace switchyard::tsqr {
namespace {

bool valid_arguments(Index m, int n, const void* a, Index lda, const void* tau, int threads) {
  return n >= 1 && m >= n && lda >= m && a && tau && threads >= 1;
}

template <class T>
int geqrf_lwork(const Lapack<T>& la, int m, int n, T* a, int lda, T* tau) {
  T answer{};
  const int query = -1;
  int info = 0;
  la.geqrf(&m, &n, a, &lda, tau, &answer, &query, &info);
  return info == 0 ? lwork_from_query(answer) : -1;
}

// The arguments of the calls below are valid by construction, so their INFO is always 0.
template <class T>
void geqrf(const Lapack<T>& la, int m, int n, T* a, int lda, T* tau, std::vector<T>& work) {
  const int lwork = int(work.size());
  int info = 0;
  la.geqrf(&m, &n, a, &lda, tau, work.data(), &lwork, &info);
}

template <class T>
bool any_nonzero(const T* x, int count) {
  // NaN compares unequal to zero, so a NaN vector is never taken for an already reduced one.
  return std::any_of(x, x + count, [](T value) { return value != T(0); });
}

template <class T>
class Factorization {
 public:
  // With `pivoting`, the factorization is xGEQP3's (factor_pivoted_cpu), else xGEQRF's.
  Factorization(int n, T* a, Index lda, const Lapack<T>& la, RowBlocks blocks, int workers,
                SmallPivotedQr<T>* pivoting = nullptr)
      : n_(n), lda_(lda), a_(a), la_(la), blocks_(blocks), workers_(workers), pivoting_(pivoting) {}

  // Everything that can fail happens here, before A is touched.
  int allocate() {
    try {
      const std::size_t n = std::size_t(n_);
      leaf_t_.resize(std::size_t(blocks_.count) * n * n);
      stack_.resize(std::size_t(stack_lead()) * n);  // zero below each block's R, as required
      stack_t_.resize(n * n);
      small_q_.resize(n * n);
      for (std::size_t j = 0; j < n; ++j) small_q_[j * n + j] = 1;
      r_.resize(n * n);
      s_.resize(n);
      v_nonzero_.resize(std::size_t(blocks_.count) * n);
      workspaces_.resize(std::size_t(workers_));
      for (Workspace<T>& workspace : workspaces_) {
        workspace.block.reset(new T[std::size_t(padded_lead<T>(blocks_.max_height())) * n]);
        workspace.kernel.resize(std::size_t(
            std::max({factor_block_work(n_), multiply_q_work(n_), divide_by_upper_work(n_)})));
        workspace.tau.resize(n);
      }
    } catch (const std::bad_alloc&) {
      return kOutOfMemory;
    } catch (const std::length_error&) {
      return kOutOfMemory;
    }
    return kOk;
  }

  void run(T* tau) {
    run_parallel(blocks_.count, workers_,
                 [this](int worker, int block) { factor_leaf(block, workspaces_[worker]); });
    factor_stack();
    // Block 0 holds Q1, whose LU factorization gives the U that every block's V2 needs.
    multiply_leaf_q_by_stack(0, workspaces_[0]);
    factor_q1_minus_s();
    divide_stack_by_u();
    run_parallel(blocks_.count, workers_, [this](int worker, int block) {
      if (block == 0) {
        divide_block0_by_u(workspaces_[worker]);
      } else {
        multiply_leaf_q_by_stack(block, workspaces_[worker]);
      }
      note_nonzero_columns(block);
    });
    write_tau_and_r(tau);
  }

 private:
  int stack_rows() const { return blocks_.count * n_; }
  int stack_lead() const { return padded_lead<T>(stack_rows()); }
  T* block_rows(int block) const { return a_ + blocks_.first(block); }
  T& at(int i, int j) const { return a_[i + Index{j} * lda_]; }

  void factor_leaf(int block, Workspace<T>& workspace) {
    const int height = blocks_.height(block);
    const int lead = padded_lead<T>(height);
    T* const copy = workspace.block.get();
    copy_matrix(height, n_, block_rows(block), lda_, copy, lead);
    factor_block(height, n_, copy, lead, workspace.tau.data(), leaf_t(block), n_,
                 workspace.kernel.data());
    copy_matrix(height, n_, copy, lead, block_rows(block), lda_);
    copy_upper_triangle(n_, copy, lead, stack_block(block), stack_lead());
  }

  // R of the stacked R factors is R of A; its explicit Q, Q [I; 0], combines the blocks' Q
  // factors. The stack is factored by the blocks' kernels, on the caller's thread. Pivoted, R
  // P = Q2 R2 makes A P = (Q [Q2; 0]) R2, so the reduction Q is formed as Q [Q2; 0] in the same
  // pass, and every later step reads R2 in R's place.
  void factor_stack() {
    Workspace<T>& workspace = workspaces_[0];
    factor_block(stack_rows(), n_, stack_.data(), stack_lead(), workspace.tau.data(),
                 stack_t_.data(), n_, workspace.kernel.data());
    copy_upper_triangle(n_, stack_.data(), stack_lead(), r_.data(), n_);
    if (pivoting_) pivoting_->run(r_.data(), small_q_.data());
    multiply_q(stack_rows(), n_, stack_.data(), stack_lead(), stack_t_.data(), n_, small_q_.data(),
               n_, workspace.kernel.data());
  }

  // Overwrites the block's reflectors in A with (the block's explicit Q) * (its stack slice).
  void multiply_leaf_q_by_stack(int block, Workspace<T>& workspace) {
    const int height = blocks_.height(block);
    const int lead = padded_lead<T>(height);
    T* const copy = workspace.block.get();
    copy_matrix(height, n_, block_rows(block), lda_, copy, lead);
    multiply_q(height, n_, copy, lead, leaf_t(block), n_, stack_block(block), stack_lead(),
               workspace.kernel.data());
    copy_matrix(height, n_, copy, lead, block_rows(block), lda_);
  }

  // In place on Q1 (top n x n of A): unit lower V1 strictly below the diagonal, U on and above
  // it. s(j) = -sign(pivot) makes |pivot - s(j)| = |pivot| + 1 >= 1, so no pivoting is needed
  // and nothing divides by zero.
  void factor_q1_minus_s() {
    for (int j = 0; j < n_; ++j) {
      T& pivot = at(j, j);
      s_[j] = pivot >= T(0) ? T(-1) : T(1);
      pivot -= s_[j];
      for (int i = j + 1; i < n_; ++i) at(i, j) /= pivot;
      for (int k = j + 1; k < n_; ++k) {
        const T u_jk = at(j, k);
        for (int i = j + 1; i < n_; ++i) at(i, k) -= at(i, j) * u_jk;
      }
    }
  }

  // V2 = Q2 inv(U), and block i's rows of Q2 are (leaf Q) * (reduction Q slice i): dividing
  // the small slices of blocks 1.. by U here lets their multiplication produce V2 directly,
  // which saves a pass over A.
  void divide_stack_by_u() {
    divide_by_upper(stack_rows() - n_, n_, a_, lda_, stack_block(1), stack_lead(),
                    workspaces_[0].kernel.data());
  }

  // Block 0 already holds its rows of Q; those below Q1 become V2.
  void divide_block0_by_u(Workspace<T>& workspace) {
    const int height = blocks_.height(0) - n_;
    if (height > 0) {
      divide_by_upper(height, n_, a_, lda_, block_rows(0) + n_, lda_, workspace.kernel.data());
    }
  }

  // Records which columns of V are nonzero in the block's rows of V2.
  void note_nonzero_columns(int block) {
    const int skip = block == 0 ? n_ : 0;
    const T* v2 = block_rows(block) + skip;
    for (int j = 0; j < n_; ++j) {
      v_nonzero_[std::size_t(block) * n_ + j] =
          any_nonzero(v2 + Index{j} * lda_, blocks_.height(block) - skip);
    }
  }

  bool reflector_is_identity_flip(int j) const {
    if (any_nonzero(&at(j + 1, j), n_ - j - 1)) return false;
    for (int block = 0; block < blocks_.count; ++block) {
      if (v_nonzero_[std::size_t(block) * n_ + j]) return false;
    }
    return true;
  }

  // tau(j) = -s(j) U(j,j) from the diagonal of T V1^T = -U S, and R = S R. A reflector with
  // v = e(j) (tau 2, a flip of row j) commutes with the later ones, so it becomes H = I
  // (tau 0, as xGEQRF reports it) with row j of R negated.
  void write_tau_and_r(T* tau) const {
    for (int j = 0; j < n_; ++j) {
      const bool flip_only = reflector_is_identity_flip(j);
      const T reconstructed = -s_[j] * at(j, j);
      // 1 + |pivot| exceeds 2 only by rounding; comparing this way lets NaN through.
      tau[j] = flip_only ? T(0) : reconstructed > T(2) ? T(2) : reconstructed;
      const T row_sign = flip_only ? -s_[j] : s_[j];
      for (int k = j; k < n_; ++k) at(j, k) = row_sign * r_[j + std::size_t(k) * n_];
    }
  }

  T* leaf_t(int block) { return leaf_t_.data() + std::size_t(block) * n_ * n_; }
  T* stack_block(int block) { return stack_.data() + std::size_t(block) * n_; }

  const int n_;
  const Index lda_;
  T* const a_;
  const Lapack<T>& la_;
  const RowBlocks blocks_;
  const int workers_;
  SmallPivotedQr<T>* const pivoting_;

  std::vector<T> leaf_t_;   // T of each block's compact WY form, n x n per block
  std::vector<T> stack_;    // the blocks' R factors stacked (stack_lead apart), then the
                            // reduction Q
  std::vector<T> stack_t_;  // T of the stack's compact WY form, n x n
  std::vector<T> small_q_;  // n x n: I, or the pivoted factorization's Q2
  std::vector<T> r_;        // R of A (R2 when pivoted) before the sign change, n x n
  std::vector<T> s_;        // the reconstruction signs
  std::vector<unsigned char> v_nonzero_;  // per block and column: the block's V rows are nonzero
  std::vector<Workspace<T>> workspaces_;
};

// A single block is plain geqrf: its output already is the contract.
template <class T>
int factor_single_block(int m, int n, T* a, int lda, T* tau, const Lapack<T>& la) {
  const int lwork = geqrf_lwork(la, m, n, a, lda, tau);
  if (lwork < 0) return kWorkspaceQuery;
  std::vector<T> work;
  try {
    // At least N, the least xGEQRF takes: an ILAENV that gives NB = 0 (LAPACK's test programs'
    // in their QRT path) makes the query answer less.
    work.resize(std::size_t(std::max(lwork, n)));
  } catch (const std::bad_alloc&) {
    return kOutOfMemory;
  }
  geqrf(la, m, n, a, lda, tau, work);
  return kOk;
}

// A single block is the fallback's own xGEQP3, with workspace of its asking.
template <class T>
int factor_pivoted_single_block(int m, int n, T* a, int lda, int* jpvt, T* tau, const Lapack<T>& la,
                                T* work1) {
  T answer{};
  const int query = -1;
  int info = 0;
  la.geqp3(&m, &n, a, &lda, jpvt, tau, &answer, &query, &info);
  if (info != 0) return kWorkspaceQuery;
  std::vector<T> work;
  try {
    work.resize(std::size_t(std::max(lwork_from_query(answer), 3 * n + 1)));
  } catch (const std::bad_alloc&) {
    return kOutOfMemory;
  }
  const int lwork = int(work.size());
  la.geqp3(&m, &n, a, &lda, jpvt, tau, work.data(), &lwork, &info);
  *work1 = work[0];
  return kOk;
}

}  // namespace

template <class T>
int factor_cpu_with_block_rows(Index m, int n, T* a, Index lda, T* tau, const Lapack<T>& lapack,
                               int threads, int block_rows) {
  if (!valid_arguments(m, n, a, lda, tau, threads) || block_rows < n) return kInvalidArgument;
  if (!lapack.complete()) return kIncompleteTable;
  const RowBlocks blocks = split_rows(m, block_rows);
  if (blocks.count == 1) {
    // Fewer than two blocks' rows: LAPACK's 32-bit geqrf takes them if LDA fits its integers.
    if (lda > INT_MAX) return kInvalidArgument;
    return factor_single_block(int(m), n, a, int(lda), tau, lapack);
  }
  Factorization<T> factorization(n, a, lda, lapack, blocks, std::min(threads, blocks.count));
  const int status = factorization.allocate();
  if (status != kOk) return status;
  factorization.run(tau);
  return kOk;
}

template <class T>
int factor_pivoted_cpu_with_block_rows(Index m, int n, T* a, Index lda, int* jpvt, T* tau,
                                       const Lapack<T>& lapack, int threads, int block_rows,
                                       T* work1) {
  if (!valid_arguments(m, n, a, lda, tau, threads) || !jpvt || !work1 || block_rows < n) {
    return kInvalidArgument;
  }
  if (!lapack.complete() || !lapack.complete_for_pivoting()) return kIncompleteTable;
  const RowBlocks blocks = split_rows(m, block_rows);
  if (blocks.count == 1) {
    if (lda > INT_MAX) return kInvalidArgument;
    return factor_pivoted_single_block(int(m), n, a, int(lda), jpvt, tau, lapack, work1);
  }
  SmallPivotedQr<T> pivoting(n, jpvt, lapack);
  Factorization<T> factorization(n, a, lda, lapack, blocks, std::min(threads, blocks.count),
                                 &pivoting);
  int status = pivoting.allocate();
  if (status == kOk) status = factorization.allocate();
  if (status != kOk) return status;
  factorization.run(tau);
  *work1 = pivoting.work1();
  return kOk;
}

template <class T>
int factor_pivoted_cpu(Index m, int n, T* a, Index lda, int* jpvt, T* tau, const Lapack<T>& lapack,
                       int threads, T* work1) {
  if (!valid_arguments(m, n, a, lda, tau, threads)) return kInvalidArgument;
  return factor_pivoted_cpu_with_block_rows(m, n, a, lda, jpvt, tau, lapack, threads,
                                            default_block_rows(m, n, threads, sizeof(T)), work1);
}

template <class T>
int factor_cpu(Index m, int n, T* a, Index lda, T* tau, const Lapack<T>& lapack, int threads) {
  if (!valid_arguments(m, n, a, lda, tau, threads)) return kInvalidArgument;
  return factor_cpu_with_block_rows(m, n, a, lda, tau, lapack, threads,
                                    default_block_rows(m, n, threads, sizeof(T)));
}

template int factor_cpu<float>(Index, int, float*, Index, float*, const Lapack<float>&, int);
template int factor_cpu<double>(Index, int, double*, Index, double*, const Lapack<double>&, int);
template int factor_cpu_with_block_rows<float>(Index, int, float*, Index, float*,
                                               const Lapack<float>&, int, int);
template int factor_cpu_with_block_rows<double>(Index, int, double*, Index, double*,
                                                const Lapack<double>&, int, int);

template int factor_pivoted_cpu<float>(Index, int, float*, Index, int*, float*,
                                       const Lapack<float>&, int, float*);
template int factor_pivoted_cpu<double>(Index, int, double*, Index, int*, double*,
                                        const Lapack<double>&, int, double*);
template int factor_pivoted_cpu_with_block_rows<float>(Index, int, float*, Index, int*, float*,
                                                       const Lapack<float>&, int, int, float*);
template int factor_pivoted_cpu_with_block_rows<double>(Index, int, double*, Index, int*, double*,
                                                        const Lapack<double>&, int, int, double*);
}  // namespace switchyard::tsqr
