// The sparse CG's CUDA kernels, as plain C++ launch functions for the host
// driver (src/cg/gpu_solver.cpp). All launches go to `stream`; none
// synchronises. The scalars of a solve live on the device (CgDeviceScalars),
// so an iteration needs no host round trip: the finalize kernel decides
// convergence and breakdown and sets `done`, after which every kernel of
// the solve returns at once.
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
  // Sums of the current pass, added to by every block.
  double pq, rz_new, rr, zz, ee;
  // Sums of the initial pass.
  double bb, dd;
  // State carried between iterations.
  double rz, beta, error;
  int iterations, status, done;
};

struct CgDeviceSettings {
  double tolerance;
  int max_iterations;
  int criterion;  // DeviceCriterion
  int jacobi;
};

// r = b - A x (or r = b and x = 0 without a guess), z = M^-1 r, p = 0, and
// the initial sums bb, rz, rr, zz, dd (M^-1 b or the solution's norm), ee.
template <class V>
void launch_cg_start(const DeviceDia<V>& a, const double* b, double* x, double* r, double* z,
                     double* p, const double* solution, bool use_guess, CgDeviceSettings s,
                     CgDeviceScalars* scalars, cudaStream_t stream);

// One iteration: the product with p folded into the p update and p'Ap
// (p_new = z + beta p_old on the fly), the x, r, z update with its sums,
// and the one-thread finalize.
template <class V>
void launch_cg_iteration(const DeviceDia<V>& a, double* x, double* r, double* z,
                         const double* p_old, double* p_new, double* q, const double* solution,
                         CgDeviceSettings s, CgDeviceScalars* scalars, cudaStream_t stream);

// scalars->rr = ||b - A x||^2 of the x returned.
template <class V>
void launch_cg_true_residual(const DeviceDia<V>& a, const double* b, const double* x,
                             CgDeviceScalars* scalars, cudaStream_t stream);

}  // namespace switchyard::cg::cuda
