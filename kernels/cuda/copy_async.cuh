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

// Sixteen bytes from global to shared memory by one asynchronous copy; both addresses must be
// 16-byte aligned. Through L1 (.ca), which merges a warp's pieces into requests for whole
// lines: past it (.cg), on the H200, wy_product's staging sent each lane's piece to L2 as a
// request of its own, fetched every 32-byte sector twice, and waited on L2's tag lookups
// (Nsight Compute at 2^22 x 32: 7.5 times the requests, 568 against 395 us).
__device__ __forceinline__ void copy_async_16(void* to, const void* from) {
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(from) : "memory");
}

// The same past L1 (.cg), for a kernel whose L2 traffic is light beside its other work and
// whose shared memory leaves L1 little room: tsqr_form's leaf at 2^22 x 16 took 339-342 us
// this way against 357-361 through L1.
__device__ __forceinline__ void copy_async_16_past_l1(void* to, const void* from) {
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(from) : "memory");
}

}  // namespace switchyard::kernels
