#include "bandwidth.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace switchyard::bench {
namespace {

constexpr std::size_t kBytes = std::size_t(1) << 30;

// Best time in milliseconds of `copy` on the default stream, by events.
template <class Copy>
float best_copy_ms(Copy&& copy) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best = 1e30f;
  for (int r = 0; r < 6; ++r) {
    cudaEventRecord(start);
    copy();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (r > 0) best = std::min(best, ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}

}  // namespace

double device_copy_bandwidth() {
  void *a = nullptr, *b = nullptr;
  cudaMalloc(&a, kBytes);
  cudaMalloc(&b, kBytes);
  const float ms = best_copy_ms([&] { cudaMemcpy(b, a, kBytes, cudaMemcpyDeviceToDevice); });
  cudaFree(a);
  cudaFree(b);
  return 2.0 * kBytes / ms / 1e6;
}

double pinned_to_device_bandwidth() {
  void *device = nullptr, *pinned = nullptr;
  cudaMalloc(&device, kBytes);
  cudaMallocHost(&pinned, kBytes);
  std::memset(pinned, 0, kBytes);
  const float ms = best_copy_ms([&] { cudaMemcpy(device, pinned, kBytes, cudaMemcpyHostToDevice); });
  cudaFree(device);
  cudaFreeHost(pinned);
  return kBytes / ms / 1e6;
}

}  // namespace switchyard::bench
