#include "qr/gpu/wy_block.hpp"

#include <algorithm>

namespace switchyard::qr::gpu {
namespace {

int row_blocks(long long m) { return int((m + kWyBlockRows - 1) / kWyBlockRows); }

}  // namespace

template <class T>
WyBlock<T>::WyBlock(long long m, int k, int w, cudaStream_t stream)
    : m_(m), k_(k), w_(w), stream_(stream), buffer_(lay_out(nullptr), stream) {
  if (buffer_.status() == cudaSuccess) lay_out(static_cast<char*>(buffer_.get()));
}

// Lays the workspace out from `base` (null: only measures it) and returns its size in bytes.
template <class T>
std::size_t WyBlock<T>::lay_out(char* base) {
  std::size_t used = 0;
  const auto take = [&](long long count) {
    T* at = base ? reinterpret_cast<T*>(base + used) : nullptr;
    used += (std::size_t(count) * sizeof(T) + 255) / 256 * 256;
    return at;
  };
  partials_ = take((long long)row_blocks(m_) * k_ * std::max(k_, w_));
  gram_ = take((long long)k_ * k_);
  product_ = take((long long)k_ * w_);
  w_matrix_ = take((long long)k_ * w_);
  tau_ = take(k_);
  return used;
}

template <class T>
cudaError_t WyBlock<T>::take_tau(const T* tau) {
  return cudaMemcpyAsync(tau_, tau, sizeof(T) * k_, cudaMemcpyDefault, stream_);
}

template <class T>
cudaError_t WyBlock<T>::gram_rows(const Reflectors<T>& v, long long first, long long rows) {
  return kernels::wy_tall_product(v, false, m_, static_cast<const T*>(nullptr), 0, v.k, first, rows,
                                  partials_, stream_);
}

template <class T>
cudaError_t WyBlock<T>::sum_gram() {
  return kernels::wy_sum_partials(partials_, row_blocks(m_), k_ * k_, gram_, stream_);
}

template <class T>
cudaError_t WyBlock<T>::product_rows(const Reflectors<T>& v, bool with_gram, const T* c,
                                     long long ldc, int nc, long long first, long long rows) {
  return kernels::wy_tall_product(v, with_gram, m_, c, ldc, nc, first, rows, partials_, stream_);
}

template <class T>
cudaError_t WyBlock<T>::sum_product(bool with_gram, int nc) {
  const int columns = with_gram ? k_ + nc : nc;
  return kernels::wy_sum_partials(partials_, row_blocks(m_), k_ * columns, product_, stream_);
}

template <class T>
cudaError_t WyBlock<T>::form(const Reflectors<T>& v, int n, T* q, long long ldq) {
  const cudaError_t status = form_w(v, n);
  return status == cudaSuccess ? write_q(v, n, q, ldq) : status;
}

template <class T>
cudaError_t WyBlock<T>::form_w(const Reflectors<T>& v, int n) {
  return kernels::wy_form_w(v, tau_, gram_, static_cast<const T*>(nullptr), n, false, w_matrix_,
                            stream_);
}

template <class T>
cudaError_t WyBlock<T>::write_q(const Reflectors<T>& v, int n, T* q, long long ldq) {
  return kernels::wy_apply(v, m_, w_matrix_, n, 0, m_, true, q, ldq, stream_);
}

template <class T>
cudaError_t WyBlock<T>::apply(const Reflectors<T>& v, bool transpose, bool with_gram, int nc, T* c,
                              long long ldc) {
  const T* gram = with_gram ? product_ : gram_;
  const T* product = with_gram ? product_ + k_ * k_ : product_;
  const cudaError_t status =
      kernels::wy_form_w(v, tau_, gram, product, nc, transpose, w_matrix_, stream_);
  if (status != cudaSuccess) return status;
  return kernels::wy_apply(v, m_, w_matrix_, nc, 0, m_, false, c, ldc, stream_);
}

template <class T>
cudaError_t form_q_on_device(long long m, int n, int k, T* a, long long lda, const T* tau,
                             cudaStream_t stream) {
  WyBlock<T> block(m, k, n, stream);
  const Reflectors<T> v{a, lda, k};
  cudaError_t status = block.status();
  if (status == cudaSuccess) status = block.take_tau(tau);
  if (status == cudaSuccess) status = block.gram_rows(v, 0, m);
  if (status == cudaSuccess) status = block.sum_gram();
  if (status == cudaSuccess) status = block.form(v, n, a, lda);
  return status;
}

template <class T>
cudaError_t apply_q_on_device(bool transpose, long long m, int nc, int k, const T* a, long long lda,
                              const T* tau, T* c, long long ldc, cudaStream_t stream) {
  const Reflectors<T> v{a, lda, k};
  // V^T V beside V^T C where they fit one product: one pass over V fewer.
  const bool with_gram = k + nc <= kWyMaxColumns;
  const int block_columns = with_gram ? nc : std::min(nc, kWyMaxColumns);
  WyBlock<T> block(m, k, with_gram ? k + nc : block_columns, stream);
  cudaError_t status = block.status();
  if (status == cudaSuccess) status = block.take_tau(tau);
  if (!with_gram) {
    if (status == cudaSuccess) status = block.gram_rows(v, 0, m);
    if (status == cudaSuccess) status = block.sum_gram();
  }
  for (int first = 0; first < nc && status == cudaSuccess; first += block_columns) {
    const int columns = std::min(block_columns, nc - first);
    T* const c_block = c + first * ldc;
    status = block.product_rows(v, with_gram, c_block, ldc, columns, 0, m);
    if (status == cudaSuccess) status = block.sum_product(with_gram, columns);
    if (status == cudaSuccess) status = block.apply(v, transpose, with_gram, columns, c_block, ldc);
  }
  return status;
}

template <class T>
cudaError_t apply_q_blocks(bool transpose, long long m, int nc, int k, const T* a, long long lda,
                           const T* tau, T* c, long long ldc, cudaStream_t stream) {
  const int blocks = (k + kWyMaxReflectors - 1) / kWyMaxReflectors;
  cudaError_t status = cudaSuccess;
  for (int step = 0; step < blocks && status == cudaSuccess; ++step) {
    const int g = (transpose ? step : blocks - 1 - step) * kWyMaxReflectors;
    status = apply_q_on_device(transpose, m - g, nc, std::min(kWyMaxReflectors, k - g),
                               a + g + g * lda, lda, tau + g, c + g, ldc, stream);
  }
  return status;
}

namespace {

int last_block(int k) { return (k - 1) / kWyMaxReflectors * kWyMaxReflectors; }

}  // namespace

bool q_blocks_fit(int n, int k) { return k >= 1 && n - last_block(k) <= kWyMaxColumns; }

template <class T>
cudaError_t form_q_blocks(long long m, int n, int k, T* a, long long lda, const T* tau,
                          cudaStream_t stream) {
  constexpr int kBlock = kWyMaxReflectors;
  const auto at = [&](long long i, long long j) { return a + i + j * lda; };
  // Q's columns from `column` on are zero above row `column`, where their reflectors start.
  const auto zero_above = [&](int column, int columns) {
    if (column == 0) return cudaSuccess;
    return cudaMemset2DAsync(at(0, column), sizeof(T) * lda, 0, sizeof(T) * column, columns,
                             stream);
  };
  const int last = last_block(k);
  cudaError_t status =
      form_q_on_device(m - last, n - last, k - last, at(last, last), lda, tau + last, stream);
  if (status == cudaSuccess) status = zero_above(last, n - last);
  for (int g = last - kBlock; g >= 0 && status == cudaSuccess; g -= kBlock) {
    status = apply_q_blocks(false, m - g, n - g - kBlock, kBlock, at(g, g), lda, tau + g,
                            at(g, g + kBlock), lda, stream);
    if (status == cudaSuccess) {
      status = form_q_on_device(m - g, kBlock, kBlock, at(g, g), lda, tau + g, stream);
    }
    if (status == cudaSuccess) status = zero_above(g, kBlock);
  }
  return status;
}

template class WyBlock<float>;
template class WyBlock<double>;

#define SWITCHYARD_WY_OPERATIONS(T)                                                                \
  template cudaError_t form_q_on_device<T>(long long, int, int, T*, long long, const T*,           \
                                           cudaStream_t);                                          \
  template cudaError_t apply_q_on_device<T>(bool, long long, int, int, const T*, long long,        \
                                            const T*, T*, long long, cudaStream_t);                \
  template cudaError_t apply_q_blocks<T>(bool, long long, int, int, const T*, long long, const T*, \
                                         T*, long long, cudaStream_t);                             \
  template cudaError_t form_q_blocks<T>(long long, int, int, T*, long long, const T*, cudaStream_t);
SWITCHYARD_WY_OPERATIONS(float)
SWITCHYARD_WY_OPERATIONS(double)
#undef SWITCHYARD_WY_OPERATIONS

}  // namespace switchyard::qr::gpu
