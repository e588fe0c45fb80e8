#include <cstdint>

#include "device_fill.hpp"

namespace switchyard::bench {
namespace {

__device__ std::uint64_t mix(std::uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T>
__global__ void fill(T* x, std::size_t count, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::uint64_t bits = mix((std::uint64_t(seed) << 40) ^ i);
    x[i] = T(double(bits >> 11) * 0x1.0p-52 - 1.0);
  }
}

}  // namespace

template <class T>
void fill_uniform_on_device(T* x, std::size_t count, unsigned seed) {
  fill<T><<<1024, 256>>>(x, count, seed);
  cudaDeviceSynchronize();
}

template void fill_uniform_on_device<float>(float*, std::size_t, unsigned);
template void fill_uniform_on_device<double>(double*, std::size_t, unsigned);

}  // namespace switchyard::bench
