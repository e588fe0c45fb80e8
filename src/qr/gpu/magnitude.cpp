#include "qr/gpu/magnitude.hpp"

#include "device/cuda_runtime.hpp"
#include "max_abs.hpp"

namespace switchyard::qr::gpu {

template <class T>
cudaError_t largest_magnitudes(int count, const DeviceMatrix<T>* matrices, T* out,
                               cudaStream_t stream) {
  constexpr int kMost = 2;
  if (count < 1 || count > kMost) return cudaErrorInvalidValue;
  const std::size_t bytes = sizeof(unsigned long long) * kMost;
  cuda::DeviceBuffer buffer(bytes, stream);
  cudaError_t status = buffer.status();
  auto* bits = static_cast<unsigned long long*>(buffer.get());
  if (status == cudaSuccess) status = cudaMemsetAsync(bits, 0, bytes, stream);
  for (int i = 0; i < count && status == cudaSuccess; ++i) {
    const DeviceMatrix<T>& x = matrices[i];
    status = kernels::max_abs_bits(x.m, x.n, x.a, x.ld, bits + i, stream);
  }
  unsigned long long host_bits[kMost] = {};
  if (status == cudaSuccess) {
    status = cudaMemcpyAsync(host_bits, bits, bytes, cudaMemcpyDeviceToHost, stream);
  }
  status = cuda::wait(stream, status);
  for (int i = 0; i < count; ++i) out[i] = kernels::magnitude_of_bits<T>(host_bits[i]);
  return status;
}

template cudaError_t largest_magnitudes<float>(int, const DeviceMatrix<float>*, float*,
                                               cudaStream_t);
template cudaError_t largest_magnitudes<double>(int, const DeviceMatrix<double>*, double*,
                                                cudaStream_t);

}  // namespace switchyard::qr::gpu
