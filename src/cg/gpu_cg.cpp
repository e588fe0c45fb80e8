// The iterations run from a CUDA graph of two iterations (the p buffers
// alternate), launched in batches. The host copies the device's done flag
// after each batch into pinned memory and looks at it only once the next
// batch is queued, so the device never waits for the host; after
// convergence the kernels of at most one batch return at once.
#include "cg/gpu_cg.hpp"

#include <cmath>

#include "switchyard.h"

namespace switchyard::cg {
namespace {

using cuda::CgDeviceScalars;
using cuda::CgDeviceSettings;
using cuda::Partials;

constexpr int kGraphsPerBatch = 16;  // 32 iterations between looks at the done flag

struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

// Two pinned flags and the events that say when each was written.
struct Lookout {
  int* flags = nullptr;
  cudaEvent_t written[2] = {nullptr, nullptr};
  cudaError_t status;
  Lookout() {
    status = cudaMallocHost(&flags, 2 * sizeof(int));
    for (cudaEvent_t& e : written) {
      if (status == cudaSuccess) status = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    }
  }
  ~Lookout() {
    for (cudaEvent_t e : written) {
      if (e) cudaEventDestroy(e);
    }
    if (flags) cudaFreeHost(flags);
  }
};

std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

int device_criterion(Criterion c) {
  switch (c) {
    case Criterion::preconditioned_residual: return cuda::kPreconditioned;
    case Criterion::error: return cuda::kError;
    case Criterion::residual: break;
  }
  return cuda::kResidual;
}

// Launches batches until the device says it is done.
cudaError_t iterate(const Graph& g, CgDeviceScalars* scalars, cudaStream_t stream) {
  Lookout look;
  cudaError_t e = look.status;
  for (int batch = 0; e == cudaSuccess; ++batch) {
    for (int k = 0; k < kGraphsPerBatch && e == cudaSuccess; ++k) e = cudaGraphLaunch(g.exec, stream);
    const int slot = batch & 1;
    if (e == cudaSuccess) {
      e = cudaMemcpyAsync(&look.flags[slot], &scalars->done, sizeof(int), cudaMemcpyDeviceToHost,
                          stream);
    }
    if (e == cudaSuccess) e = cudaEventRecord(look.written[slot], stream);
    if (e == cudaSuccess && batch > 0) {
      e = cudaEventSynchronize(look.written[slot ^ 1]);
      if (e == cudaSuccess && look.flags[slot ^ 1]) break;
    }
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  return e;
}

}  // namespace

std::size_t device_cg_workspace_bytes(long long n, int grid_blocks) {
  return round_up(5 * std::size_t(n) * sizeof(double)) +
         round_up(cuda::kPartialValues * std::size_t(grid_blocks) * sizeof(double)) +
         round_up(sizeof(CgDeviceScalars));
}

template <class V>
cudaError_t run_device_cg(const cuda::DeviceDia<V>& a, const double* b, double* x,
                          const CgParams& p, void* workspace, int grid_blocks,
                          cudaStream_t stream, CgOutcome& out) {
  const std::size_t n = std::size_t(a.n);
  char* w = static_cast<char*>(workspace);
  double* r = reinterpret_cast<double*>(w);
  double *z = r + n, *p0 = z + n, *p1 = p0 + n, *q = p1 + n;
  w += round_up(5 * n * sizeof(double));
  const Partials partials{reinterpret_cast<double*>(w), grid_blocks};
  w += round_up(cuda::kPartialValues * std::size_t(grid_blocks) * sizeof(double));
  CgDeviceScalars* scalars = reinterpret_cast<CgDeviceScalars*>(w);
  const CgDeviceSettings s{p.tolerance, p.max_iterations, device_criterion(p.criterion),
                           p.jacobi ? 1 : 0};
  const double* solution = p.criterion == Criterion::error ? p.solution : nullptr;

  cuda::launch_cg_start(a, b, x, r, z, p0, solution, p.use_initial_guess, s, scalars, partials,
                        stream);
  CgDeviceScalars c{};
  cudaError_t e = cudaMemcpyAsync(&c, scalars, sizeof c, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) return e;

  // The decisions before the first iteration, as on the host.
  const double bb = c.sums[0], rz = c.sums[1], rr = c.sums[2], zz = c.sums[3], dd = c.sums[4],
               ee = c.sums[5];
  bool iterate_now = false;
  out = CgOutcome();
  if (bb == 0.0) {
    e = cudaMemsetAsync(x, 0, n * sizeof(double), stream);
    out.status = SWITCHYARD_CG_CONVERGED;
  } else if (!std::isfinite(bb + rz + rr + zz + dd + ee)) {
    out.status = SWITCHYARD_CG_NAN;
    out.error = NAN;
  } else {
    out.error = s.criterion == cuda::kPreconditioned ? std::sqrt(zz / dd)
                : s.criterion == cuda::kError        ? (dd > 0 ? std::sqrt(ee / dd) : std::sqrt(ee))
                                                     : std::sqrt(rr / bb);
    if (out.error <= p.tolerance) {
      out.status = SWITCHYARD_CG_CONVERGED;
    } else if (p.max_iterations == 0) {
      out.status = SWITCHYARD_CG_MAX_ITERATIONS;
    } else if (!(rz > 0.0)) {
      out.status = SWITCHYARD_CG_PRECONDITIONER_NOT_SPD;
    } else {
      iterate_now = true;
    }
  }

  if (iterate_now && e == cudaSuccess) {
    CgDeviceScalars start{};
    start.bb = bb;
    start.dd = dd;
    start.rz = rz;
    e = cudaMemcpyAsync(scalars, &start, sizeof start, cudaMemcpyHostToDevice, stream);
    const int product_blocks = cuda::cg_product_blocks(a, grid_blocks);  // before the capture
    Graph g;
    if (e == cudaSuccess) e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
      cuda::launch_cg_iteration(a, x, r, z, p0, p1, q, solution, s, scalars, partials,
                                product_blocks, stream);
      cuda::launch_cg_iteration(a, x, r, z, p1, p0, q, solution, s, scalars, partials,
                                product_blocks, stream);
      e = cudaStreamEndCapture(stream, &g.graph);
    }
    if (e == cudaSuccess) e = cudaGraphInstantiate(&g.exec, g.graph, 0);
    if (e == cudaSuccess) e = iterate(g, scalars, stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(&c, scalars, sizeof c, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return e;
    out.status = c.status;  // the kernels use switchyard.h's codes
    out.iterations = c.iterations;
    out.error = c.error;
  }

  // The residual of the x returned.
  cuda::launch_cg_true_residual(a, b, x, scalars, partials, stream);
  double rr_true = 0.0;
  if (e == cudaSuccess) {
    e = cudaMemcpyAsync(&rr_true, &scalars->sums[0], sizeof rr_true, cudaMemcpyDeviceToHost,
                        stream);
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e == cudaSuccess) e = cudaGetLastError();
  out.relative_residual = bb > 0 ? std::sqrt(rr_true / bb) : std::sqrt(rr_true);
  return e;
}

template cudaError_t run_device_cg<double>(const cuda::DeviceDia<double>&, const double*, double*,
                                           const CgParams&, void*, int, cudaStream_t, CgOutcome&);
template cudaError_t run_device_cg<float>(const cuda::DeviceDia<float>&, const double*, double*,
                                          const CgParams&, void*, int, cudaStream_t, CgOutcome&);

}  // namespace switchyard::cg
