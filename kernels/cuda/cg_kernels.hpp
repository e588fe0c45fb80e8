// The sparse CG's CUDA kernels, as plain C++ launch functions for the host
// drivers (src/cg/gpu_cg.cpp, the benchmark). All launches go to `stream`;
// none synchronises. The scalars of a solve live on the device
// (CgDeviceScalars), so an iteration needs no host round trip: the finalize
// kernel decides convergence and breakdown and sets `done`, after which
// every kernel of the solve returns at once.
//
// Sums are made without atomics: each block of a row kernel writes one
// partial per value to `partials` (kPartialValues columns of `stride`
// entries, stride >= the blocks of any launch, see grid_blocks), and the
// kernel that needs a total adds them in a fixed order.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace switchyard::cg::cuda {

// The diagonal and lower diagonals of a half-storage DIA matrix on the
// device, offsets by value (they travel in the kernel's parameter space and
// are read from the constant bank).
inline constexpr int kMaxGpuDiagonals = 64;

template <class V>
struct DeviceDia {
  long long n;
  int ndiag;
  int offsets[kMaxGpuDiagonals];
  const V* diag;   // n
  const V* lower;  // ndiag x n, lower[d n + i] = a(i, i - offsets[d])
};

// What the stopping test compares with the tolerance (cg_params.hpp).
enum DeviceCriterion { kResidual = 0, kPreconditioned = 1, kError = 2 };

struct CgDeviceScalars {
  // Totals of the start pass (bb, rz, rr, zz, dd, ee) or of the true
  // residual (rr in sums[0]), for the host to read.
  double sums[6];
  // State carried between iterations.
  double bb, dd, rz, beta, error;
  int iterations, status, done;
};

struct CgDeviceSettings {
  double tolerance;
  int max_iterations;
  int criterion;  // DeviceCriterion
  int jacobi;
};

// Where the partial sums go; `blocks` is the largest grid a launch may use.
struct Partials {
  double* values;  // kPartialValues x blocks
  int blocks;
};
inline constexpr int kPartialValues = 6;

// The grid size the row kernels use on `device`: as many blocks as fit at
// once, so that the rows in flight are one contiguous front.
int grid_blocks(int device);

// y = A x, with R rows per thread in each chunk (1, 2 or 4; the CG uses
// kCgRowsPerThread), on at most max_blocks blocks and no more than fit on
// the device at once. Rows of up to 13 lower diagonals issue all their
// loads at once (dia_row_batched), as in the CG's product.
template <class V>
void launch_dia_spmv(const DeviceDia<V>& a, const double* x, double* y, int rows_per_thread,
                     int max_blocks, cudaStream_t stream);

// One row per thread per chunk: on the H200 more rows per thread widen the
// front of rows in flight and lose more L2 reuse than they gain in L1
// (switchyard bench cg: 256^3 SpMV 0.74 / 0.99 / 1.07 ms for 1 / 2 / 4).
inline constexpr int kCgRowsPerThread = 1;

// r = b - A x (or r = b and x = 0 without a guess), z = M^-1 r, p = 0, and
// the initial sums into scalars->sums: bb, rz, rr, zz, dd (M^-1 b's or the
// solution's square norm), ee.
template <class V>
void launch_cg_start(const DeviceDia<V>& a, const double* b, double* x, double* r, double* z,
                     double* p, const double* solution, bool use_guess, CgDeviceSettings s,
                     CgDeviceScalars* scalars, Partials partials, cudaStream_t stream);

// The grid of an iteration's product on a, at most max_blocks: its rows
// of up to 13 lower diagonals hold their loads in registers, so fewer
// blocks fit than grid_blocks assumes, and the grid is those that fit. The
// query behind it may load the kernel's module, which a stream capture
// forbids: resolve it before capturing the iterations.
template <class V>
int cg_product_blocks(const DeviceDia<V>& a, int max_blocks);

// One iteration: the product with p folded into the p update and p'Ap
// (p_new = z + beta p_old on the fly) on at most product_blocks blocks
// (cg_product_blocks), the x, r, z update with its sums, and the one-block
// finalize.
template <class V>
void launch_cg_iteration(const DeviceDia<V>& a, double* x, double* r, double* z,
                         const double* p_old, double* p_new, double* q, const double* solution,
                         CgDeviceSettings s, CgDeviceScalars* scalars, Partials partials,
                         int product_blocks, cudaStream_t stream);

// scalars->sums[0] = ||b - A x||^2 of the x returned.
template <class V>
void launch_cg_true_residual(const DeviceDia<V>& a, const double* b, const double* x,
                             CgDeviceScalars* scalars, Partials partials, cudaStream_t stream);

}  // namespace switchyard::cg::cuda
