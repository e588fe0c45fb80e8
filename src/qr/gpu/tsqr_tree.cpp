#include "qr/gpu/tsqr_tree.hpp"

namespace switchyard::qr::gpu {
namespace {

int blocks_of(long long rows) { return int((rows + kTsqrBlockRows - 1) / kTsqrBlockRows); }

}  // namespace

template <class T>
TsqrTree<T>::TsqrTree(int m, int n, T* a, long long lda, cudaStream_t stream)
    : m_(m), n_(n), stream_(stream), workspace_(lay_out(nullptr), stream) {
  if (workspace_.status() != cudaSuccess) return;
  lay_out(static_cast<char*>(workspace_.get()));
  levels_[0].data = a;
  levels_[0].ld = lda;
}

// Lays the workspace out from `base` (null: only measures it) and returns its size in bytes.
template <class T>
std::size_t TsqrTree<T>::lay_out(char* base) {
  std::size_t used = 0;
  const auto take = [&](std::size_t bytes) {
    char* at = base ? base + used : nullptr;
    used += (bytes + 255) / 256 * 256;
    return at;
  };
  const auto elements = [&](long long count) {
    return reinterpret_cast<T*>(take(std::size_t(count) * sizeof(T)));
  };
  const int n = n_;
  levels_.clear();
  long long rows = m_;
  for (;;) {
    const int blocks = blocks_of(rows);
    levels_.push_back({rows, rows, blocks, nullptr, elements((long long)blocks * n),
                       elements((long long)blocks * n * n)});
    if (blocks == 1) break;
    rows = (long long)blocks * n;
  }
  for (std::size_t level = 1; level < levels_.size(); ++level) {
    levels_[level].data = elements(levels_[level].rows * n);
  }
  r_ = elements((long long)n * n);
  chain_ = elements((long long)kTsqrBlockRows * n);
  lu_ = elements((long long)n * n);
  s_ = elements(n);
  u_inverse_ = elements((long long)n * n);
  nonzero_ = reinterpret_cast<int*>(take(sizeof(int) * std::size_t(n)));
  return used;
}

// Factors blocks [first, first + count) of a level, writing their R factors to the next.
template <class T>
cudaError_t TsqrTree<T>::factor_level(std::size_t level, int first, int count) {
  const Level& l = levels_[level];
  const bool root = level + 1 == levels_.size();
  return kernels::tsqr_factor_blocks(int(l.rows), n_, l.data, l.ld, first, count, l.tau, l.gram,
                                     root ? r_ : levels_[level + 1].data,
                                     root ? n_ : levels_[level + 1].ld, stream_);
}

template <class T>
cudaError_t TsqrTree<T>::factor_leaves(long long first, long long rows) {
  const int first_block = int(first / kTsqrBlockRows);
  return factor_level(0, first_block, blocks_of(first + rows) - first_block);
}

template <class T>
cudaError_t TsqrTree<T>::reduce() {
  for (std::size_t level = 1; level < levels_.size(); ++level) {
    const cudaError_t status = factor_level(level, 0, levels_[level].blocks);
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

template <class T>
cudaError_t TsqrTree<T>::form_first_rows(const T* x) {
  const std::size_t top = levels_.size() - 1;
  for (std::size_t level = top + 1; level-- > 0;) {
    const Level& l = levels_[level];
    const bool root = level == top;
    const cudaError_t status = kernels::tsqr_form_blocks(
        int(l.rows), n_, l.data, l.ld, 0, 1, l.tau, l.gram, root ? x : chain_,
        root ? n_ : kTsqrBlockRows, chain_, kTsqrBlockRows, nullptr, 0, stream_);
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

template <class T>
cudaError_t TsqrTree<T>::reconstruct() {
  return kernels::tsqr_reconstruct(n_, chain_, kTsqrBlockRows, lu_, s_, u_inverse_, stream_);
}

template <class T>
cudaError_t TsqrTree<T>::write_q(const T* x, long long rows_above) {
  cudaError_t status = cudaMemsetAsync(nonzero_, 0, sizeof(int) * std::size_t(n_), stream_);
  const std::size_t top = levels_.size() - 1;
  for (std::size_t level = top + 1; status == cudaSuccess && level-- > 0;) {
    const Level& l = levels_[level];
    const bool root = level == top;
    status = kernels::tsqr_form_blocks(int(l.rows), n_, l.data, l.ld, 0, l.blocks, l.tau, l.gram,
                                       root ? (x ? x : u_inverse_) : levels_[level + 1].data,
                                       root ? n_ : levels_[level + 1].ld, l.data, l.ld,
                                       level == 0 ? nonzero_ : nullptr, rows_above, stream_);
  }
  return status;
}

template <class T>
cudaError_t TsqrTree<T>::write_top(T* tau) {
  const Level& leaves = levels_[0];
  return kernels::tsqr_finish(n_, lu_, s_, r_, nonzero_, leaves.data, leaves.ld, tau, stream_);
}

template <class T>
cudaError_t TsqrTree<T>::write_factors(const T* x, T* tau) {
  const cudaError_t status = write_q(x, 0);
  return status == cudaSuccess ? write_top(tau) : status;
}

template <class T>
cudaError_t TsqrTree<T>::finish(T* tau) {
  cudaError_t status = reduce();
  if (status == cudaSuccess) status = form_first_rows(nullptr);
  if (status == cudaSuccess) status = reconstruct();
  if (status == cudaSuccess) status = write_factors(nullptr, tau);
  return status;
}

template <class T>
cudaError_t enqueue_tsqr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream) {
  TsqrTree<T> tree(m, n, a, lda, stream);
  cudaError_t status = tree.status();
  if (status == cudaSuccess) status = tree.factor_leaves(0, m);
  if (status == cudaSuccess) status = tree.finish(tau);
  return status;
}

template class TsqrTree<float>;
template class TsqrTree<double>;
template cudaError_t enqueue_tsqr<float>(int, int, float*, long long, float*, cudaStream_t);
template cudaError_t enqueue_tsqr<double>(int, int, double*, long long, double*, cudaStream_t);

}  // namespace switchyard::qr::gpu
