// Split-K: when the tiles of C are too few to give every compute unit of the
// device work (a Gram product 64 x 64 x 2^22 is one tile of the shipped H200
// kernel, on one SM of 132), the TN kernel runs its k range as S slices, a
// work-group per tile and slice, each slice's product going to its own
// partial C; a reduction kernel then sums the partials in a fixed order
// (slice 0, 1, ..., S - 1, no atomics: a call gives the same bits every
// time) and writes C <- alpha sum + beta C through ldc.
//
// Slices are whole k steps of the kernel (multiples of kl) of the packed
// operands Ap and Bp as the copy kernels wrote them, so the copy kernels do
// not change: slice s is k rows [s depth, min((s + 1) depth, Kp)).
#pragma once

#include "gemm/kernel_source.hpp"

namespace switchyard::gemm {

struct Split {
  int slices = 1;  // S; 1 is the TN kernel alone, writing C
  int depth = 0;   // k rows per slice, a multiple of kl; the last slice may be shorter
};

// Work-groups per compute unit that a split aims for: two of the shipped
// H200 tiles (48 KiB of local memory, 128 threads) fit on one SM, and the
// second hides the first's memory waits.
inline constexpr int kGroupsPerUnit = 2;
// The fewest k rows a slice takes: below that, writing and summing a
// partial tile costs more than a tenth of reading the slice's operands
// (128 x 64 tile: 8192 partial elements against 192 x 512 read).
inline constexpr int kMinSliceDepth = 512;

// The slices a product of `tiles` tiles over k rows asks for: kGroupsPerUnit units per tile
// (floor), at most k / kMinSliceDepth, and 1 (no split) when that is below 2. The cost model
// (cost_model.cpp) weighs the same count the kernels run.
long wanted_slices(double tiles, double k, int compute_units,
                   int groups_per_unit = kGroupsPerUnit);

// The split of a TN product of tiles_m x tiles_n tiles over Kp packed rows
// on `compute_units` units: S = kGroupsPerUnit units / tiles (floor), at
// most Kp / kMinSliceDepth, and S = 1 (no split) when that is below 2,
// that is when the tiles alone fill the units. `forced_slices` > 0 asks for
// that many slices instead (tests, benchmarks); the depth is then rounded up
// to whole k steps, which can make fewer slices.
Split choose_split(const KernelParams& p, int tiles, int kp, int compute_units,
                   int forced_slices = 0);

// Work-groups per compute unit for the in-place kernels (inplace_kernel_source.hpp): their
// stages take 48 KiB of local memory, so four fit on an H200 SM, and a product they take is
// bound by reading its operands, which wants as many copies in flight as the unit holds (three
// a unit ran 64 x 64 x 2^22 A^T B in 1.27 ms against 1.12-1.13).
inline constexpr int kInplaceGroupsPerUnit = 4;

// The split of an in-place kernel's m x n C over K rows on `compute_units` units: as
// choose_split, with its 64 x 64 tiles, kInplaceGroupsPerUnit, and slices of whole
// kInplaceDepth steps of the unpadded K.
Split inplace_split(int m, int n, int k, int compute_units, int forced_slices = 0);

}  // namespace switchyard::gemm
