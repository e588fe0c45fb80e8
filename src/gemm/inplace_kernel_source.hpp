#pragma once

// OpenCL C of the in-place kernels: C <- alpha op(A) op(B) + beta C on the FP64 tensor cores,
// for a small C, reading A and B where they lie, with no copy kernel before them.
//
// The route's other kernels multiply packed operands (kernel_source.hpp), and packing costs a
// read and a write of each operand. That is nothing beside a square product's flops, but a
// product with a small C and a long k (the Gram product A^T A of a tall matrix, 64 x 64 x 2^22)
// does 2 mn flops per k row and is bound by reading its operands: packing them first (and
// padding A to the tuned kernel's 128 columns) took five times as long as the product itself.
// There is one kernel per pair of transposes, and each operand is read in one of two ways:
//   columns, k contiguous:  op(A) = A^T, op(A)(i, k) = a[a_offset + k + i lda]
//                           op(B) = B,   op(B)(k, j) = b[b_offset + k + j ldb]
//   rows, i (j) contiguous: op(A) = A,   op(A)(i, k) = a[a_offset + i + k lda]
//                           op(B) = B^T, op(B)(k, j) = b[b_offset + j + k ldb]
//
// A work-group of kInplaceThreads (4 warps, each a 32 x 32 warp tile of m16n8k16 mma.sync)
// computes one kInplaceTile x kInplaceTile tile of C over one k slice (split-K, split_k.hpp).
// A slab of kInplaceDepth k rows of 64 columns goes global -> local memory by cp.async, with no
// registers in between, in kInplaceStages stages: while slab kt is multiplied, the copies of
// the next two are in flight. Such a product is bound by reading its operands, and with one
// slab ahead in registers (the kernels before these) each step waited out a trip to memory:
// 64 x 64 x 2^22 A^T B took 1.32 ms, now 1.12-1.13. Each warp's copies cover whole 128-byte
// lines. Local rows are not padded (three stages of both operands take NVIDIA OpenCL's 48 KiB):
// a columns slab keeps each column as 16 doubles with k XOR 4 (column & 3), a rows slab each
// k row as 64 doubles with the column XOR 4 (k & 3), so that the fragment reads of a half-warp
// (columns g, k rows t, g and t 0..3) fall on 16 distinct banks, and so do the copies.
//
// Columns past m (n) and k rows past the slice's end are filled with zeros instead of read;
// those columns reach only entries of C that are not written, and a warp whose 32 x 32 tile
// lies wholly past the edge skips its products. No alignment is needed (the
// copies are single doubles). When `same` is set, op(B) is op(A)^T read from the same place (A^T A
// through 'T', 'N' or A A^T through 'N', 'T', with the same buffer, offset and ld, m = n): a
// tile on C's diagonal then reads its one operand once.
//
// Arguments, in order:
//   int K, int m, int n, global const double* a, long a_offset, int lda,
//   global const double* b, long b_offset, int ldb, double alpha, double beta,
//   global double* c, long c_offset, int ldc, int Ks, long c_slice, int same
// Global size (ceil(m / 64) * 128, ceil(n / 64), S), local (128, 1, 1): work-group (i, j, s)
// multiplies k rows [s Ks, min((s + 1) Ks, K)) of its tile and writes C + c_offset + s c_slice
// (split_k.hpp: Ks is a multiple of kInplaceDepth). Only the true m x n entries of C are
// written, and with beta = 0 C is never read.
//
// Needs compute capability 9.0 (m16n8k16), like the mma family's fastest kernels.
//
// In single precision (inplace_float_kernels_source) the same kernels run on FMAs: the same
// tiles, copies and arguments (float alpha and beta), each lane summing a 4 x 8 block of its
// warp's 32 x 32 from local rows of kInplaceTile + 4 floats per k row, kInplaceFloatStages
// stages deep (a stage of floats is half the bytes). They need cp.async (compute capability
// 8.0), as the single-precision TN kernel that copies asynchronously does.

#include <string>

namespace switchyard::gemm {

inline constexpr int kInplaceTile = 64;  // C tile, square
inline constexpr int kInplaceDepth = 16;  // k rows per slab
inline constexpr int kInplaceThreads = 128;
inline constexpr int kInplaceStages = 3;  // slabs in local memory, two of them in flight
inline constexpr int kInplaceFloatStages = 4;  // single precision: a stage is half the bytes

// The kernel for gemm(transa, transb) as the route spells them ('N', or 'T' for both T and C):
// "gemm_inplace_tn" for ('T', 'N').
std::string inplace_kernel_name(char transa, char transb);

// The four kernels' OpenCL C (needs cl_khr_fp64 enabled before it).
std::string inplace_kernels_source();

// The four single-precision kernels' OpenCL C.
std::string inplace_float_kernels_source();

}  // namespace switchyard::gemm
