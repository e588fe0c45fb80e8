// The OpenCL C of the gemm route, generated at run time from a parameter set
// (the method of Matsumoto, Nakasato and Sedukhin: copy kernels put op(A) and
// op(B) into the layout of one fast TN kernel, and an autotuner picks the
// parameters per device).
//
// Every gemm C <- alpha op(A) op(B) + beta C (column-major, BLAS) runs as
//   pack A:  Ap(k, i) = op(A)(i, k)      k < Kp, i < Mp
//   pack B:  Bp(k, j) = op(B)(k, j)      k < Kp, j < Np
//   TN:      C(i, j) <- alpha sum_k Ap(k, i) Bp(k, j) + beta C(i, j)
// with zeros in the padding (i >= m, j >= n, k >= K), so the TN kernel runs
// on whole tiles only; it writes C in place through ldc and skips the padded
// rows and columns, so C is never copied or padded, and with beta = 0 it is
// never read.
//
// Layout contract of a packed operand P (Ap: R = m, block RB = ml; Bp: R = n,
// RB = nl), Rp a multiple of RB and Kp a multiple of kl. Element (k, r) is at
//   ROW:  k * Rp + r                                       (k rows of Rp)
//   CBL:  (r / RB) * (Kp * RB) + k * RB + r % RB            (column blocks:
//         each Kp x RB panel contiguous, row-major inside)
//   RBL:  (k / kl) * (kl * Rp) + (r / RB) * (kl * RB) + (k % kl) * RB + r % RB
//         (row blocks: each kl x RB tile contiguous, row-major inside)
// In all three, r is the contiguous index within a run of RB elements, so
// a work-group reads a tile row (kl x RB) as whole vectors.
//
// The TN kernel: a work-group of (ml/ms) x (nl/ns) work-items computes one
// ml x nl tile of C; work-item (tx, ty) holds ms x ns accumulators, rows
// (s * ml/ms + tx) * vw + v and columns (t * nl/ns + ty) * vw + w, so that
// neighbouring work-items read neighbouring vectors. Each k step of kl is
// unrolled by ks. A and/or B tiles go through local memory when asked.
//
// Micro-kernel families: simt (above, any device), and for NVIDIA GPUs of
// compute capability 8.0 or more (nv_families.hpp): mma, DGEMM on the FP64
// tensor cores through inline-PTX mma.sync, and ffma, an SGEMM on FP32 FMAs
// with cp.async tile copies. Both read ROW,ROW operands and launch one
// work-group of threads_m() work-items (threads_n() == 1) per tile; the copy
// kernels, the kernel's name and its arguments are the same for all.
#pragma once

#include <cstddef>
#include <string>

namespace switchyard::gemm {

enum class Precision { f64, f32 };
enum class Layout { row, cbl, rbl };
// The TN micro-kernel: simt, plain FMA on work-item registers; mma and ffma,
// the NVIDIA kernels (nv_families.hpp).
enum class Family { simt, mma, ffma };
// The mma.sync shape of the mma family (m8n8k4 is sm_80's, the others sm_90's).
enum class MmaShape { m8n8k4, m16n8k4, m16n8k8, m16n8k16 };

struct KernelParams {
  Precision precision = Precision::f64;
  Family family = Family::simt;
  int ml = 32, nl = 32, kl = 8;  // work-group tile (m, n) and k step
  int ms = 4, ns = 4, ks = 1;    // work-item tile (m, n) and k unroll; mma: warp tile
  int vw = 1;                    // vector width of loads and accumulators: 1, 2, 4, 8
  bool local_a = false, local_b = false;  // tiles shared through local memory
  Layout layout_a = Layout::cbl, layout_b = Layout::cbl;
  // mma and ffma only (both keep A and B tiles in local memory):
  MmaShape shape = MmaShape::m16n8k16;
  int stages = 2;           // local buffers: cp.async pipeline depth, or 1-2 register-staged
  bool async_copy = false;  // cp.async tile copies (else through registers)
  bool swizzle = false;     // mma: XOR-swizzled local tiles instead of padded rows
  int group_m = 8;          // tiles of C visited in strips group_m tiles tall
  int lanes_m = 4;          // ffma: lanes of a warp along m

  int threads_m() const {
    switch (family) {
      case Family::simt: return ml / ms;
      case Family::mma: return (ml / ms) * (nl / ns) * 32;
      case Family::ffma: return (ml / ms) * (nl / ns);
    }
    return 0;
  }
  int threads_n() const { return family == Family::simt ? nl / ns : 1; }
  std::size_t element_size() const { return precision == Precision::f64 ? 8 : 4; }
  std::size_t local_bytes() const;
};

// What a device allows (the OpenCL limits a kernel must respect).
struct DeviceLimits {
  std::size_t max_work_group = 256;
  std::size_t local_memory = 32768;
  int nv_compute_capability = 0;  // 90 for sm_90; 0 for devices that are not NVIDIA's
};

// Why `p` cannot run on a device with `limits`, or "" when it can.
std::string invalid(const KernelParams& p, const DeviceLimits& limits);

// "ml=64 nl=64 kl=16 ms=8 ns=4 ks=2 vw=2 local=B layout=CBL,ROW" (no precision);
// the NVIDIA families start with "family=" (nv_families.hpp).
std::string describe(const KernelParams& p);
// The inverse of describe(); false when `text` is not one.
bool parse(const std::string& text, Precision precision, KernelParams& p);

// The kernels' names in the program.
inline constexpr const char* kPackDirect[2] = {"pack_a_direct", "pack_b_direct"};
inline constexpr const char* kPackTransposed[2] = {"pack_a_transposed", "pack_b_transposed"};
inline constexpr const char* kTnKernel = "gemm_tn";
inline constexpr const char* kReduceKernel = "reduce_slices";
inline constexpr int kPackTile = 16;  // the copy kernels' work-group is kPackTile squared

// Arguments of the copy kernels, in order:
//   int K, int R, global const T* src, long offset, int ld, int Kp, int Rp, global T* dst
// direct:     P(k, r) = src[offset + r + k * ld]   (r contiguous in the source)
// transposed: P(k, r) = src[offset + k + r * ld]   (k contiguous in the source)
// Global size: (Rp, Kp) each rounded up to kPackTile.
//
// Arguments of the TN kernel, in order:
//   int Kp, int Mp, int Np, global const T* Ap, global const T* Bp,
//   int m, int n, T alpha, T beta, global T* C, long c_offset, int ldc,
//   int Ks, long c_slice
// Global size (Mp / ml * threads_m, Np / nl * threads_n, S), local
// (threads_m, threads_n, 1). Work-group (i, j, s) multiplies k rows
// [s Ks, min((s + 1) Ks, Kp)) of its tile (split-K, split_k.hpp; Ks a
// multiple of kl) and writes C + c_offset + s c_slice. One slice (S = 1,
// Ks = Kp) is the whole product into C.
//
// Arguments of the reduction (split-K), in order:
//   int m, int n, int S, global const T* partial, long slice, T alpha, T beta,
//   global T* C, long c_offset, int ldc
// C(i, j) <- alpha sum_s partial[s slice + i + j m] + beta C(i, j), the sum
// taken in the order s = 0, 1, ..., S - 1. Global size (m, n) each rounded
// up to kPackTile, local (kPackTile, kPackTile).

enum class Operand { a = 0, b = 1 };

// One function per emitted kernel.
std::string emit_prelude(const KernelParams& p);
std::string emit_pack_kernel(const KernelParams& p, Operand which, bool transposed);
std::string emit_tn_kernel(const KernelParams& p);
std::string emit_reduce_kernel();

// Whether the program of `p` also holds the in-place kernels (inplace_kernel_source.hpp): the
// mma family on a device with the m16n8 shapes (compute capability 9.0), and in single
// precision the ffma family with cp.async copies.
bool has_inplace_kernels(const KernelParams& p);

// The whole program: prelude, the four copy kernels, the TN kernel, the
// reduction, and the in-place kernels where has_inplace_kernels.
std::string program_source(const KernelParams& p);

}  // namespace switchyard::gemm
