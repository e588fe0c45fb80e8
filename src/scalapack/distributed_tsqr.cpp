#include "distributed_tsqr.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <utility>

#include "tsqr/cpu_leaf.hpp"
#include "tsqr/cpu_row_blocks.hpp"

namespace switchyard::scalapack {
namespace {

using tsqr::Index;

template <class T>
bool any_nonzero(const T* x, int count) {
  // NaN compares unequal to zero, so a NaN vector is never taken for an already reduced one.
  return std::any_of(x, x + count, [](T value) { return value != T(0); });
}

// The padded leaf copies, one per worker, outlive the call on the thread that made it:
// allocated anew on every call, their pages were faulted in again each time, which took as long
// as factoring an 8192 x 4 share itself.
template <class T>
std::vector<std::vector<T>>& kept_blocks() {
  thread_local std::vector<std::vector<T>> blocks;
  return blocks;
}

}  // namespace

std::size_t factor_bytes(int n, std::size_t element_bytes) {
  return 2 * std::size_t(n) * std::size_t(n) * element_bytes;
}

Layout layout_of(int n, int ia, int ja, const Descriptor& d, const Grid& g) {
  const Share share = share_of(0, ia, ja, d, g);
  Layout l;
  l.n = n;
  l.ranks = g.nprow * g.npcol;
  for (int p = 0; p < g.nprow; ++p) l.column_ranks.push_back(p * g.npcol + share.column);
  l.my_prow = share.in_column ? g.myrow : -1;
  for (int i = 0; i < n; ++i) l.top.push_back(row_place(i, ia, d, g.nprow));
  return l;
}

template <class T>
DistributedTsqr<T>::DistributedTsqr(Layout layout, int h, T* a, int lda, int threads, int leaf_rows)
    : layout_(std::move(layout)),
      n_(layout_.n),
      h_(h),
      a_(a),
      lda_(lda),
      threads_(threads),
      leaf_rows_(leaf_rows) {}

template <class T>
int DistributedTsqr<T>::allocate() {
  const std::size_t n = std::size_t(n_);
  const std::size_t square = n * n;
  const std::size_t prows = layout_.column_ranks.size();
  try {
    payload_.assign(2 * square, T(0));
    gathered_.resize(2 * square * std::size_t(layout_.ranks));
    nonzero_.assign(n, 0);
    gathered_nonzero_.resize(n * std::size_t(layout_.ranks));
    if (layout_.my_prow < 0) return kOk;
    stack_.resize(std::size_t(tsqr::padded_lead<T>(int(prows * n))) * n);
    stack_t_.resize(square);
    identity_.assign(square, T(0));
    for (std::size_t j = 0; j < n; ++j) identity_[j * n + j] = 1;
    r_.resize(square);
    q1_.resize(square);
    s_.resize(n);
    x_.resize(square);
    scratch_.resize(square);
    const int workers = std::max(1, threads_);
    kernel_.resize(std::size_t(workers));
    for (std::vector<T>& work : kernel_) {
      work.resize(std::size_t(std::max({tsqr::factor_block_work(n_), tsqr::multiply_q_work(n_),
                                        tsqr::divide_by_upper_work(n_)})));
    }
    taus_.assign(std::size_t(workers), std::vector<T>(n));
    if (!factors_rows()) return kOk;
    leaf_rows_ = leaf_rows_ > 0 ? std::max(leaf_rows_, n_)
                                : tsqr::default_block_rows(h_, n_, workers, sizeof(T));
    leaves_ = tsqr::split_rows(h_, leaf_rows_).count;
    leaf_t_.resize(std::size_t(leaves_) * square);
    local_.assign(std::size_t(tsqr::padded_lead<T>(leaves_ * n_)) * n, T(0));
    local_t_.resize(square);
    const int max_height = tsqr::split_rows(h_, leaf_rows_).max_height();
    const std::size_t block = std::size_t(tsqr::padded_lead<T>(max_height)) * n;
    blocks_ = &kept_blocks<T>();
    if (blocks_->size() < std::size_t(workers)) blocks_->resize(std::size_t(workers));
    for (std::vector<T>& copy : *blocks_) {
      if (copy.size() < block) copy.resize(block);
    }
  } catch (const std::bad_alloc&) {
    return kOutOfMemory;
  } catch (const std::length_error&) {
    return kOutOfMemory;
  }
  return kOk;
}

template <class T>
int DistributedTsqr<T>::top_rows() const {
  int count = 0;
  for (const RowPlace& place : layout_.top) count += place.prow == layout_.my_prow;
  return count;
}

template <class T>
int DistributedTsqr<T>::run(const AllGather& gather, T* tau) {
  const bool member = layout_.my_prow >= 0;
  if (member) {
    if (factors_rows()) factor_local();
    fill_payload();
  }
  if (!gather(payload_.data(), gathered_.data(), payload_.size() * sizeof(T))) {
    return kCommunicationFailed;
  }
  if (member) {
    factor_stack_of_r();
    factor_q1_minus_s();
    write_v();
    note_nonzero_v2();
  }
  if (!gather(nonzero_.data(), gathered_nonzero_.data(), nonzero_.size())) {
    return kCommunicationFailed;
  }
  if (member) write_top_rows_and_tau(tau);
  return kOk;
}

// The leaves on worker threads, then the stack of their R factors on this one, left with its
// reflectors and T for write_v.
template <class T>
void DistributedTsqr<T>::factor_local() {
  const tsqr::RowBlocks leaves = tsqr::split_rows(h_, leaf_rows_);
  const int local_lead = tsqr::padded_lead<T>(leaves_ * n_);
  tsqr::run_parallel(leaves_, std::min(leaves_, int(kernel_.size())), [&](int worker, int leaf) {
    const int height = leaves.height(leaf);
    const int lead = tsqr::padded_lead<T>(height);
    T* const copy = (*blocks_)[std::size_t(worker)].data();
    T* const rows = a_ + leaves.first(leaf);
    tsqr::copy_matrix(height, n_, rows, lda_, copy, lead);
    tsqr::factor_block(height, n_, copy, lead, taus_[std::size_t(worker)].data(),
                       leaf_t_.data() + std::size_t(leaf) * n_ * n_, n_,
                       kernel_[std::size_t(worker)].data());
    tsqr::copy_matrix(height, n_, copy, lead, rows, lda_);
    tsqr::copy_upper_triangle(n_, copy, lead, local_.data() + Index{leaf} * n_, local_lead);
  });
  tsqr::factor_block(leaves_ * n_, n_, local_.data(), local_lead, taus_[0].data(), local_t_.data(),
                     n_, kernel_[0].data());
}

// R_p, or the raw rows, and W_p: the rows of the local thin Q at this process's first rows of
// sub(A), those among its first n. The top n rows of a block's Q [S; 0] are (I - V1 T V1^T) S,
// which multiply_q forms from the block's top n x n alone.
template <class T>
void DistributedTsqr<T>::fill_payload() {
  T* const r = payload_.data();
  T* const w = r + std::size_t(n_) * n_;
  const int top = top_rows();
  if (!factors_rows()) {
    tsqr::copy_matrix(h_, n_, a_, lda_, r, n_);
    for (int i = 0; i < top; ++i) w[i + Index{i} * n_] = T(1);
    return;
  }
  const int local_lead = tsqr::padded_lead<T>(leaves_ * n_);
  tsqr::copy_upper_triangle(n_, local_.data(), local_lead, r, n_);
  // Slice 0 of the local stack's Q, then leaf 0's top rows times it.
  T* const slice = scratch_.data();
  tsqr::copy_matrix(n_, n_, local_.data(), local_lead, slice, n_);
  tsqr::multiply_q(n_, n_, slice, n_, local_t_.data(), n_, identity_.data(), n_, kernel_[0].data());
  std::vector<T>& top_q = x_;
  tsqr::copy_matrix(n_, n_, a_, lda_, top_q.data(), n_);
  tsqr::multiply_q(n_, n_, top_q.data(), n_, leaf_t_.data(), n_, slice, n_, kernel_[0].data());
  tsqr::copy_matrix(top, n_, top_q.data(), n_, w, n_);
}

// The column's stack, in process-row order, factored to R and its explicit Q.
template <class T>
void DistributedTsqr<T>::factor_stack_of_r() {
  const int prows = int(layout_.column_ranks.size());
  const int lead = tsqr::padded_lead<T>(prows * n_);
  const std::size_t square = std::size_t(n_) * n_;
  for (int p = 0; p < prows; ++p) {
    const T* r = gathered_.data() + 2 * square * std::size_t(layout_.column_ranks[p]);
    tsqr::copy_matrix(n_, n_, r, n_, stack_.data() + Index{p} * n_, lead);
  }
  tsqr::factor_block(prows * n_, n_, stack_.data(), lead, taus_[0].data(), stack_t_.data(), n_,
                     kernel_[0].data());
  tsqr::copy_upper_triangle(n_, stack_.data(), lead, r_.data(), n_);
  tsqr::multiply_q(prows * n_, n_, stack_.data(), lead, stack_t_.data(), n_, identity_.data(), n_,
                   kernel_[0].data());
}

// Q1 = W_p G_p row by row, then in place: unit lower V1 strictly below the diagonal, U on and
// above it. s(j) = -sign(pivot) makes |pivot - s(j)| >= 1, so no pivoting is needed.
template <class T>
void DistributedTsqr<T>::factor_q1_minus_s() {
  const int lead = tsqr::padded_lead<T>(int(layout_.column_ranks.size()) * n_);
  const std::size_t square = std::size_t(n_) * n_;
  const auto q1 = [this](int i, int j) -> T& { return q1_[std::size_t(i) + std::size_t(j) * n_]; };
  for (int i = 0; i < n_; ++i) {
    const RowPlace place = layout_.top[std::size_t(i)];
    const T* w = gathered_.data() + 2 * square * std::size_t(layout_.column_ranks[place.prow]) +
                 square + place.index;
    const T* g = stack_.data() + Index{place.prow} * n_;
    for (int j = 0; j < n_; ++j) {
      T sum = 0;
      for (int k = 0; k < n_; ++k) sum += w[Index{k} * n_] * g[k + Index{j} * lead];
      q1(i, j) = sum;
    }
  }
  for (int j = 0; j < n_; ++j) {
    T& pivot = q1(j, j);
    s_[std::size_t(j)] = pivot >= T(0) ? T(-1) : T(1);
    pivot -= s_[std::size_t(j)];
    for (int i = j + 1; i < n_; ++i) q1(i, j) /= pivot;
    for (int k = j + 1; k < n_; ++k) {
      const T u_jk = q1(j, k);
      for (int i = j + 1; i < n_; ++i) q1(i, k) -= q1(i, j) * u_jk;
    }
  }
}

// V = Q inv(U) over this process's rows: Q_p G_p inv(U), with G_p inv(U) pushed down through
// the local stack's Q into each leaf's slice, so that each leaf's multiply_q writes its rows of
// V directly. The rows among sub(A)'s first n are overwritten afterwards.
template <class T>
void DistributedTsqr<T>::write_v() {
  const int lead = tsqr::padded_lead<T>(int(layout_.column_ranks.size()) * n_);
  tsqr::copy_matrix(n_, n_, stack_.data() + Index{layout_.my_prow} * n_, lead, x_.data(), n_);
  tsqr::divide_by_upper(n_, n_, q1_.data(), n_, x_.data(), n_, kernel_[0].data());
  if (!factors_rows()) {
    tsqr::copy_matrix(h_, n_, x_.data(), n_, a_, lda_);
    return;
  }
  const int local_lead = tsqr::padded_lead<T>(leaves_ * n_);
  tsqr::multiply_q(leaves_ * n_, n_, local_.data(), local_lead, local_t_.data(), n_, x_.data(), n_,
                   kernel_[0].data());
  const tsqr::RowBlocks leaves = tsqr::split_rows(h_, leaf_rows_);
  tsqr::run_parallel(leaves_, std::min(leaves_, int(kernel_.size())), [&](int worker, int leaf) {
    const int height = leaves.height(leaf);
    const int block_lead = tsqr::padded_lead<T>(height);
    T* const copy = (*blocks_)[std::size_t(worker)].data();
    T* const rows = a_ + leaves.first(leaf);
    tsqr::copy_matrix(height, n_, rows, lda_, copy, block_lead);
    tsqr::multiply_q(height, n_, copy, block_lead, leaf_t_.data() + std::size_t(leaf) * n_ * n_, n_,
                     local_.data() + Index{leaf} * n_, local_lead,
                     kernel_[std::size_t(worker)].data());
    tsqr::copy_matrix(height, n_, copy, block_lead, rows, lda_);
  });
}

// Which columns of this process's rows of V2 (its rows past sub(A)'s first n) are nonzero.
template <class T>
void DistributedTsqr<T>::note_nonzero_v2() {
  const int skip = top_rows();
  if (h_ == skip) return;
  for (int j = 0; j < n_; ++j) {
    nonzero_[std::size_t(j)] = any_nonzero(a_ + skip + Index{j} * lda_, h_ - skip);
  }
}

// tau(j) = -s(j) U(j,j) and R = S R; a reflector with v = e(j) (tau 2, a flip of row j)
// commutes with the later ones, so it becomes H = I (tau 0, as xGEQRF reports it) with row j
// of R negated. This process's rows among the first n of sub(A) get V1 and R.
template <class T>
void DistributedTsqr<T>::write_top_rows_and_tau(T* tau) {
  const auto q1 = [this](int i, int j) { return q1_[std::size_t(i) + std::size_t(j) * n_]; };
  for (int j = 0; j < n_; ++j) {
    bool reduced = true;
    for (int i = j + 1; i < n_ && reduced; ++i) reduced = q1(i, j) == T(0);
    for (int rank = 0; rank < layout_.ranks && reduced; ++rank) {
      reduced = !gathered_nonzero_[std::size_t(rank) * n_ + j];
    }
    const T reconstructed = -s_[std::size_t(j)] * q1(j, j);
    // 1 + |pivot| exceeds 2 only by rounding; comparing this way lets NaN through.
    tau[j] = reduced ? T(0) : reconstructed > T(2) ? T(2) : reconstructed;
    const RowPlace place = layout_.top[std::size_t(j)];
    if (place.prow != layout_.my_prow) continue;
    const T row_sign = reduced ? -s_[std::size_t(j)] : s_[std::size_t(j)];
    T* const row = a_ + place.index;
    for (int k = 0; k < j; ++k) row[Index{k} * lda_] = q1(j, k);
    for (int k = j; k < n_; ++k) row[Index{k} * lda_] = row_sign * r_[j + std::size_t(k) * n_];
  }
}

template class DistributedTsqr<float>;
template class DistributedTsqr<double>;

}  // namespace switchyard::scalapack
