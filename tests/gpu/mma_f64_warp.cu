// One warp's kernels::mma_16x8x4 on a 16 x 4 A, a 4 x 8 B and a 16 x 8 C, all row-major in
// device memory. Compiled once per architecture the test compares (MMA_WARP_FUNCTION names
// each), so that the sm_80 form of the product runs too, as PTX the driver compiles for the
// device at hand.
#include <cuda_runtime_api.h>

#include "mma_f64.cuh"

namespace {

__global__ void product(const double* a, const double* b, double* c) {
  const int lane = int(threadIdx.x), g = lane / 4, t = lane % 4;
  const double a_fragment[2] = {a[g * 4 + t], a[(g + 8) * 4 + t]};
  const double b_fragment = b[t * 8 + g];
  double c_fragment[4];
  for (int r = 0; r < 4; ++r) c_fragment[r] = c[(g + 8 * (r / 2)) * 8 + 2 * t + r % 2];
  switchyard::kernels::mma_16x8x4(c_fragment, a_fragment, b_fragment);
  for (int r = 0; r < 4; ++r) c[(g + 8 * (r / 2)) * 8 + 2 * t + r % 2] = c_fragment[r];
}

}  // namespace

cudaError_t MMA_WARP_FUNCTION(const double* a, const double* b, double* c) {
  product<<<1, 32>>>(a, b, c);
  const cudaError_t launched = cudaGetLastError();
  return launched != cudaSuccess ? launched : cudaDeviceSynchronize();
}
