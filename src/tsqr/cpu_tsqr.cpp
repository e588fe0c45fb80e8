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

// The most columns for which a leaf's explicit Q is formed in A itself (Factorization's
// multiply_leaf).
constexpr int kInPlaceColumns = 16;

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

// A matrix of n columns held in A or in a stack: its first row and the distance between columns.
template <class T>
struct Columns {
  T* rows;
  Index lead;
};

// One level of the reduction above the leaves: the level below's R factors stacked, cut into
// groups of about a leaf's height (whole R factors, at least two), each factored by the leaves'
// kernels in parallel; their R factors form the next level's stack.
template <class T>
struct StackLevel {
  RowBlocks groups;
  std::vector<T> group_t;  // T of each group's compact WY form, n x n per group
};

template <class T>
class Factorization {
 public:
  // With `pivoting`, the factorization is xGEQP3's (factor_pivoted_cpu), else xGEQRF's.
  Factorization(int n, T* a, Index lda, RowBlocks blocks, int workers,
                SmallPivotedQr<T>* pivoting = nullptr)
      : n_(n), lda_(lda), a_(a), blocks_(blocks), workers_(workers), pivoting_(pivoting) {}

  // Everything that can fail happens here, before A is touched.
  int allocate() {
    try {
      const std::size_t n = std::size_t(n_);
      leaf_t_.resize(std::size_t(blocks_.count) * n * n);
      plan_stack_levels();
      int max_height = blocks_.max_height();
      for (StackLevel<T>& level : levels_) {
        level.group_t.resize(std::size_t(level.groups.count) * n * n);
        max_height = std::max(max_height, level.groups.max_height());
      }
      // Zero below each R factor in every stack, as the factorizations of the stacks require.
      stacks_.resize(levels_.size() + 1);
      for (std::size_t k = 0; k < stacks_.size(); ++k) {
        stacks_[k].resize(std::size_t(stack_lead(k)) * n);
      }
      stack_t_.resize(n * n);
      small_q_.resize(n * n);
      for (std::size_t j = 0; j < n; ++j) small_q_[j * n + j] = 1;
      r_.resize(n * n);
      s_.resize(n);
      v_nonzero_.resize(std::size_t(blocks_.count) * n);
      workspaces_.resize(std::size_t(workers_));
      for (Workspace<T>& workspace : workspaces_) {
        workspace.block.reset(new T[std::size_t(padded_lead<T>(max_height)) * n]);
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
    const Columns<T> a{a_, lda_};
    run_parallel(blocks_.count, workers_, [&](int worker, int block) {
      factor_part(a, blocks_, block, leaf_t(block), stack(0), workspaces_[worker]);
    });
    reduce_stacks();
    // Block 0 holds Q1, whose LU factorization gives the U that every block's V2 needs.
    multiply_leaf(0, workspaces_[0]);
    factor_q1_minus_s();
    // Block 0 first, then the others from the last: pass 1 handed them out from the first, so
    // the last ones are those the shared cache may still hold.
    run_parallel(blocks_.count, workers_, [&](int worker, int item) {
      const int block = item == 0 ? 0 : blocks_.count - item;
      Workspace<T>& workspace = workspaces_[worker];
      if (block == 0) {
        divide_block0_by_u(workspace);
      } else {
        // V2 = Q2 inv(U): dividing the block's small slice of the reduction Q by U lets its
        // multiplication produce its rows of V2 directly, which saves a pass over A.
        divide_by_upper(n_, n_, a_, lda_, stack_block(block), stack_lead(0),
                        workspace.kernel.data());
        multiply_leaf(block, workspace);
      }
      note_nonzero_columns(block);
    });
    write_tau_and_r(tau);
  }

 private:
  // Stack 0 holds the blocks' R factors, stack k + 1 those of levels_[k]'s groups.
  int stack_rows(std::size_t level) const {
    return (level == 0 ? blocks_.count : levels_[level - 1].groups.count) * n_;
  }
  int stack_lead(std::size_t level) const { return padded_lead<T>(stack_rows(level)); }
  Columns<T> stack(std::size_t level) { return {stacks_[level].data(), Index{stack_lead(level)}}; }
  T& at(int i, int j) const { return a_[i + Index{j} * lda_]; }

  // Stacks shorter than two groups are factored whole, on the caller's thread; longer ones are
  // cut into groups of about the leaves' height (whole R factors, at least two), so that the
  // serial work stays that of a leaf or two whatever the number of leaves, and each group is a
  // leaf's size for the caches.
  void plan_stack_levels() {
    const int group_rows = n_ * std::max(2, blocks_.rows / n_);
    for (int rows = stack_rows(0);; rows = stack_rows(levels_.size())) {
      const RowBlocks groups = split_rows(rows, group_rows);
      if (groups.count == 1) break;
      levels_.push_back({groups, {}});
    }
  }

  // Runs work(copy, lead, height) on a copy of the part's rows whose columns are padded apart
  // (padded_lead), then copies them back.
  template <class Work>
  void on_padded_copy(const Columns<T>& x, const RowBlocks& parts, int part,
                      Workspace<T>& workspace, const Work& work) {
    const int height = parts.height(part);
    const int lead = padded_lead<T>(height);
    T* const copy = workspace.block.get();
    T* const rows = x.rows + parts.first(part);
    copy_matrix(height, n_, rows, x.lead, copy, lead);
    work(copy, lead, height);
    copy_matrix(height, n_, copy, lead, rows, x.lead);
  }

  // Factors one part (a leaf of A, or a group of a stack), leaving its V and R in place, its T
  // in `t` and its R also in row `part` * n of the stack above.
  void factor_part(const Columns<T>& x, const RowBlocks& parts, int part, T* t,
                   const Columns<T>& above, Workspace<T>& workspace) {
    on_padded_copy(x, parts, part, workspace, [&](T* copy, int lead, int height) {
      factor_block(height, n_, copy, lead, workspace.tau.data(), t, n_, workspace.kernel.data());
      copy_upper_triangle(n_, copy, lead, above.rows + Index{part} * n_, above.lead);
    });
  }

  // Overwrites the part's reflectors with (the part's explicit Q) * (its slice of the explicit Q
  // above, rows part * n to part * n + n - 1).
  void multiply_part(const Columns<T>& x, const RowBlocks& parts, int part, const T* t,
                     const Columns<T>& above, Workspace<T>& workspace) {
    on_padded_copy(x, parts, part, workspace, [&](T* copy, int lead, int height) {
      multiply_q(height, n_, copy, lead, t, n_, above.rows + Index{part} * n_, above.lead,
                 workspace.kernel.data());
    });
  }

  // multiply_part for a leaf of A. Up to kInPlaceColumns columns, multiply_q works on A itself
  // rather than on a padded copy: it copies a few rows at a time out anyway, and so few columns
  // share the caches' sets without evicting each other even where lda is a power of two, so the
  // copy's two extra passes over the block are saved. With more columns they would not, and the
  // copy pays. On the H200 machine's 16 cores (2026-12-03, three rounds, best of 5 each; pass 2
  // in the order of run() in both), in place took 2^22 x 8 from 15.0-17.6 to 13.2-14.3 ms and
  // 2^22 x 16 from 40.7-44.5 to 35.1-40.8, but 2^22 x 32 from 114-125 to 142-147.
  void multiply_leaf(int block, Workspace<T>& workspace) {
    if (n_ > kInPlaceColumns) {
      multiply_part({a_, lda_}, blocks_, block, leaf_t(block), stack(0), workspace);
      return;
    }
    multiply_q(blocks_.height(block), n_, a_ + blocks_.first(block), lda_, leaf_t(block), n_,
               stack_block(block), stack_lead(0), workspace.kernel.data());
  }

  // R of the stacked R factors is R of A; its explicit Q, Q [I; 0], combines the blocks' Q
  // factors. Each level's groups are factored in parallel up to the top stack, which is factored
  // on the caller's thread; then each level's explicit Q is formed from the one above, down to
  // stack 0, the reduction Q. Pivoted, R P = Q2 R2 makes A P = (Q [Q2; 0]) R2, so the top
  // stack's Q is formed as Q [Q2; 0] and every later step reads R2 in R's place.
  void reduce_stacks() {
    const std::size_t top = levels_.size();
    for (std::size_t k = 0; k < top; ++k) {
      const RowBlocks& groups = levels_[k].groups;
      run_parallel(groups.count, std::min(workers_, groups.count), [&](int worker, int group) {
        factor_part(stack(k), groups, group, group_t(k, group), stack(k + 1), workspaces_[worker]);
      });
    }
    Workspace<T>& workspace = workspaces_[0];
    const Columns<T> root = stack(top);
    factor_block(stack_rows(top), n_, root.rows, int(root.lead), workspace.tau.data(),
                 stack_t_.data(), n_, workspace.kernel.data());
    copy_upper_triangle(n_, root.rows, root.lead, r_.data(), n_);
    if (pivoting_) pivoting_->run(r_.data(), small_q_.data());
    multiply_q(stack_rows(top), n_, root.rows, int(root.lead), stack_t_.data(), n_, small_q_.data(),
               n_, workspace.kernel.data());
    for (std::size_t k = top; k-- > 0;) {
      const RowBlocks& groups = levels_[k].groups;
      run_parallel(groups.count, std::min(workers_, groups.count), [&](int worker, int group) {
        multiply_part(stack(k), groups, group, group_t(k, group), stack(k + 1),
                      workspaces_[worker]);
      });
    }
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

  // Block 0 already holds its rows of Q; those below Q1 become V2.
  void divide_block0_by_u(Workspace<T>& workspace) {
    const int height = blocks_.height(0) - n_;
    if (height > 0) {
      divide_by_upper(height, n_, a_, lda_, a_ + n_, lda_, workspace.kernel.data());
    }
  }

  // Records which columns of V are nonzero in the block's rows of V2.
  void note_nonzero_columns(int block) {
    const int skip = block == 0 ? n_ : 0;
    const T* v2 = a_ + blocks_.first(block) + skip;
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
  T* group_t(std::size_t level, int group) {
    return levels_[level].group_t.data() + std::size_t(group) * n_ * n_;
  }
  T* stack_block(int block) { return stacks_[0].data() + std::size_t(block) * n_; }

  const int n_;
  const Index lda_;
  T* const a_;
  const RowBlocks blocks_;
  const int workers_;
  SmallPivotedQr<T>* const pivoting_;

  std::vector<T> leaf_t_;  // T of each block's compact WY form, n x n per block
  std::vector<StackLevel<T>> levels_;
  // stacks_[0] holds the blocks' R factors stacked, then the reduction Q; stacks_[k + 1] the
  // R factors of levels_[k]'s groups, then its explicit Q. Each has stack_rows(k) rows,
  // stack_lead(k) apart.
  std::vector<std::vector<T>> stacks_;
  std::vector<T> stack_t_;  // T of the top stack's compact WY form, n x n
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
  Factorization<T> factorization(n, a, lda, blocks, std::min(threads, blocks.count));
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
  Factorization<T> factorization(n, a, lda, blocks, std::min(threads, blocks.count), &pivoting);
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
                                            leaf_block_rows(m, n, threads, sizeof(T)), work1);
}

template <class T>
int factor_cpu(Index m, int n, T* a, Index lda, T* tau, const Lapack<T>& lapack, int threads) {
  if (!valid_arguments(m, n, a, lda, tau, threads)) return kInvalidArgument;
  return factor_cpu_with_block_rows(m, n, a, lda, tau, lapack, threads,
                                    leaf_block_rows(m, n, threads, sizeof(T)));
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
