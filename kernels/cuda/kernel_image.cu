// Whether this build holds code the current device can run: a build's machine code serves the
// architectures it was compiled for (CMAKE_CUDA_ARCHITECTURES) and its PTX the later ones;
// every kernel file is compiled for the same list, so one empty kernel answers for all.
#include "kernel_image.hpp"

namespace switchyard::kernels {
namespace {

__global__ void empty_kernel() {}

}  // namespace

cudaError_t kernel_image_status() {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, empty_kernel);
}

}  // namespace switchyard::kernels
