// One element from global to shared memory by an asynchronous copy (cp.async), for the
// __pipeline_commit / __pipeline_wait_prior groups of <cuda_pipeline.h>. Where `valid` is
// false the element is zeroed and `from` is not read; it must still point into the matrix.
#pragma once

#include <cuda_runtime.h>

namespace switchyard::kernels {

template <class T>
__device__ __forceinline__ void copy_async(T* to, const T* from, bool valid) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async.ca copies 4 or 8 bytes here");
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(shared), "l"(from),
               "n"(int(sizeof(T))), "r"(valid ? int(sizeof(T)) : 0)
               : "memory");
}

// Sixteen bytes from global to shared memory by one asynchronous copy, past L1; both addresses
// must be 16-byte aligned.
__device__ __forceinline__ void copy_async_16(void* to, const void* from) {
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(from) : "memory");
}

}  // namespace switchyard::kernels
