// The CG on data already on the device: the start pass and the host's
// decisions before the first iteration, the iterations from a CUDA graph,
// and the residual of the x returned. The gpu route (gpu_solver.cpp) runs
// it after uploading; the benchmark runs it on device-resident problems.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cg/cg_params.hpp"
#include "cg/matrix.hpp"
#include "cg_kernels.hpp"

namespace switchyard::cg {

// The kernels' view of a, whose diagonal and lower diagonals are (or will be) at `diag` and
// `lower` on the device.
template <class V>
cuda::DeviceDia<V> device_view(const DiaHalf<V>& a, const V* diag, const V* lower) {
  cuda::DeviceDia<V> d{};
  d.n = a.n;
  d.ndiag = a.ndiag();
  for (int k = 0; k < a.ndiag(); ++k) d.offsets[k] = a.offsets[std::size_t(k)];
  d.diag = diag;
  d.lower = lower;
  return d;
}

// Device memory one solve of n rows needs besides A, b, x and the solution:
// five vectors, the partial sums and the scalars.
std::size_t device_cg_workspace_bytes(long long n, int grid_blocks);

// Solves A x = b with b, x (the guess when p.use_initial_guess) and
// p.solution (Criterion::error only; a device pointer here) on the device;
// `workspace` holds device_cg_workspace_bytes(a.n, grid_blocks) bytes.
// Synchronises `stream` before it returns. A CUDA error is returned with
// `out` undefined.
template <class V>
cudaError_t run_device_cg(const cuda::DeviceDia<V>& a, const double* b, double* x,
                          const CgParams& p, void* workspace, int grid_blocks,
                          cudaStream_t stream, CgOutcome& out);

}  // namespace switchyard::cg
