// The single-block step between the two passes over V: T of the block reflector, then
// W = op(T) B. Everything here is at most 64 x 64.
#include "wy_kernels.hpp"
#include "wy_masked.cuh"

namespace switchyard::kernels {
namespace wy {
namespace {

constexpr int kThreads = 256;
constexpr int kPitch = kWyMaxReflectors + 1;

template <class T>
__global__ void __launch_bounds__(kThreads)
form_w(Reflectors<T> v, const T* tau, const T* gram, const T* b, int w, bool transpose,
       T* w_out) {
  __shared__ T t[kWyMaxReflectors * kPitch];  // T(p, j) at p * kPitch + j
  const int k = v.k, tid = int(threadIdx.x);
  for (int idx = tid; idx < k * k; idx += kThreads) t[(idx % k) * kPitch + idx / k] = T(0);
  __syncthreads();
  // xLARFT, forward and columnwise: T(j, j) = tau(j) and
  // T(0:j, j) = -tau(j) T(0:j, 0:j) V(:, 0:j)^T V(:, j), one column after another.
  for (int j = 0; j < k; ++j) {
    if (tid < j) {
      T sum = T(0);
      for (int q = tid; q < j; ++q) sum += t[tid * kPitch + q] * gram[q + j * k];
      t[tid * kPitch + j] = -tau[j] * sum;
    } else if (tid == j) {
      t[j * kPitch + j] = tau[j];
    }
    __syncthreads();
  }
  for (int idx = tid; idx < k * w; idx += kThreads) {
    const int j = idx % k, c = idx / k;
    const int first = transpose ? 0 : j, last = transpose ? j : k - 1;
    T sum = T(0);
    for (int p = first; p <= last; ++p) {
      const T op_t = transpose ? t[p * kPitch + j] : t[j * kPitch + p];
      const T b_pc = b ? b[p + c * k] : masked(v, c, p);
      sum += op_t * b_pc;
    }
    w_out[j + c * k] = sum;
  }
}

}  // namespace
}  // namespace wy

template <class T>
cudaError_t wy_form_w(Reflectors<T> v, const T* tau, const T* gram, const T* b, int w,
                      bool transpose, T* w_out, cudaStream_t stream) {
  wy::form_w<T><<<1, wy::kThreads, 0, stream>>>(v, tau, gram, b, w, transpose, w_out);
  return cudaGetLastError();
}

template cudaError_t wy_form_w<float>(Reflectors<float>, const float*, const float*, const float*,
                                      int, bool, float*, cudaStream_t);
template cudaError_t wy_form_w<double>(Reflectors<double>, const double*, const double*,
                                       const double*, int, bool, double*, cudaStream_t);

}  // namespace switchyard::kernels
