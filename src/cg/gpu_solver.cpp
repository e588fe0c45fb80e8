// The CG's gpu route: uploads a half-storage DIA matrix and the vectors,
// runs the iterations from a CUDA graph of two iterations (the p buffers
// alternate) that is launched again and again, and looks at the device's
// done flag only every kCheckEvery iterations: the kernels after
// convergence return at once, so the host never waits on an iteration.
// Device memory comes from the device's stream-ordered pool, kept across
// calls (release threshold raised), so repeated solves do not pay for
// cudaMalloc. Any CUDA error gives the solve back to the host CG, with x as
// the caller gave it.
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "cg/gpu_backend.hpp"
#include "cg_kernels.hpp"
#include "config.hpp"
#include "switchyard.h"

namespace switchyard::cg {
namespace {

using cuda::CgDeviceScalars;
using cuda::CgDeviceSettings;
using cuda::DeviceDia;

constexpr int kCheckEvery = 32;  // iterations between looks at the done flag

// The device this process uses (SWITCHYARD_DEVICE modulo the count), and
// why there is none; found once, without creating a context on others.
struct DeviceChoice {
  int device = -1;
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

struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
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
  double* vectors = buffers.get<double>(7 * n);
  double* solution = p.criterion == Criterion::error ? buffers.get<double>(n) : nullptr;
  CgDeviceScalars* scalars = buffers.get<CgDeviceScalars>(1);
  if (!diag || !lower || !vectors || !scalars || (p.criterion == Criterion::error && !solution)) {
    *why = "out of device memory";
    return false;
  }
  double *db = vectors, *dx = db + n, *r = dx + n, *z = r + n, *p0 = z + n, *p1 = p0 + n,
         *q = p1 + n;
  DeviceDia<V> da{};
  da.n = a.n;
  da.ndiag = a.ndiag();
  for (int d = 0; d < a.ndiag(); ++d) da.offsets[d] = a.offsets[std::size_t(d)];
  da.diag = diag;
  da.lower = lower;
  CgDeviceSettings s{p.tolerance, p.max_iterations,
                     p.criterion == Criterion::preconditioned_residual ? cuda::kPreconditioned
                     : p.criterion == Criterion::error                 ? cuda::kError
                                                                       : cuda::kResidual,
                     p.jacobi ? 1 : 0};

  cudaMemcpyAsync(diag, a.diag.data(), n * sizeof(V), cudaMemcpyHostToDevice, stream.s);
  cudaMemcpyAsync(lower, a.lower.data(), a.lower.size() * sizeof(V), cudaMemcpyHostToDevice,
                  stream.s);
  cudaMemcpyAsync(db, b, n * sizeof(double), cudaMemcpyHostToDevice, stream.s);
  if (p.use_initial_guess) {
    cudaMemcpyAsync(dx, x, n * sizeof(double), cudaMemcpyHostToDevice, stream.s);
  }
  if (solution) {
    cudaMemcpyAsync(solution, p.solution, n * sizeof(double), cudaMemcpyHostToDevice, stream.s);
  }
  cudaMemsetAsync(scalars, 0, sizeof(CgDeviceScalars), stream.s);
  cuda::launch_cg_start(da, db, dx, r, z, p0, solution, p.use_initial_guess, s, scalars,
                        stream.s);
  CgDeviceScalars c{};
  cudaMemcpyAsync(&c, scalars, sizeof c, cudaMemcpyDeviceToHost, stream.s);
  if ((e = cudaStreamSynchronize(stream.s)) != cudaSuccess) {
    *why = cudaGetErrorString(e);
    return false;
  }

  // The decisions before the first iteration, as on the host.
  bool iterate = false;
  out = CgOutcome();
  if (c.bb == 0.0) {
    cudaMemsetAsync(dx, 0, n * sizeof(double), stream.s);
    out.status = SWITCHYARD_CG_CONVERGED;
  } else if (!std::isfinite(c.bb + c.rz + c.rr + c.zz + c.dd + c.ee)) {
    out.status = SWITCHYARD_CG_NAN;
    out.error = NAN;
  } else {
    const double err = s.criterion == cuda::kPreconditioned ? std::sqrt(c.zz / c.dd)
                       : s.criterion == cuda::kError
                           ? (c.dd > 0 ? std::sqrt(c.ee / c.dd) : std::sqrt(c.ee))
                           : std::sqrt(c.rr / c.bb);
    out.error = err;
    if (err <= p.tolerance) {
      out.status = SWITCHYARD_CG_CONVERGED;
    } else if (p.max_iterations == 0) {
      out.status = SWITCHYARD_CG_MAX_ITERATIONS;
    } else if (!(c.rz > 0.0)) {
      out.status = SWITCHYARD_CG_PRECONDITIONER_NOT_SPD;
    } else {
      iterate = true;
    }
  }

  if (iterate) {
    // Clear the initial pass's sums the iterations accumulate into.
    CgDeviceScalars start = c;
    start.pq = start.rz_new = start.rr = start.zz = 0.0;
    if (s.criterion == cuda::kError) start.ee = 0.0;
    start.beta = 0.0;
    cudaMemcpyAsync(scalars, &start, sizeof start, cudaMemcpyHostToDevice, stream.s);
    Graph g;
    e = cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
      cuda::launch_cg_iteration(da, dx, r, z, p0, p1, q, solution, s, scalars, stream.s);
      cuda::launch_cg_iteration(da, dx, r, z, p1, p0, q, solution, s, scalars, stream.s);
      e = cudaStreamEndCapture(stream.s, &g.graph);
    }
    if (e == cudaSuccess) e = cudaGraphInstantiate(&g.exec, g.graph, 0);
    int done = 0;
    for (int launched = 0; e == cudaSuccess && !done && launched < p.max_iterations;) {
      e = cudaGraphLaunch(g.exec, stream.s);
      launched += 2;
      if (launched % kCheckEvery == 0 || launched >= p.max_iterations) {
        cudaMemcpyAsync(&done, &scalars->done, sizeof done, cudaMemcpyDeviceToHost, stream.s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream.s);
      }
    }
    if (e == cudaSuccess) {
      e = cudaMemcpyAsync(&c, scalars, sizeof c, cudaMemcpyDeviceToHost, stream.s);
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream.s);
    if (e != cudaSuccess) {
      *why = cudaGetErrorString(e);
      return false;
    }
    out.status = c.status;  // the kernels use switchyard.h's codes
    out.iterations = c.iterations;
    out.error = c.error;
  }

  // The residual of the x returned, and x itself.
  cudaMemsetAsync(&scalars->rr, 0, sizeof(double), stream.s);
  cuda::launch_cg_true_residual(da, db, dx, scalars, stream.s);
  double rr = 0.0;
  cudaMemcpyAsync(&rr, &scalars->rr, sizeof rr, cudaMemcpyDeviceToHost, stream.s);
  std::vector<double> result(n);
  cudaMemcpyAsync(result.data(), dx, n * sizeof(double), cudaMemcpyDeviceToHost, stream.s);
  if ((e = cudaStreamSynchronize(stream.s)) != cudaSuccess || (e = cudaGetLastError())) {
    *why = cudaGetErrorString(e);
    return false;
  }
  std::copy(result.begin(), result.end(), x);
  out.relative_residual = c.bb > 0 ? std::sqrt(rr / c.bb) : std::sqrt(rr);
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
