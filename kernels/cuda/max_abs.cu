#include <algorithm>

#include "max_abs.hpp"

namespace switchyard::kernels {
namespace {

constexpr int kThreads = 256;

__device__ inline unsigned long long magnitude_bits(double x) {
  return static_cast<unsigned long long>(__double_as_longlong(fabs(x)));
}
__device__ inline unsigned long long magnitude_bits(float x) { return __float_as_uint(fabsf(x)); }

// Block (x, y) takes rows x kThreads + threadIdx.x apart by gridDim.x kThreads, of the columns
// y, y + gridDim.y, ...; each warp's maximum goes to *bits.
template <class T>
__global__ void max_abs_kernel(long long m, int n, const T* a, long long lda,
                               unsigned long long* bits) {
  unsigned long long best = 0;
  for (int j = blockIdx.y; j < n; j += gridDim.y) {
    const T* column = a + j * lda;
    for (long long i = (long long)blockIdx.x * kThreads + threadIdx.x; i < m;
         i += (long long)gridDim.x * kThreads) {
      best = max(best, magnitude_bits(column[i]));
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    best = max(best, __shfl_down_sync(0xffffffffu, best, offset));
  }
  if ((threadIdx.x & 31) == 0 && best != 0) atomicMax(bits, best);
}

}  // namespace

template <class T>
cudaError_t max_abs_bits(long long m, int n, const T* a, long long lda, unsigned long long* bits,
                         cudaStream_t stream) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  // About 2048 blocks in all: enough to fill any device, few enough atomics.
  const int columns = std::min(n, 65535);
  const long long row_blocks = (m + kThreads - 1) / kThreads;
  const int across = int(std::max<long long>(1, std::min<long long>(row_blocks, 2048 / columns)));
  max_abs_kernel<T><<<dim3(across, columns), kThreads, 0, stream>>>(m, n, a, lda, bits);
  return cudaGetLastError();
}

template cudaError_t max_abs_bits<float>(long long, int, const float*, long long,
                                         unsigned long long*, cudaStream_t);
template cudaError_t max_abs_bits<double>(long long, int, const double*, long long,
                                          unsigned long long*, cudaStream_t);

}  // namespace switchyard::kernels
