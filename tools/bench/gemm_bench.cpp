// switchyard bench gemm [--precision d|s|ds] [--n LIST] [--repeat R] [--skip-host]
//                       [--nvblas LIB|none] [--cpu-blas LIB] [--host-n LIST]
//                       [--devices all|LIST]
//
// Device-resident: A, B and C in device memory, C <- alpha op(A) op(B) + beta C
// for NN, NT, TN and TT at m = n = k in LIST (default 1024,2048,4096,8192)
// and a few non-square and skinny shapes, and for TN, NT and NN at small C
// with long k (64 x 64 x 2^22, 32 x 32 x 2^22, 256 x 256 x 2^20; "TN=A" and
// "NT=A" are the Gram products A^T A and A A^T, B the same buffer as A),
// through the gemm route's OpenCL kernels (copy kernels + TN kernel, the
// tuning entry of the device, or the in-place kernels where the route takes
// them) against cuBLAS and CLBlast (libclblast.so.1, when found) on the same
// GPU, measured in the same run. Where the route splits k (S > 1
// slices, split_k.hpp), the route with one slice is timed too; where it gives
// a double product that is not square to the copy kernels and the TN kernel,
// the in-place kernels are timed too ("inpl"). Each time is
// the best of R runs, synchronised (clFinish, cudaDeviceSynchronize).
// Host-resident: the route's whole call (streamed through pinned slots) from
// pageable host memory against NVBLAS (LIB, default
// /usr/local/cuda/lib64/libnvblas.so, with the CPU BLAS LIB, default
// libblas.so.3; "none" skips it), for n in the --host-n LIST (default 4096,
// 8192) in double precision, and with --devices split over those devices
// (SWITCHYARD_DEVICES) against one device (gemm_host_bench.hpp).
#include "gemm_bench.hpp"

#include "bench_util.hpp"
#include "clblast_anchor.hpp"
#include "gemm_host_bench.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/device_gemm.hpp"
#include "gemm/tuning_db.hpp"

namespace switchyard::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Shape3 {
  int m, n, k;
  std::vector<const char*> cases = {"NN", "NT", "TN", "TT"};
};

template <class F>
double best_seconds(int repeat, F&& run) {
  run();  // warm-up: compiles, allocations
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = Clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

// op(A), op(B) and C of one product on the OpenCL device, filled with 0.5; a, b or c is
// null when the device has no room.
struct DeviceOperands {
  int a_rows, b_rows;
  opencl::Buffer a, b, c;  // b unused for a Gram product
  bool gram = false;
  cl_mem b_mem() const { return gram ? a.get() : b.get(); }
  bool complete() const { return a.get() && b_mem() && c.get(); }
};

// `gram`: B is A's buffer (op(A)^T = op(B), m = n).
template <class T>
DeviceOperands device_operands(opencl::Runtime& rt, char ta, char tb, const Shape3& s,
                               bool gram = false) {
  DeviceOperands o;
  o.gram = gram;
  o.a_rows = ta == 'N' ? s.m : s.k;
  o.b_rows = tb == 'N' ? s.k : s.n;
  const int a_cols = ta == 'N' ? s.k : s.m, b_cols = tb == 'N' ? s.n : s.k;
  std::string error;
  o.a = rt.acquire(sizeof(T) * std::size_t(o.a_rows) * a_cols, error);
  if (!gram) o.b = rt.acquire(sizeof(T) * std::size_t(o.b_rows) * b_cols, error);
  o.c = rt.acquire(sizeof(T) * std::size_t(s.m) * s.n, error);
  if (!o.complete()) return o;
  const T value = T(0.5);
  for (const opencl::Buffer* buf : {&o.a, &o.b, &o.c}) {
    if (!buf->get()) continue;
    rt.cl().EnqueueFillBuffer(rt.queue(), buf->get(), &value, sizeof(T), 0, buf->bytes(), 0,
                              nullptr, nullptr);
  }
  return o;
}

template <class T>
double ours(opencl::Runtime& rt, gemm::Kernels& kernels, char ta, char tb, const Shape3& s,
            int repeat, int forced_slices = 0, bool gram = false) {
  const DeviceOperands o = device_operands<T>(rt, ta, tb, s, gram);
  if (!o.complete()) return 0;
  std::string error;
  bool ok = true;
  const double t = best_seconds(repeat, [&] {
    std::vector<opencl::Buffer> scratch;
    ok = ok && gemm::enqueue_gemm<T>(rt, kernels, ta, tb, s.m, s.n, s.k, T(1),
                                     {o.a.get(), 0, o.a_rows}, {o.b_mem(), 0, o.b_rows}, T(1),
                                     {o.c.get(), 0, s.m}, scratch, error, forced_slices);
    rt.cl().Finish(rt.queue());
  });
  if (!ok) {
    std::fprintf(stderr, "gemm on the OpenCL device failed: %s\n", error.c_str());
    return 0;
  }
  return t;
}

// The in-place kernels (double) on a shape the route gives the copy kernels and the TN kernel,
// so that the bench shows what reading A and B where they lie would give there; 0 when the
// kernels lack them.
double inplace(opencl::Runtime& rt, gemm::Kernels& kernels, char ta, char tb, const Shape3& s,
               int repeat) {
  if (!kernels.inplace[0][0]) return 0;
  const DeviceOperands o = device_operands<double>(rt, ta, tb, s);
  if (!o.complete()) return 0;
  const gemm::Split split = gemm::inplace_split(s.m, s.n, s.k, kernels.compute_units);
  std::string error;
  opencl::Buffer partials;
  if (split.slices > 1) {
    partials = rt.acquire(gemm::partial_bytes(split, s.m, s.n, sizeof(double)), error);
    if (!partials.get()) return 0;
  }
  bool ok = true;
  const double t = best_seconds(repeat, [&] {
    ok = ok && gemm::enqueue_inplace(rt, kernels, ta, tb, split, s.m, s.n, s.k, 1.0,
                                     {o.a.get(), 0, o.a_rows}, {o.b_mem(), 0, o.b_rows}, 1.0,
                                     {o.c.get(), 0, s.m}, false, partials.get(), error);
    rt.cl().Finish(rt.queue());
  });
  if (!ok) std::fprintf(stderr, "the in-place kernels failed: %s\n", error.c_str());
  return ok ? t : 0;
}

template <class T>
double clblast(opencl::Runtime& rt, const Clblast& lib, char ta, char tb, const Shape3& s,
               int repeat) {
  if (!lib.available()) return 0;
  const DeviceOperands o = device_operands<T>(rt, ta, tb, s);
  if (!o.complete()) return 0;
  bool ok = true;
  const double t = best_seconds(repeat, [&] {
    ok = ok && lib.gemm<T>(rt.queue(), ta, tb, s.m, s.n, s.k, T(1), o.a.get(), o.a_rows,
                           o.b_mem(), o.b_rows, T(1), o.c.get(), s.m);
    rt.cl().Finish(rt.queue());
  });
  return ok ? t : 0;
}

template <class T>
double cublas(cublasHandle_t handle, char ta, char tb, const Shape3& s, int repeat) {
  const int a_rows = ta == 'N' ? s.m : s.k, a_cols = ta == 'N' ? s.k : s.m;
  const int b_rows = tb == 'N' ? s.k : s.n, b_cols = tb == 'N' ? s.n : s.k;
  T *a = nullptr, *b = nullptr, *c = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&a), sizeof(T) * std::size_t(a_rows) * a_cols) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&b), sizeof(T) * std::size_t(b_rows) * b_cols) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&c), sizeof(T) * std::size_t(s.m) * s.n) != cudaSuccess) {
    cudaFree(a), cudaFree(b), cudaFree(c);
    return 0;
  }
  cudaMemset(a, 0, sizeof(T) * std::size_t(a_rows) * a_cols);
  cudaMemset(b, 0, sizeof(T) * std::size_t(b_rows) * b_cols);
  cudaMemset(c, 0, sizeof(T) * std::size_t(s.m) * s.n);
  const T one = 1;
  const cublasOperation_t oa = ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t ob = tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const double t = best_seconds(repeat, [&] {
    if constexpr (sizeof(T) == 8) {
      cublasDgemm(handle, oa, ob, s.m, s.n, s.k, &one, a, a_rows, b, b_rows, &one, c, s.m);
    } else {
      cublasSgemm(handle, oa, ob, s.m, s.n, s.k, &one, a, a_rows, b, b_rows, &one, c, s.m);
    }
    cudaDeviceSynchronize();
  });
  cudaFree(a), cudaFree(b), cudaFree(c);
  return t;
}

template <class T>
void device_resident(opencl::Runtime& rt, cublasHandle_t handle, const Clblast& clblast_lib,
                     const std::vector<int>& sizes, int repeat) {
  const gemm::Precision p = sizeof(T) == 8 ? gemm::Precision::f64 : gemm::Precision::f32;
  const gemm::Selection sel = gemm::select(rt.device(), p);
  std::string error;
  gemm::Kernels* kernels = gemm::kernels_for(rt, sel.entry.params, error);
  if (!kernels) {
    std::fprintf(stderr, "no kernels: %s\n", error.c_str());
    return;
  }
  std::printf("\n%cgemm, device-resident: %s, kernel %s (%s)\n", sizeof(T) == 8 ? 'd' : 's',
              rt.device().name.c_str(), gemm::describe(sel.entry.params).c_str(),
              sel.source.c_str());
  std::printf("%-6s %6s %6s %8s %4s %10s %10s %10s %11s %12s %13s %8s %10s\n", "case", "m", "n",
              "k", "S", "ours ms", "ours TF/s", "S=1 TF/s", "inpl TF/s", "cuBLAS TF/s",
              "CLBlast TF/s", "/cuBLAS", "/CLBlast");
  std::vector<Shape3> shapes;
  for (int n : sizes) shapes.push_back({n, n, n});
  for (Shape3 s : {Shape3{8192, 8192, 256}, Shape3{8192, 256, 8192}, Shape3{256, 8192, 8192},
                   Shape3{16384, 4096, 1024}, Shape3{1000, 1000, 1000}}) {
    shapes.push_back(s);
  }
  // Small C, long k: the Gram products that split-K spreads over the device.
  for (Shape3 s : {Shape3{64, 64, 1 << 22}, Shape3{32, 32, 1 << 22}, Shape3{256, 256, 1 << 20}}) {
    s.cases = {"TN", "TN=A", "NT", "NT=A", "NN"};
    shapes.push_back(s);
  }
  for (const Shape3& s : shapes) {
    for (const char* c : s.cases) {
      // The operands as device_operands makes them: at their buffers' starts, ld their rows.
      const gemm::DeviceMatrix a{nullptr, 0, c[0] == 'N' ? s.m : s.k};
      const gemm::DeviceMatrix b{nullptr, 0, c[1] == 'N' ? s.k : s.n};
      const bool routed_inplace =
          gemm::routes_inplace(*kernels, c[0], c[1], s.m, s.n, s.k, a, b);
      const int slices =
          routed_inplace
              ? gemm::inplace_split(s.m, s.n, s.k, kernels->compute_units).slices
              : gemm::split_for(*kernels, gemm::padded(kernels->params, s.m, s.n, s.k)).slices;
      const bool gram = std::strchr(c, '=') != nullptr;
      const double flops = 2.0 * s.m * double(s.n) * s.k;
      const double t_ours = ours<T>(rt, *kernels, c[0], c[1], s, repeat, 0, gram);
      const double t_one =
          slices > 1 ? ours<T>(rt, *kernels, c[0], c[1], s, repeat, 1, gram) : t_ours;
      // The in-place kernels on a shape the route gives the TN kernel.
      const bool square = s.m == s.n && s.n == s.k;
      const double t_inplace = sizeof(T) == 8 && !routed_inplace && !square
                                   ? inplace(rt, *kernels, c[0], c[1], s, repeat)
                                   : 0;
      const double t_cublas = cublas<T>(handle, c[0], c[1], s, repeat);
      const double t_clblast = clblast<T>(rt, clblast_lib, c[0], c[1], s, repeat);
      const auto rate = [&](double t) { return t > 0 ? flops / t * 1e-12 : 0.0; };
      const double r_ours = rate(t_ours), r_cublas = rate(t_cublas), r_clblast = rate(t_clblast);
      std::printf("%-6s %6d %6d %8d %4d %10.3f %10.2f %10.2f %11.2f %12.2f %13.2f %8.2f %10.2f\n",
                  c, s.m, s.n, s.k, slices, t_ours * 1e3, r_ours, rate(t_one), rate(t_inplace),
                  r_cublas, r_clblast,
                  r_cublas > 0 ? r_ours / r_cublas : 0.0,
                  r_clblast > 0 ? r_ours / r_clblast : 0.0);
      std::fflush(stdout);
    }
  }
}

}  // namespace

int gemm_main(int argc, char** argv) {
  std::string precisions = "ds";
  std::vector<int> sizes = {1024, 2048, 4096, 8192};
  int repeat = 3;
  bool host = true;
  std::string nvblas = "/usr/local/cuda/lib64/libnvblas.so", cpu_blas = "libblas.so.3";
  std::vector<int> host_sizes = {4096, 8192};
  std::string devices;
  if (argc == 3 && std::strcmp(argv[0], "--dgemm-once") == 0) {
    return gemm_once(std::atoi(argv[1]), std::atoi(argv[2]));
  }
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--nvblas" && i + 1 < argc) {
      nvblas = argv[++i];
    } else if (a == "--cpu-blas" && i + 1 < argc) {
      cpu_blas = argv[++i];
    } else if (a == "--precision" && i + 1 < argc) {
      precisions = argv[++i];
    } else if (a == "--n" && i + 1 < argc) {
      sizes = parse_list(argv[++i]);
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--host-n" && i + 1 < argc) {
      host_sizes = parse_list(argv[++i]);
    } else if (a == "--devices" && i + 1 < argc) {
      devices = argv[++i];
    } else if (a == "--skip-host") {
      host = false;
    } else {
      std::fprintf(stderr,
                   "usage: switchyard bench gemm [--precision d|s|ds] [--n LIST] [--repeat R] "
                   "[--skip-host] [--nvblas LIB|none] [--cpu-blas LIB] [--host-n LIST] "
                   "[--devices all|LIST]\n");
      return 2;
    }
  }
  // The host-resident children run first: while this process held its
  // OpenCL and CUDA contexts, the route's call in a child ran 100 times
  // slower (1548 ms against 15 ms for n = 4096 on the H200).
  if (host) gemm_host_resident(host_sizes, repeat, nvblas, cpu_blas, devices);
  if (precisions.find_first_of("ds") == std::string::npos) return 0;
  const char* why = nullptr;
  opencl::Runtime* rt = opencl::runtime(&why);
  if (!rt) {
    std::fprintf(stderr, "bench gemm: no OpenCL device: %s\n", why);
    return 1;
  }
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "bench gemm: cuBLAS does not start\n");
    return 1;
  }
  const Clblast clblast_lib;
  if (!clblast_lib.available()) std::printf("CLBlast: libclblast.so.1 not found\n");
  if (precisions.find('d') != std::string::npos) {
    device_resident<double>(*rt, handle, clblast_lib, sizes, repeat);
  }
  if (precisions.find('s') != std::string::npos) {
    device_resident<float>(*rt, handle, clblast_lib, sizes, repeat);
  }
  cublasDestroy(handle);
  return 0;
}

}  // namespace switchyard::bench
