// Dynamic shared memory beyond 48 KiB: a kernel must opt in before a launch asks for more.
#pragma once

#include <cuda_runtime.h>

namespace switchyard::kernels {

// Lets `kernel` be launched with up to `bytes` of dynamic shared memory. Setting the attribute
// on every launch is cheap and thread-safe, and needs no record of which kernels have opted in.
// A kernel whose launches ask for different sizes opts in for the largest every time: another
// thread's call may set the attribute between this one's setting and its launch, and a smaller
// value there would fail this launch.
template <class Kernel>
cudaError_t allow_shared_memory(Kernel* kernel, int bytes) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

}  // namespace switchyard::kernels
