#pragma once

// OpenCL C source of the FFMA TN SGEMM kernel for NVIDIA GPUs: C <- alpha A'^T B' + beta C in
// plain FP32 fused multiply-adds. (Hopper's only FP32 matrix path is TF32, which rounds the
// inputs, so SGEMM stays on the FP32 pipes.) With async_copy off the source is portable OpenCL C.
//
// Packed layout: ROW,ROW as for the tensor-core kernel (mma_kernel_source.hpp), in float; Mp and
// Np multiples of 4 (of bm, bn in fact). C is column-major (ldc, c_offset), written inside m x n
// only, and not read when beta == 0.
//
// Design: each thread accumulates a tm x tn block of C, as tm/4 x tn/4 float4 pieces spread
// bm/(tm/4) rows (bn/(tn/4) columns) apart, so that for each k a warp reads a few contiguous
// float4 runs of the local tiles (conflict-free, most lanes sharing a broadcast) and does tm*tn
// FMAs per tm/4 + tn/4 local loads. The lanes of a warp form a warp_rows x (32 / warp_rows) grid
// of threads; its shape sets how many distinct A' and B' pieces a warp reads per k.
//
// The kernel is the route's TN kernel, launched as the tensor-core kernel is.

#include <cstddef>
#include <string>

namespace switchyard::gemm {

// The defaults are the fastest set measured on the H200 (tools/bench/mma_probe.cpp).
struct FfmaKernelParams {
  int bm = 128, bn = 128, bk = 16;  // work-group tile of C, and k per local-memory stage
  int tm = 8, tn = 8;              // per-thread tile, multiples of 4
  int warp_rows = 4;               // lanes of a warp along m (a divisor of 32)
  int stages = 2;                  // as in MmaKernelParams
  bool async_copy = true;
  int group_m = 8;
};

std::string check(const FfmaKernelParams& p);
int threads(const FfmaKernelParams& p);
std::size_t local_memory_bytes(const FfmaKernelParams& p);
std::string name(const FfmaKernelParams& p);
std::string ffma_kernel_source(const FfmaKernelParams& p);

}  // namespace switchyard::gemm
