// switchyard bench cg [--grids NXxNYxNZ,...] [--huge] [--values double|float] [--tol T]
//                     [--max-iterations K] [--repeat R] [--skip-api]
//
// On the FEM Poisson matrix of each grid (64^3, 128^3, 256^3, 512x256x256; --huge adds
// 1024x512x512), device-resident:
// - SpMV y = A x: the library's half-storage DIA kernel (best of 1, 2, 4 rows per thread),
//   full-storage DIA, and cuSPARSE CSR SpMV on the same matrix (double values only); GB/s
//   count the bytes each format must move (matrix once, x read, y written), GFLOP/s two per
//   stored nonzero, the floor is those bytes at the device-to-device copy bandwidth measured
//   in this run. Each product is checked against the host SpMV.
// - CG to ||r|| / ||b|| <= T from x = 0 with a random right-hand side (the generator's own,
//   whose solution u = x lies in the Krylov space early, converges in about NX iterations):
//   the library's CG on device data against a Jacobi CG of cuSPARSE SpMV and cuBLAS, time
//   per iteration and to solution; the floor is the bytes one fused iteration moves. The
//   library's x is checked on the host (||b - A x|| / ||b||), and against cuSPARSE's.
// - The same solve through switchyard_cg_solve from host arrays (upload included).
#include "cg_bench.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cg/fem_poisson.hpp"
#include "cg/formats_out.hpp"
#include "cg/gpu_cg.hpp"
#include "cg/spmv_cpu.hpp"
#include "bandwidth.hpp"
#include "bench_util.hpp"
#include "cg_kernels.hpp"
#include "cusparse_cg.hpp"
#include "device_fill.hpp"
#include "dia_compare.hpp"
#include "switchyard.h"

namespace switchyard::bench {
namespace {

using cg::DiaHalf;
using cg::FemGrid;
using cg::cuda::DeviceDia;
using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<FemGrid> grids = {{64, 64, 64}, {128, 128, 128}, {256, 256, 256}, {512, 256, 256}};
  bool single = false;
  double tolerance = 1e-12;
  int max_iterations = 100000;
  int repeat = 20;
  bool api = true;
};

bool parse_grids(const char* text, std::vector<FemGrid>& grids) {
  grids.clear();
  for (const char* p = text; *p;) {
    FemGrid g;
    int used = 0;
    if (std::sscanf(p, "%dx%dx%d%n", &g.nx, &g.ny, &g.nz, &used) != 3 || !cg::fem_grid_valid(g)) {
      return false;
    }
    grids.push_back(g);
    p += used;
    if (*p == ',') ++p;
  }
  return !grids.empty();
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--huge") {
      o.grids.push_back({1024, 512, 512});
    } else if (arg == "--skip-api") {
      o.api = false;
    } else if (!value) {
      return false;
    } else if (arg == "--grids") {
      if (!parse_grids(value, o.grids)) return false;
      ++i;
    } else if (arg == "--values") {
      if (std::strcmp(value, "double") != 0 && std::strcmp(value, "float") != 0) return false;
      o.single = std::strcmp(value, "float") == 0, ++i;
    } else if (arg == "--tol") {
      o.tolerance = std::atof(value), ++i;
    } else if (arg == "--max-iterations") {
      o.max_iterations = std::max(1, std::atoi(value)), ++i;
    } else if (arg == "--repeat") {
      o.repeat = std::max(1, std::atoi(value)), ++i;
    } else {
      return false;
    }
  }
  return true;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Milliseconds per call of f, averaged over `repeat` calls after two warm-ups.
template <class F>
double time_ms(int repeat, F&& f) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  f();
  f();
  cudaEventRecord(start);
  for (int r = 0; r < repeat; ++r) f();
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return double(ms) / repeat;
}

std::vector<double> download(const double* d, std::size_t n) {
  std::vector<double> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost);
  return h;
}

// y = A x on the host, on all cores.
template <class V>
std::vector<double> host_product(const DiaHalf<V>& a, const std::vector<double>& x) {
  std::vector<double> y(x.size());
  const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> team;
  for (int t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      cg::spmv_rows(a, x.data(), y.data(), cg::Index(a.n) * t / threads,
                    cg::Index(a.n) * (t + 1) / threads);
    });
  }
  for (std::thread& th : team) th.join();
  return y;
}

double norm(const std::vector<double>& v) {
  double s = 0.0;
  for (double e : v) s += e * e;
  return std::sqrt(s);
}

double relative_distance(const std::vector<double>& y, const std::vector<double>& ref) {
  double d = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) d += (y[i] - ref[i]) * (y[i] - ref[i]);
  return std::sqrt(d) / norm(ref);
}

template <class V>
long long nonzeros(const DiaHalf<V>& a) {
  long long lower = 0;
  for (int d = 0; d < a.ndiag(); ++d) {
    const V* l = a.lower_diagonal(d);
    for (int i = a.offsets[std::size_t(d)]; i < a.n; ++i) lower += l[i] != V(0);
  }
  return a.n + 2 * lower;
}

struct SpmvRow {
  double half_ms = 0, full_ms = -1, csr_ms = -1;
  int half_rows_per_thread = 0;
  double half_bytes = 0, full_bytes = 0, csr_bytes = 0, flops = 0, check = 0;
};

struct CgRow {
  double ours_ms = 0, floor_ms = 0, theirs_ms = -1;
  int ours_iterations = 0, theirs_iterations = 0;
  double ours_s = 0, theirs_s = -1, api_s = -1;
  int api_iterations = 0;
  double host_relres = 0, difference = -1;
  const char* status = "";
};

struct GridResult {
  FemGrid g;
  long long n = 0;
  SpmvRow spmv;
  CgRow cg;
};

// The solve through the public API, from host arrays.
template <class V>
double api_solve(const DiaHalf<V>& a, const std::vector<double>& b, double tolerance,
                 int max_iterations, int& iterations) {
  const cg::FormattedMatrix<V> lower = cg::to_dia(a, SWITCHYARD_CG_TRIANGLE);
  const switchyard_cg_matrix m = lower.descriptor();
  switchyard_cg_options o;
  switchyard_cg_options_default(&o);
  o.tolerance = tolerance;
  o.max_iterations = max_iterations;
  o.backend = SWITCHYARD_CG_GPU;
  std::vector<double> x(b.size());
  switchyard_cg_result r;
  const Clock::time_point t = Clock::now();
  const int status = switchyard_cg_solve(&m, b.data(), x.data(), &o, &r);
  const double s = seconds_since(t);
  iterations = r.iterations;
  return status == SWITCHYARD_CG_CONVERGED && r.backend == SWITCHYARD_CG_GPU ? s : -1.0;
}

template <class V>
GridResult run_grid(const FemGrid& g, const Options& o, double bandwidth, int grid_blocks,
                    cusparseHandle_t sparse, cublasHandle_t blas) {
  GridResult out;
  out.g = g;
  const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  Clock::time_point t = Clock::now();
  const DiaHalf<V> a = cg::fem_poisson_dia<V>(g, threads);
  const std::size_t n = std::size_t(a.n);
  out.n = a.n;
  const long long nnz = nonzeros(a);
  std::printf("\n%d x %d x %d: n = %zu, %d lower diagonals, %lld nonzeros, built in %.1f s\n",
              g.nx, g.ny, g.nz, n, a.ndiag(), nnz, seconds_since(t));
  std::fflush(stdout);

  V* diag = device_alloc<V>(n);
  V* lower = device_alloc<V>(a.lower.size());
  double* x = device_alloc<double>(n);
  double* y = device_alloc<double>(n);
  if (!diag || !lower || !x || !y) {
    std::printf("  (no device memory)\n");
    return out;
  }
  cudaMemcpy(diag, a.diag.data(), n * sizeof(V), cudaMemcpyHostToDevice);
  cudaMemcpy(lower, a.lower.data(), a.lower.size() * sizeof(V), cudaMemcpyHostToDevice);
  const cg::cuda::DeviceDia<V> da = cg::device_view(a, diag, lower);

  // SpMV, each checked against the host product of the same x.
  SpmvRow& s = out.spmv;
  fill_uniform_on_device(x, n, 17);
  const std::vector<double> want = host_product(a, download(x, n));
  const auto check = [&] {
    s.check = std::max(s.check, relative_distance(download(y, n), want));
    cudaMemset(y, 0xff, n * sizeof(double));  // NaN, so a kernel that writes nothing fails
  };
  s.flops = 2.0 * double(nnz);
  s.half_bytes = double(a.ndiag() + 1) * sizeof(V) * n + 16.0 * n;
  s.half_ms = 1e30;
  for (const int rows_per_thread : {1, 2, 4}) {
    const double ms = time_ms(o.repeat, [&] {
      cg::cuda::launch_dia_spmv(da, x, y, rows_per_thread, grid_blocks, nullptr);
    });
    check();
    std::printf("  half-storage DIA SpMV, %d row(s) per thread: %.3f ms\n", rows_per_thread, ms);
    if (ms < s.half_ms) s.half_ms = ms, s.half_rows_per_thread = rows_per_thread;
  }
  if (V* full_values = device_alloc<V>((2 * std::size_t(a.ndiag()) + 1) * n)) {
    const DeviceDiaFull<V> full = full_from_half(da, full_values);
    s.full_bytes = double(full.ndiag) * sizeof(V) * n + 16.0 * n;
    s.full_ms = time_ms(o.repeat, [&] { full_dia_spmv(full, x, y, nullptr); });
    check();
    cudaFree(full_values);
  }
  DeviceCsr<double> csr;
  bool have_csr = false;
  if constexpr (sizeof(V) == sizeof(double)) {
    have_csr = csr_from_half(da, csr);
    if (have_csr) {
      CusparseSpmv product(sparse, csr, x, y);
      if (product.ok()) {
        s.csr_bytes = double(csr.nnz) * (sizeof(double) + 4) + 4.0 * (n + 1) + 16.0 * n;
        s.csr_ms = time_ms(o.repeat, [&] { product.run(); });
        check();
      }
    }
  }
  std::printf("  SpMV: half %.3f ms, full %.3f ms, cuSPARSE %.3f ms, largest relative "
              "difference from the host %.1e\n", s.half_ms, s.full_ms, s.csr_ms, s.check);
  std::fflush(stdout);

  // CG from x = 0 with a random right-hand side.
  CgRow& c = out.cg;
  double* b = device_alloc<double>(n);
  void* workspace = device_alloc<char>(cg::device_cg_workspace_bytes(a.n, grid_blocks));
  if (!b || !workspace) {
    std::printf("  (no device memory for the CG)\n");
    return out;
  }
  fill_uniform_on_device(b, n, 29);
  cg::CgParams p;
  p.tolerance = o.tolerance;
  p.max_iterations = o.max_iterations;
  cg::CgOutcome outcome;
  cudaStream_t stream = nullptr;  // a graph cannot be captured on the legacy default stream
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  t = Clock::now();
  const cudaError_t e = cg::run_device_cg(da, b, x, p, workspace, grid_blocks, stream, outcome);
  c.ours_s = seconds_since(t);
  cudaStreamDestroy(stream);
  c.ours_iterations = outcome.iterations;
  c.ours_ms = outcome.iterations ? 1e3 * c.ours_s / outcome.iterations : 0.0;
  c.status = e != cudaSuccess ? cudaGetErrorString(e) : switchyard_cg_status_string(outcome.status);
  c.floor_ms = (double(a.ndiag() + 2) * sizeof(V) + 88.0) * n / bandwidth / 1e6;
  const std::vector<double> host_b = download(b, n), ours = download(x, n);
  {
    std::vector<double> r = host_product(a, ours);
    for (std::size_t i = 0; i < n; ++i) r[i] = host_b[i] - r[i];
    c.host_relres = norm(r) / norm(host_b);
  }
  std::printf("  CG (library, device data): %s, %d iterations, %.3f s, %.3f ms per iteration, "
              "host-checked relative residual %.2e\n", c.status, c.ours_iterations, c.ours_s,
              c.ours_ms, c.host_relres);
  std::fflush(stdout);
  cudaFree(workspace);

  if (have_csr) {
    double* inverse = device_alloc<double>(n);
    double* work = device_alloc<double>(4 * n);
    if (inverse && work) {
      invert_diagonal(diag, inverse, a.n);
      t = Clock::now();
      const ReferenceCg ref = cusparse_cg(sparse, blas, csr, inverse, b, x, work, o.tolerance,
                                          o.max_iterations);
      c.theirs_s = seconds_since(t);
      c.theirs_iterations = ref.iterations;
      c.theirs_ms = ref.iterations ? 1e3 * c.theirs_s / ref.iterations : 0.0;
      c.difference = relative_distance(ours, download(x, n));
      std::printf("  CG (cuSPARSE + cuBLAS): %s, %d iterations, %.3f s, %.3f ms per iteration; "
                  "||x - x_cusparse|| / ||x_cusparse|| = %.1e\n",
                  ref.converged ? "converged" : "not converged", ref.iterations, c.theirs_s,
                  c.theirs_ms, c.difference);
    }
    cudaFree(inverse);
    cudaFree(work);
    free_csr(csr);
  }
  cudaFree(b);
  cudaFree(x);
  cudaFree(y);
  cudaFree(diag);
  cudaFree(lower);
  if (o.api) {
    c.api_s = api_solve(a, host_b, o.tolerance, o.max_iterations, c.api_iterations);
    std::printf("  switchyard_cg_solve from host arrays: %.3f s, %d iterations\n", c.api_s,
                c.api_iterations);
  }
  std::fflush(stdout);
  return out;
}

void print_tables(const std::vector<GridResult>& results, double bandwidth, bool single) {
  std::printf("\nSpMV (%s values; floor: the format's bytes at %.0f GB/s)\n",
              single ? "float" : "double", bandwidth);
  std::printf("%-14s %10s %9s %7s %7s %8s %9s %7s %9s %7s %8s %8s\n", "grid", "n", "half ms",
              "GB/s", "%floor", "GFLOP/s", "full ms", "GB/s", "cusparse", "GB/s", "vs csr",
              "check");
  for (const GridResult& r : results) {
    const SpmvRow& s = r.spmv;
    char grid[32];
    std::snprintf(grid, sizeof grid, "%dx%dx%d", r.g.nx, r.g.ny, r.g.nz);
    const double half_gbs = s.half_bytes / s.half_ms / 1e6;
    std::printf("%-14s %10lld %6.3f/%d %7.0f %6.0f%% %8.1f", grid, r.n, s.half_ms,
                s.half_rows_per_thread, half_gbs, 100 * half_gbs / bandwidth,
                s.flops / s.half_ms / 1e6);
    if (s.full_ms > 0) {
      std::printf(" %9.3f %7.0f", s.full_ms, s.full_bytes / s.full_ms / 1e6);
    } else {
      std::printf(" %9s %7s", "-", "-");
    }
    if (s.csr_ms > 0) {
      std::printf(" %9.3f %7.0f %7.2fx", s.csr_ms, s.csr_bytes / s.csr_ms / 1e6,
                  s.csr_ms / s.half_ms);
    } else {
      std::printf(" %9s %7s %8s", "-", "-", "-");
    }
    std::printf(" %8.1e\n", s.check);
  }
  std::printf("\nCG per iteration and to solution (random b, ||r|| / ||b|| as the stop test)\n");
  std::printf("%-14s %8s %8s %7s %9s %7s %13s %9s %9s %7s %8s %8s\n", "grid", "ours ms",
              "floor", "%floor", "cusparse", "ratio", "iterations", "ours s", "cusparse", "ratio",
              "api s", "relres");
  for (const GridResult& r : results) {
    const CgRow& c = r.cg;
    char grid[32];
    std::snprintf(grid, sizeof grid, "%dx%dx%d", r.g.nx, r.g.ny, r.g.nz);
    std::printf("%-14s %8.3f %8.3f %6.0f%%", grid, c.ours_ms, c.floor_ms,
                c.ours_ms > 0 ? 100 * c.floor_ms / c.ours_ms : 0.0);
    if (c.theirs_ms > 0) {
      std::printf(" %9.3f %6.2fx %6d/%-6d %9.3f %9.3f %6.2fx", c.theirs_ms,
                  c.theirs_ms / c.ours_ms, c.ours_iterations, c.theirs_iterations, c.ours_s,
                  c.theirs_s, c.theirs_s / c.ours_s);
    } else {
      std::printf(" %9s %7s %6d/%-6s %9.3f %9s %7s", "-", "-", c.ours_iterations, "-", c.ours_s,
                  "-", "-");
    }
    std::printf(" %8.2f %8.1e\n", c.api_s, c.host_relres);
  }
}

}  // namespace

int cg_main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: switchyard bench cg [--grids NXxNYxNZ,...] [--huge] "
                 "[--values double|float]\n"
                 "         [--tol T] [--max-iterations K] [--repeat R] [--skip-api]\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "switchyard bench cg: no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const double bandwidth = device_copy_bandwidth();
  const int grid_blocks = cg::cuda::grid_blocks(0);
  std::printf("device: %s, %d SMs, L2 %d MB; measured device copy %.0f GB/s (read + write); "
              "row kernels use %d blocks of 256; tolerance %.0e\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, bandwidth, grid_blocks,
              o.tolerance);
  cusparseHandle_t sparse = nullptr;
  cublasHandle_t blas = nullptr;
  if (cusparseCreate(&sparse) != CUSPARSE_STATUS_SUCCESS ||
      cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "switchyard bench cg: cuSPARSE or cuBLAS does not start\n");
    return 1;
  }
  std::vector<GridResult> results;
  for (const FemGrid& g : o.grids) {
    results.push_back(o.single ? run_grid<float>(g, o, bandwidth, grid_blocks, sparse, blas)
                               : run_grid<double>(g, o, bandwidth, grid_blocks, sparse, blas));
  }
  print_tables(results, bandwidth, o.single);
  cublasDestroy(blas);
  cusparseDestroy(sparse);
  return 0;
}

}  // namespace switchyard::bench
