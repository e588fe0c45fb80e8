#pragma once

// OpenCL C source of the NVIDIA tensor-core TN DGEMM kernel: C <- alpha A'^T B' + beta C, where
// the matrix product runs on the FP64 tensor cores through inline-PTX mma.sync. NVIDIA's OpenCL
// compiler passes inline PTX through, so this kernel is built like any other OpenCL program, but
// only on NVIDIA devices of compute capability 8.0 or more (9.0 for the m16n8 shapes).
//
// Packed layout read by the kernel: the route's ROW layout (kernel_source.hpp), made by its
// copy kernels:
//   A' = op(A)^T, Kp x Mp, row-major: element (k, i) is Ap[k * Mp + i] (op(A) column-major),
//   B' = op(B),   Kp x Np, row-major: element (k, j) is Bp[k * Np + j] (op(B)^T column-major),
// Mp, Np multiples of bm, bn and Kp of bk; rows k >= K must be zero in both A' and B' (0 * NaN
// is NaN); columns beyond m, n may hold anything (they reach only C entries the kernel does not
// write). The buffers must be 16-byte aligned: tiles move as 16-byte pieces.
//
// Why this layout: each k-row of a tile is bm contiguous doubles, so a tile arrives in
// full 128-byte lines, 16 bytes per thread (cp.async straight into local memory, or a
// double2 load and store). The fragment loads (thread (g, t) of a warp reads rows k + t at
// columns i + g) must hit 4 distinct 32-byte bank groups per half-warp to be conflict-free, and
// the local tiles get there in one of two ways:
//   padded: each tile row gets 4 more doubles, so a row holds 128 k + 32 bytes;
//   swizzled: rows keep their width and row k's 4-double blocks trade places by k % 4 within
//   each 16 doubles (kernel_source_parts.hpp). No padding: two 128 x 64 x 16 stages take 48 KiB,
//   exactly NVIDIA OpenCL's local memory, where padded ones would take 50 KiB.
//
// C is column-major with leading dimension ldc, starting c_offset elements into its buffer; only
// the true m x n entries are written, and with beta == 0 C is never read.
//
// The kernel is the route's TN kernel (kernel_source.hpp: kTnKernel and its arguments, with
// lda = Mp and ldb = Np), launched as (Mp / bm * threads(), Np / bn, S) work-items in work-groups
// of (threads(), 1, 1): one work-group per bm x bn tile of C and k slice (split-K, S = 1 without).

#include <cstddef>
#include <string>

#include "gemm/kernel_source.hpp"

namespace switchyard::gemm {

// MmaShape (kernel_source.hpp): the mma.sync shapes with f64 operands. m8n8k4 is all that sm_80
// has; on sm_90 it runs at the plain FP64 rate and the m16n8 shapes at twice that (measured
// register-only on the H200: 32.6, 64.4 (k4) and 65.9 (k16) TFLOP/s).

// The defaults are the fastest set measured on the H200 (tools/bench/mma_probe.cpp).
struct MmaKernelParams {
  MmaShape shape = MmaShape::m16n8k16;
  int bm = 128, bn = 64, bk = 16;  // work-group tile of C, and k per local-memory stage
  int wm = 64, wn = 32;            // warp tile; the work-group has (bm/wm) x (bn/wn) warps
  // Local-memory buffers. With async_copy, tiles go global -> local through cp.async, stages - 1
  // tiles ahead of the one being multiplied. Without it, each thread holds the next tile in
  // registers while the current one is multiplied: stages 2 double-buffers local memory,
  // stages 1 uses one buffer (half the local memory) and a second barrier per tile.
  int stages = 2;
  bool async_copy = false;
  // Local tiles swizzled instead of padded (see above); needs wm and wn multiples of 16.
  bool swizzle = true;
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
// A short name that identifies the parameters, for tables and the source's first line.
std::string name(const MmaKernelParams& p);
// The OpenCL C of the TN kernel; check(p) must be empty.
std::string mma_kernel_source(const MmaKernelParams& p);

// One mma.sync of `shape`, indented by `indent` spaces, on the accumulators c<i>_<j>_<r> with
// the A fragment's registers a<i>_<r> and B's b<j>_<r> (register r, the PTX ISA's f64 fragment
// maps): tile (i, j) of a warp's tiles.
std::string mma_statement(MmaShape shape, int i, int j, int indent);

// The end of a kernel whose warps each hold tiles_i x tiles_j mma tiles of `shape` in
// accumulators c<i>_<j>_<r> (register r of tile (i, j), the PTX ISA's f64 fragment map), with
// c_row0 and c_col0 the thread's first row and column of C: writes alpha acc (+ beta C) for
// the entries inside m x n through the pointer named `c` and ldc (with beta, through the
// accumulators, all of C read before any of it is written); `with_beta` false never reads C.
std::string warp_tile_epilogue(MmaShape shape, int tiles_i, int tiles_j, const char* c,
                               bool with_beta);

}  // namespace switchyard::gemm
