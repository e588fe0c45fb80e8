#include "qr/gpu/blocked_qr.hpp"

#include <algorithm>

#include "qr/gpu/tsqr_tree.hpp"
#include "qr/gpu/wy_block.hpp"

namespace switchyard::qr::gpu {
namespace {

constexpr int kGroupColumns = kWyMaxReflectors;

// Applies Q^T of the k reflectors in column `first` of A (rows first..m) to the columns
// [begin, end).
template <class T>
cudaError_t update(int m, int first, int k, int begin, int end, T* a, long long lda, const T* tau,
                   cudaStream_t stream) {
  if (begin >= end) return cudaSuccess;
  const auto at = [&](int i, int j) { return a + i + j * lda; };
  return apply_q_blocks(true, m - first, end - begin, k, at(first, first), lda, tau + first,
                        at(first, begin), lda, stream);
}

}  // namespace

// Measured on the H200 at 2^22 rows: panels of 32 beat panels of 16 (a panel's update costs
// more than the narrower TSQR saves: 64 columns took 18.5 against 22.8 ms in double) and one
// 64-wide TSQR (28.2 ms).
int panel_width() { return 32; }

template <class T>
cudaError_t enqueue_qr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream) {
  const int width = panel_width();
  if (n <= width) return enqueue_tsqr(m, n, a, lda, tau, stream);
  cudaError_t status = cudaSuccess;
  for (int group = 0; group < n && status == cudaSuccess; group += kGroupColumns) {
    const int group_end = std::min(n, group + kGroupColumns);
    for (int j = group; j < group_end && status == cudaSuccess; j += width) {
      const int jb = std::min(width, group_end - j);
      status = enqueue_tsqr(m - j, jb, a + j + j * lda, lda, tau + j, stream);
      if (status == cudaSuccess) status = update(m, j, jb, j + jb, group_end, a, lda, tau, stream);
    }
    if (status == cudaSuccess) {
      status = update(m, group, group_end - group, group_end, n, a, lda, tau, stream);
    }
  }
  return status;
}

template cudaError_t enqueue_qr<float>(int, int, float*, long long, float*, cudaStream_t);
template cudaError_t enqueue_qr<double>(int, int, double*, long long, double*, cudaStream_t);

}  // namespace switchyard::qr::gpu
