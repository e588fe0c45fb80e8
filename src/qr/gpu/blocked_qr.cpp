#include "qr/gpu/blocked_qr.hpp"

#include <algorithm>

#include "qr/gpu/tsqr_tree.hpp"
#include "qr/gpu/wy_block.hpp"

namespace switchyard::qr::gpu {
namespace {

static_assert(kGroupColumns == kWyMaxReflectors, "a group is what one update applies");

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

// Past one panel A goes by panels. Measured on the H200 at 2^22 rows, device-resident: when
// the updates ran on wmma's 8x8x4 shape, 64 columns as panels of 16 took 22.8 ms against 18.5
// as panels of 32. With the updates on mma m16n8k4, double precision gains from panels of 16
// from 17 columns on: 24 columns 2.28-2.35 ms against 2.81-2.84 as one TSQR, 32 3.11-3.12
// against 3.64, and against panels of 32, 48 columns 5.63 against 6.06 ms, 64 8.65 against
// 8.98, 96 15.2 against 16.2, 256 60.2 against 60.9. Single precision, whose updates run on
// FMAs, lost (64 columns 7.57 against 7.08 ms) until its V^T X read two 16-byte values for 16
// FMAs (wy_product.cu). Since, panels of 16 take 2^22 x 24 / 32 / 48 in 1.78-1.81 / 2.28-2.36 /
// 4.33-4.36 ms against 1.91 / 2.51 as one TSQR and 4.99-5.00 as panels of 32, and 64 alike;
// past 64 columns they gain 1% on the device but lose about 10% from host memory (2^22 x 256
// streamed in 162-182 ms against 150-170: each panel's round trip costs the same, twice as
// often), so there single precision keeps panels of 32.
template <class T>
cudaError_t enqueue_qr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream) {
  if (n <= kSingleTsqrColumns) return enqueue_tsqr(m, n, a, lda, tau, stream);
  const int width = panel_width<T>(n);
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

template <class T>
cudaError_t enqueue_panel(int m, int n, int first, int width, T* a, long long lda, T* tau,
                          cudaStream_t stream) {
  const int panel = panel_width<T>(n);
  const int group = first / kGroupColumns * kGroupColumns;
  cudaError_t status = cudaSuccess;
  for (int g = 0; g < group && status == cudaSuccess; g += kGroupColumns) {
    status = update(m, g, kGroupColumns, first, first + width, a, lda, tau, stream);
  }
  for (int j = group; j < first && status == cudaSuccess; j += panel) {
    status = update(m, j, panel, first, first + width, a, lda, tau, stream);
  }
  if (status != cudaSuccess) return status;
  return enqueue_tsqr(m - first, width, a + first + first * lda, lda, tau + first, stream);
}

template cudaError_t enqueue_qr<float>(int, int, float*, long long, float*, cudaStream_t);
template cudaError_t enqueue_qr<double>(int, int, double*, long long, double*, cudaStream_t);
template cudaError_t enqueue_panel<float>(int, int, int, int, float*, long long, float*,
                                          cudaStream_t);
template cudaError_t enqueue_panel<double>(int, int, int, int, double*, long long, double*,
                                           cudaStream_t);

}  // namespace switchyard::qr::gpu
