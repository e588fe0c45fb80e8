#pragma once

// The NVIDIA micro-kernel families of the gemm route's TN kernel (kernel_source.hpp), as the
// route's KernelParams see them:
//   mma:  DGEMM on the FP64 tensor cores (mma_kernel_source.hpp); ms x ns is the warp tile.
//   ffma: SGEMM on FP32 FMAs (ffma_kernel_source.hpp); ms x ns is the work-item tile, lanes_m
//         the lanes of a warp along m.
// Both read ROW,ROW packed operands and keep their tiles in local memory; ks and vw do not
// apply (describe() leaves them out). Text form, as in the tuning database:
//   family=mma shape=m16n8k16 ml=128 nl=64 kl=16 ms=64 ns=32 stages=1 copy=reg group=8
//   family=mma shape=m16n8k16 ml=128 nl=64 kl=16 ms=64 ns=32 stages=2 copy=reg group=8 tiles=xor
//   family=ffma ml=128 nl=128 kl=16 ms=8 ns=8 lanes=4 stages=2 copy=async group=8
// copy=async needs cp.async (compute capability 8.0); ffma with copy=reg is portable OpenCL C.
// tiles=xor (mma only) swizzles the local tiles instead of padding their rows
// (mma_kernel_source.hpp); without it they are padded, and describe() writes it only when set.

#include <cstddef>
#include <string>
#include <vector>

#include "gemm/kernel_source.hpp"

namespace switchyard::gemm {

std::string nv_invalid(const KernelParams& p, const DeviceLimits& limits);
std::string nv_describe(const KernelParams& p);
bool nv_parse(const std::string& text, Precision precision, KernelParams& p);
std::size_t nv_local_bytes(const KernelParams& p);
std::string nv_emit_tn_kernel(const KernelParams& p);

// The parameters measured fastest on the H200 (tools/bench/mma_probe.cpp), for an NVIDIA device
// of compute capability `cc` with no tuned entry; false when the families need more than it has.
bool nv_default(int cc, Precision precision, KernelParams& p);

// The rate nv_default's kernel may be expected to reach on an NVIDIA device of compute
// capability `cc` with `sms` multiprocessors at `clock_mhz`, in GFLOP/s, for the router to weigh
// calls by until the device has a tuned entry: the family's peak there, at the share of the peak
// the H200's shipped kernels reach.
double nv_estimated_gflops(int cc, int sms, int clock_mhz, Precision precision);

// Candidates for the tuner's screening on an NVIDIA device: tiles, warp tiles, mma shapes, copy
// paths and pipeline depths around the measured optimum, each valid under `limits` (whose
// compute capability decides the shapes and copy paths).
std::vector<KernelParams> nv_search_space(Precision precision, const DeviceLimits& limits);

}  // namespace switchyard::gemm
