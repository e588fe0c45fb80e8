// The CG's gpu route: uploads a half-storage DIA matrix and the vectors and
// runs the CG on the device (gpu_cg.cpp). Device memory comes from the
// device's stream-ordered pool, kept across calls (release threshold
// raised), so repeated solves do not pay for cudaMalloc. Any CUDA error
// gives the solve back to the host CG, with x as the caller gave it.
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cg/gpu_backend.hpp"
#include "cg/gpu_cg.hpp"
#include "cg_kernels.hpp"
#include "config.hpp"
#include "switchyard.h"

namespace switchyard::cg {
namespace {

using cuda::DeviceDia;

// The device this process uses (SWITCHYARD_DEVICE modulo the count), the
// grid its row kernels use, and why there is none; found once, without
// creating a context on others.
struct DeviceChoice {
  int device = -1;
  int grid_blocks = 0;
  const char* absent = nullptr;
};

const DeviceChoice& device_choice() {
  static const DeviceChoice choice = [] {
    DeviceChoice c;
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      c.absent = cudaGetErrorString(e);
    } else if (count == 0) {
      c.absent = "no CUDA device";
    } else {
      c.device = config().device % count;
      c.grid_blocks = cuda::grid_blocks(c.device);
      // Keep freed solve buffers in the pool between calls.
      cudaMemPool_t pool;
      if (cudaDeviceGetDefaultMemPool(&pool, c.device) == cudaSuccess) {
        std::uint64_t keep = UINT64_MAX;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      }
    }
    return c;
  }();
  return choice;
}

const char* unusable() { return device_choice().absent; }

// The buffers of one solve, from the stream-ordered pool.
class Buffers {
 public:
  explicit Buffers(cudaStream_t s) : stream_(s) {}
  ~Buffers() {
    for (void* p : owned_) cudaFreeAsync(p, stream_);
    cudaStreamSynchronize(stream_);
  }
  template <class T>
  T* get(std::size_t count) {
    void* p = nullptr;
    if (cudaMallocAsync(&p, count * sizeof(T), stream_) != cudaSuccess) return nullptr;
    owned_.push_back(p);
    return static_cast<T*>(p);
  }

 private:
  cudaStream_t stream_;
  std::vector<void*> owned_;
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }
  ~Stream() {
    if (s) cudaStreamDestroy(s);
  }
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
  const DeviceChoice& choice = device_choice();
  if (choice.absent) {
    *why = choice.absent;
    return false;
  }
  cudaError_t e = cudaSetDevice(choice.device);
  Stream stream;
  if (e != cudaSuccess || !stream.s) {
    *why = cudaGetErrorString(e != cudaSuccess ? e : cudaGetLastError());
    return false;
  }
  const std::size_t n = std::size_t(a.n);
  Buffers buffers(stream.s);
  V* diag = buffers.get<V>(n);
  V* lower = buffers.get<V>(std::max<std::size_t>(1, a.lower.size()));
  double* db = buffers.get<double>(n);
  double* dx = buffers.get<double>(n);
  double* solution = p.criterion == Criterion::error ? buffers.get<double>(n) : nullptr;
  void* workspace = buffers.get<char>(device_cg_workspace_bytes(a.n, choice.grid_blocks));
  if (!diag || !lower || !db || !dx || !workspace ||
      (p.criterion == Criterion::error && !solution)) {
    *why = "out of device memory";
    return false;
  }
  DeviceDia<V> da{};
  da.n = a.n;
  da.ndiag = a.ndiag();
  for (int d = 0; d < a.ndiag(); ++d) da.offsets[d] = a.offsets[std::size_t(d)];
  da.diag = diag;
  da.lower = lower;

  cudaMemcpyAsync(diag, a.diag.data(), n * sizeof(V), cudaMemcpyHostToDevice, stream.s);
  cudaMemcpyAsync(lower, a.lower.data(), a.lower.size() * sizeof(V), cudaMemcpyHostToDevice,
                  stream.s);
  cudaMemcpyAsync(db, b, n * sizeof(double), cudaMemcpyHostToDevice, stream.s);
  if (p.use_initial_guess) {
    cudaMemcpyAsync(dx, x, n * sizeof(double), cudaMemcpyHostToDevice, stream.s);
  }
  CgParams on_device = p;
  if (solution) {
    cudaMemcpyAsync(solution, p.solution, n * sizeof(double), cudaMemcpyHostToDevice, stream.s);
    on_device.solution = solution;
  }
  if ((e = run_device_cg(da, db, dx, on_device, workspace, choice.grid_blocks, stream.s, out)) !=
      cudaSuccess) {
    *why = cudaGetErrorString(e);
    return false;
  }
  std::vector<double> result(n);
  e = cudaMemcpyAsync(result.data(), dx, n * sizeof(double), cudaMemcpyDeviceToHost, stream.s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream.s);
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
