// The FP64 tensor-core product C (16 x 8) += A (16 x 4)
// B (4 x 8) across one warp. With g = lane / 4 and t = lane % 4, a lane holds
//   a[r] = A(g + 8 r, t), b = B(t, g), c[r] = C(g + 8 (r / 2), 2 t + r % 2).
// mma.sync m16n8k4 is sm_90's: on Hopper it runs at twice the rate of FP64 FMAs, where the
// m8n8k4 shape (and so the wmma API's double fragments) runs at the FMAs' rate. sm_80 has
// m8n8k4 only, which there is its FP64 tensor-core path.
#pragma once

#include <cuda_runtime.h>

namespace switchyard::kernels {

__device__ __forceinline__ void mma_16x8x4(double (&c)[4], const double (&a)[2], double b) {
#if __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};\n"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a[0]), "d"(a[1]), "d"(b));
#else
  // sm_80 to sm_89 have the m8n8k4 shape only: the upper and the lower eight rows, each an
  // m8n8k4 product whose fragments are the halves of the m16n8k4 ones.
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(c[0]), "+d"(c[1])
      : "d"(a[0]), "d"(b));
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(c[2]), "+d"(c[3])
      : "d"(a[1]), "d"(b));
#endif
}

}  // namespace switchyard::kernels
