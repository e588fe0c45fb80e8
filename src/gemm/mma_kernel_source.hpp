#pragma once

// OpenCL C source of the NVIDIA tensor-core TN DGEMM kernel: C <- alpha A'^T B' + beta C, where
// the matrix product runs on the FP64 tensor cores through inline-PTX mma.sync. NVIDIA's OpenCL
// compiler passes inline PTX through, so this kernel is built like any other OpenCL program, but
// only on NVIDIA devices of compute capability 8.0 or more (9.0 for the m16n8 shapes).
//
// Packed layout read by the kernel (the copy kernels produce it):
//   A' = op(A)^T, K_pad x M_pad, row-major, lda >= M_pad: element (k, i) of A' is A[k * lda + i],
//        i.e. op(A) itself stored column-major with leading dimension lda.
//   B' = op(B),   K_pad x N_pad, row-major, ldb >= N_pad: element (k, j) of B' is B[k * ldb + j],
//        i.e. op(B) stored row-major (op(B)^T column-major).
// M_pad, N_pad are multiples of bm, bn and K_pad (the kernel's K argument) a multiple of bk; rows
// k >= the true K must be zero in both A' and B' (0 * NaN is NaN), and columns beyond the true
// M, N may hold anything (they only reach C entries the kernel does not write). lda and ldb must be even
// and the buffers 16-byte aligned: tiles move as 16-byte pieces. This m/n-contiguous layout is the
// OpenCL GEMM seed's row-major ("ROW") TN layout, so the portable kernels' copy kernels serve
// this kernel unchanged.
//
// Why this layout: each k-row of a tile is bm contiguous doubles, so a tile arrives in
// full 128-byte lines, 16 bytes per thread (cp.async straight into local memory, or a
// double2 load and store). In local memory each tile row is padded by 4 doubles, so a row holds
// 128 k + 32 bytes: the fragment loads (thread (g, t) of a warp reads rows k + t at columns i + g)
// then hit 4 distinct 32-byte bank groups per half-warp and are conflict-free.
//
// C is column-major with leading dimension ldc, starting c_offset elements into its buffer; only
// the true m x n entries are written, and with beta == 0 C is never read.
//
// Kernel signature (work-group size threads(), one work-group per bm x bn tile of C, 1-D range
// of tiles(m, n) * threads() work-items):
//   __kernel void <name>(int m, int n, int k_pad, double alpha, double beta,
//                        __global const double* a, int lda, __global const double* b, int ldb,
//                        __global double* c, int ldc, ulong c_offset)

#include <string>

namespace switchyard::gemm {

// The mma.sync shapes with f64 operands. m8n8k4 is all that sm_80 has; on sm_90 it runs at the
// plain FP64 rate and the m16n8 shapes at twice that (measured register-only on the H200: 32.6,
// 64.4 (k4) and 65.9 (k16) TFLOP/s).
enum class MmaShape { m8n8k4, m16n8k4, m16n8k8, m16n8k16 };

// The defaults are the fastest set measured on the H200 (tools/bench/mma_probe.cpp).
struct MmaKernelParams {
  MmaShape shape = MmaShape::m16n8k16;
  int bm = 128, bn = 64, bk = 16;  // work-group tile of C, and k per local-memory stage
  int wm = 64, wn = 32;            // warp tile; the work-group has (bm/wm) x (bn/wn) warps
  // Local-memory buffers. With async_copy, tiles go global -> local through cp.async, stages - 1
  // tiles ahead of the one being multiplied. Without it, each thread holds the next tile in
  // registers while the current one is multiplied: stages 2 double-buffers local memory,
  // stages 1 uses one buffer (half the local memory) and a second barrier per tile.
  int stages = 1;
  bool async_copy = false;
  // Tiles of C are visited in column strips group_m tiles tall, so that work-groups running at
  // the same time share panels of A' and B' in L2 (1: plain column order).
  int group_m = 8;
};

int mma_m(MmaShape s);  // rows of the mma (8 or 16)
int mma_k(MmaShape s);  // its depth (4, 8 or 16)
int min_compute_capability(MmaShape s);  // 80 or 90 (times ten, as 8.0 -> 80)

// Empty when the parameters make a valid kernel, else why not.
std::string check(const MmaKernelParams& p);
int threads(const MmaKernelParams& p);
std::size_t local_memory_bytes(const MmaKernelParams& p);
// A short name that identifies the parameters, used as the kernel's name suffix and in tables.
std::string name(const MmaKernelParams& p);
// The OpenCL C program holding one kernel named "gemm_tn_mma_<name(p)>"; check(p) must be empty.
std::string kernel_name(const MmaKernelParams& p);
std::string mma_kernel_source(const MmaKernelParams& p);

}  // namespace switchyard::gemm
