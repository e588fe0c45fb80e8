// The CG's gpu route: uploads a half-storage DIA matrix and the vectors and
// runs the CG on the device (gpu_cg.cpp), on the device runtime the other
// CUDA routes share (src/device/cuda_runtime.hpp): its device, streams and
// stream-ordered pool, kept across calls, so repeated solves do not pay for
// cudaMalloc. Any CUDA error gives the solve back to the host CG, with x as
// the caller gave it.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "cg/gpu_backend.hpp"
#include "cg/gpu_cg.hpp"
#include "cg_kernels.hpp"
#include "device/cuda_runtime.hpp"
#include "switchyard.h"

namespace switchyard::cg {
namespace {

using cuda::DeviceDia;

namespace runtime = ::switchyard::cuda;

const char* unusable() { return runtime::unavailable(); }

// The grid the CG's row kernels use on this process's device.
int grid_blocks() {
  static const int blocks = cuda::grid_blocks(runtime::device_ordinal());
  return blocks;
}

// Lays consecutive arrays out in one allocation, each aligned for any element type.
class Carver {
 public:
  explicit Carver(char* base) : base_(base) {}
  template <class T>
  T* take(std::size_t count) {
    T* at = base_ ? reinterpret_cast<T*>(base_ + used_) : nullptr;
    used_ += (std::max<std::size_t>(1, count) * sizeof(T) + 255) / 256 * 256;
    return at;
  }
  std::size_t used() const { return used_; }

 private:
  char* base_;
  std::size_t used_ = 0;
};

template <class V>
bool solve(const DiaHalf<V>& a, const double* b, double* x, const CgParams& p, CgOutcome& out,
           const char** why) {
  if (a.ndiag() > cuda::kMaxGpuDiagonals) {
    *why = "more than 64 diagonals";
    return false;
  }
  // The Jacobi preconditioner needs a positive diagonal: the host CG's check.
  if (p.jacobi) {
    for (const V d : a.diag) {
      if (!(double(d) > 0.0)) {
        out.status = std::isfinite(double(d)) ? SWITCHYARD_CG_PRECONDITIONER_NOT_SPD
                                              : SWITCHYARD_CG_NAN;
        out.iterations = 0;
        out.error = out.relative_residual = NAN;
        return true;
      }
    }
  }
  runtime::Stream stream;
  if (stream.status() != cudaSuccess) {
    *why = cudaGetErrorString(stream.status());
    return false;
  }
  const std::size_t n = std::size_t(a.n);
  const bool with_solution = p.criterion == Criterion::error;
  V *diag, *lower;
  double *db, *dx, *solution;
  void* workspace;
  const auto lay_out = [&](char* base) {
    Carver carve(base);
    diag = carve.take<V>(n);
    lower = carve.take<V>(a.lower.size());
    db = carve.take<double>(n);
    dx = carve.take<double>(n);
    solution = with_solution ? carve.take<double>(n) : nullptr;
    workspace = carve.take<char>(device_cg_workspace_bytes(a.n, grid_blocks()));
    return carve.used();
  };
  runtime::DeviceBuffer memory(lay_out(nullptr), stream.get());
  if (memory.status() != cudaSuccess) {
    *why = "out of device memory";
    return false;
  }
  lay_out(static_cast<char*>(memory.get()));
  const DeviceDia<V> da = device_view(a, diag, lower);

  cudaMemcpyAsync(diag, a.diag.data(), n * sizeof(V), cudaMemcpyHostToDevice, stream.get());
  cudaMemcpyAsync(lower, a.lower.data(), a.lower.size() * sizeof(V), cudaMemcpyHostToDevice,
                  stream.get());
  cudaMemcpyAsync(db, b, n * sizeof(double), cudaMemcpyHostToDevice, stream.get());
  if (p.use_initial_guess) {
    cudaMemcpyAsync(dx, x, n * sizeof(double), cudaMemcpyHostToDevice, stream.get());
  }
  CgParams on_device = p;
  if (with_solution) {
    cudaMemcpyAsync(solution, p.solution, n * sizeof(double), cudaMemcpyHostToDevice,
                    stream.get());
    on_device.solution = solution;
  }
  cudaError_t e = run_device_cg(da, db, dx, on_device, workspace, grid_blocks(), stream.get(), out);
  if (e != cudaSuccess) {
    *why = cudaGetErrorString(e);
    return false;
  }
  std::vector<double> result(n);
  e = cudaMemcpyAsync(result.data(), dx, n * sizeof(double), cudaMemcpyDeviceToHost, stream.get());
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream.get());
  if (e != cudaSuccess) {
    *why = cudaGetErrorString(e);
    return false;
  }
  std::copy(result.begin(), result.end(), x);
  return true;
}

bool solve_double(const DiaHalf<double>& a, const double* b, double* x, const CgParams& p,
                  CgOutcome& o, const char** why) {
  return solve(a, b, x, p, o, why);
}
bool solve_float(const DiaHalf<float>& a, const double* b, double* x, const CgParams& p,
                 CgOutcome& o, const char** why) {
  return solve(a, b, x, p, o, why);
}

const GpuBackend cuda_backend{unusable, solve_double, solve_float};

// Plugging the route in; no device is touched until a solve asks.
[[maybe_unused]] const bool registered = [] {
  gpu_backend = &cuda_backend;
  return true;
}();

}  // namespace
}  // namespace switchyard::cg
