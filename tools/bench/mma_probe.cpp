// mma_probe: builds the generated TN GEMM kernels (tensor-core DGEMM, FFMA SGEMM) through an
// OpenCL platform, checks each against a CPU reference on small awkward shapes (m, n, k that are
// multiples of no tile, ldc > m, an offset into C, NaN in C with beta = 0, NaN in the padding
// columns) and times them at large n against cuBLAS, checking every large result against
// cuBLAS's on the same random inputs.
//
//   mma_probe [--platform NAME] [--precision d|s|ds] [--sizes 4096,8192x256x8192] [--beta B]
//             [--reps N] [--only SUBSTRING,...] [--logs DIR] [--list]
// A size is n (m = n = k) or m x n x k, each a multiple of every variant's tile (a variant
// whose tile does not divide a shape skips it). --beta (default 0) is the large runs' beta, so
// that C's read shows. --only keeps the variants whose names hold any of the comma-separated
// substrings.

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cl_probe_context.hpp"
#include "gemm/ffma_kernel_source.hpp"
#include "gemm/mma_kernel_source.hpp"

namespace sb = switchyard::bench;
namespace sg = switchyard::gemm;

namespace {

struct Variant {
  char precision;  // 'd' or 's'
  std::string name, kernel, source;
  int threads, bm, bn, bk;
  int min_cc;  // compute capability needed (times ten); 0: any OpenCL device
  std::size_t local_bytes;
};

Variant mma(sg::MmaShape shape, int bm, int bn, int bk, int wm, int wn, int stages, bool async,
            int group_m = 8, bool swizzle = false) {
  sg::MmaKernelParams p;
  p.shape = shape, p.bm = bm, p.bn = bn, p.bk = bk, p.wm = wm, p.wn = wn, p.stages = stages;
  p.async_copy = async, p.group_m = group_m, p.swizzle = swizzle;
  const std::string e = sg::check(p);
  if (!e.empty()) std::fprintf(stderr, "invalid %s: %s\n", sg::name(p).c_str(), e.c_str());
  return {'d', "d_" + sg::name(p), sg::kTnKernel, e.empty() ? sg::mma_kernel_source(p) : "",
          sg::threads(p), bm, bn, bk, sg::min_compute_capability(shape), sg::local_memory_bytes(p)};
}

Variant ffma(int bm, int bn, int bk, int tm, int tn, int warp_rows, int stages, bool async,
             int group_m = 8) {
  sg::FfmaKernelParams p;
  p.bm = bm, p.bn = bn, p.bk = bk, p.tm = tm, p.tn = tn, p.warp_rows = warp_rows;
  p.stages = stages, p.async_copy = async, p.group_m = group_m;
  const std::string e = sg::check(p);
  if (!e.empty()) std::fprintf(stderr, "invalid %s: %s\n", sg::name(p).c_str(), e.c_str());
  return {'s', "s_" + sg::name(p), sg::kTnKernel, e.empty() ? sg::ffma_kernel_source(p) : "",
          sg::threads(p), bm, bn, bk, async ? 80 : 0, sg::local_memory_bytes(p)};
}

// The parameter sets tried; all fit NVIDIA OpenCL's 48 KiB of local memory.
std::vector<Variant> variants() {
  using S = sg::MmaShape;
  return {
      mma(S::m16n8k8, 128, 64, 8, 64, 32, 3, true),
      mma(S::m16n8k8, 128, 64, 8, 64, 32, 2, false),
      mma(S::m16n8k8, 128, 64, 8, 64, 32, 2, false, 16),
      mma(S::m16n8k8, 128, 64, 16, 64, 32, 1, false),
      mma(S::m16n8k8, 128, 128, 8, 64, 32, 2, false),
      mma(S::m16n8k8, 64, 64, 16, 32, 32, 2, false),
      mma(S::m16n8k16, 64, 64, 16, 32, 32, 2, false),
      mma(S::m16n8k16, 64, 64, 16, 32, 32, 2, false, 4),
      mma(S::m16n8k16, 64, 64, 16, 32, 32, 2, false, 16),
      mma(S::m16n8k16, 64, 64, 16, 32, 32, 1, false),
      mma(S::m16n8k16, 128, 64, 16, 64, 32, 1, false),
      mma(S::m16n8k16, 128, 64, 16, 32, 32, 1, false),
      mma(S::m16n8k16, 128, 128, 16, 64, 32, 1, false),
      mma(S::m16n8k16, 64, 128, 16, 32, 32, 1, false),
      mma(S::m16n8k16, 128, 32, 16, 64, 16, 2, false),
      mma(S::m16n8k16, 64, 64, 32, 32, 32, 1, false),
      mma(S::m16n8k4, 128, 64, 8, 64, 32, 2, false),
      mma(S::m8n8k4, 64, 64, 8, 32, 32, 2, false),
      // Swizzled local tiles (no padding), so that two 128 x 64 x 16 stages fit.
      mma(S::m16n8k16, 128, 64, 16, 64, 32, 1, false, 8, true),
      mma(S::m16n8k16, 128, 64, 16, 64, 32, 2, false, 8, true),
      mma(S::m16n8k16, 128, 64, 16, 64, 32, 2, true, 8, true),
      mma(S::m16n8k16, 128, 64, 16, 64, 32, 2, false, 16, true),
      mma(S::m16n8k16, 64, 128, 16, 32, 64, 2, false, 8, true),
      mma(S::m16n8k16, 128, 64, 32, 64, 32, 1, false, 8, true),
      mma(S::m16n8k16, 64, 64, 16, 32, 32, 3, true, 8, true),
      mma(S::m16n8k8, 128, 64, 8, 64, 32, 4, true, 8, true),
      ffma(128, 128, 16, 8, 8, 4, 2, true),
      ffma(128, 64, 8, 8, 8, 4, 3, true),
      ffma(128, 64, 16, 8, 8, 4, 2, true),
      ffma(128, 64, 16, 8, 8, 4, 2, false),
      ffma(128, 64, 16, 8, 8, 4, 3, true),
      ffma(128, 128, 16, 8, 8, 4, 2, false),
      ffma(128, 128, 16, 8, 8, 4, 1, false),
      ffma(128, 128, 32, 8, 8, 4, 1, false),
      ffma(128, 64, 32, 8, 8, 4, 1, false),
      ffma(128, 128, 8, 8, 8, 4, 2, false),
    };
}

// Uniform in [-1, 1), a pure function of (seed, i) so that filling runs on all cores.
template <class T>
void fill_random(std::vector<T>& v, std::uint64_t seed) {
  const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < nt; ++w)
    pool.emplace_back([&, w] {
      for (std::size_t i = w; i < v.size(); i += nt) {
        std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        v[i] = T(double(z >> 11) * 0x1.0p-52 - 1.0);
      }
    });
  for (auto& t : pool) t.join();
}

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

struct Shape {
  int m, n, k;
};

struct Options {
  std::string platform = "NVIDIA", precision = "ds", logs;
  std::vector<std::string> only;
  std::vector<Shape> sizes = {{4096, 4096, 4096}, {8192, 8192, 8192}};
  double beta = 0;
  int reps = 5;
  bool list = false;
};

// The route's TN kernel arguments (kernel_source.hpp), with lda = Mp and ldb = Np, in one k slice
// (Ks = Kp: no split-K).
template <class T>
void set_args(cl_kernel k, int kp, int mp, int np, cl_mem a, cl_mem b, int m, int n, T alpha,
              T beta, cl_mem c, cl_long c_offset, int ldc) {
  int i = 0;
  sb::cl_check(clSetKernelArg(k, i++, sizeof kp, &kp), "arg Kp");
  sb::cl_check(clSetKernelArg(k, i++, sizeof mp, &mp), "arg Mp");
  sb::cl_check(clSetKernelArg(k, i++, sizeof np, &np), "arg Np");
  sb::cl_check(clSetKernelArg(k, i++, sizeof a, &a), "arg Ap");
  sb::cl_check(clSetKernelArg(k, i++, sizeof b, &b), "arg Bp");
  sb::cl_check(clSetKernelArg(k, i++, sizeof m, &m), "arg m");
  sb::cl_check(clSetKernelArg(k, i++, sizeof n, &n), "arg n");
  sb::cl_check(clSetKernelArg(k, i++, sizeof alpha, &alpha), "arg alpha");
  sb::cl_check(clSetKernelArg(k, i++, sizeof beta, &beta), "arg beta");
  sb::cl_check(clSetKernelArg(k, i++, sizeof c, &c), "arg C");
  sb::cl_check(clSetKernelArg(k, i++, sizeof c_offset, &c_offset), "arg c_offset");
  sb::cl_check(clSetKernelArg(k, i++, sizeof ldc, &ldc), "arg ldc");
  const cl_long c_slice = 0;
  sb::cl_check(clSetKernelArg(k, i++, sizeof kp, &kp), "arg Ks");
  sb::cl_check(clSetKernelArg(k, i++, sizeof c_slice, &c_slice), "arg c_slice");
}

// The launch of the route: (Mp / bm * threads, Np / bn) work-items in groups of (threads, 1).
double launch(sb::ClContext& cl, cl_kernel kernel, const Variant& v, int mp, int np) {
  return cl.launch(kernel, {std::size_t(mp / v.bm) * v.threads, std::size_t(np / v.bn)},
                   {std::size_t(v.threads), 1});
}

// Small awkward shapes against a long-double reference; also checks that C outside the m x n
// block (the ldc gap, before the offset, after the end) is untouched. Empty when all is right.
template <class T>
std::string small_check(sb::ClContext& cl, cl_kernel kernel, const Variant& v, int m, int n,
                        int k, T alpha, T beta, std::uint64_t seed) {
  const int lda = int(round_up(m, v.bm)), ldb = int(round_up(n, v.bn));
  const int k_pad = int(round_up(k, v.bk));
  const int ldc = m + 3;
  const std::size_t c_offset = 5, c_size = c_offset + std::size_t(ldc) * n + 7;
  const T nan = std::numeric_limits<T>::quiet_NaN(), sentinel = T(777);
  std::vector<T> a(std::size_t(k_pad) * lda, T(0)), b(std::size_t(k_pad) * ldb, T(0));
  std::vector<T> ra(std::size_t(k) * m), rb(std::size_t(k) * n), rc(std::size_t(m) * n);
  fill_random(ra, seed), fill_random(rb, seed + 1), fill_random(rc, seed + 2);
  for (int kk = 0; kk < k; ++kk) {
    for (int i = 0; i < lda; ++i) a[std::size_t(kk) * lda + i] = i < m ? ra[std::size_t(kk) * m + i] : nan;
    for (int j = 0; j < ldb; ++j) b[std::size_t(kk) * ldb + j] = j < n ? rb[std::size_t(kk) * n + j] : nan;
  }
  std::vector<T> c(c_size, sentinel);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      c[c_offset + std::size_t(j) * ldc + i] = beta == T(0) ? nan : rc[std::size_t(j) * m + i];
  cl_mem da = cl.buffer(a.size() * sizeof(T)), db = cl.buffer(b.size() * sizeof(T));
  cl_mem dc = cl.buffer(c.size() * sizeof(T));
  cl.write(da, a.data(), a.size() * sizeof(T));
  cl.write(db, b.data(), b.size() * sizeof(T));
  cl.write(dc, c.data(), c.size() * sizeof(T));
  set_args<T>(kernel, k_pad, lda, ldb, da, db, m, n, alpha, beta, dc, cl_long(c_offset), ldc);
  launch(cl, kernel, v, lda, ldb);
  std::vector<T> got(c.size());
  cl.read(dc, got.data(), got.size() * sizeof(T));
  clReleaseMemObject(da), clReleaseMemObject(db), clReleaseMemObject(dc);

  const double eps = std::numeric_limits<T>::epsilon();
  int bad = 0;
  std::ostringstream why;
  for (std::size_t idx = 0; idx < got.size(); ++idx) {
    const std::size_t rel = idx - c_offset;
    const bool inside = idx >= c_offset && rel / ldc < std::size_t(n) && int(rel % ldc) < m;
    if (!inside) {
      if (!(got[idx] == sentinel) && bad++ < 3) why << " C[" << idx << "] outside m x n written;";
      continue;
    }
    const int i = int(rel % ldc), j = int(rel / ldc);
    long double s = 0, s_abs = 0;
    for (int kk = 0; kk < k; ++kk) {
      const long double p = (long double)ra[std::size_t(kk) * m + i] * rb[std::size_t(kk) * n + j];
      s += p, s_abs += std::fabs(p);
    }
    const long double c0 = beta == T(0) ? 0 : rc[std::size_t(j) * m + i];
    const long double ref = alpha * s + beta * c0;
    const long double bound = 2 * (k + 2) * eps * (std::fabs(alpha) * s_abs + std::fabs(beta * c0));
    if (!(std::fabs(got[idx] - ref) <= bound) && bad++ < 3)
      why << " C(" << i << "," << j << ") = " << double(got[idx]) << " not " << double(ref) << ";";
  }
  if (bad == 0) return {};
  return std::to_string(bad) + " wrong entries:" + why.str();
}

struct Row {
  std::string variant;
  Shape shape;
  double ms, tflops, cublas_tflops, rel_err;
  bool ok;
};

// Large runs of every variant of one precision against cuBLAS on the same inputs.
template <class T>
void time_size(sb::ClContext& cl, std::vector<std::pair<const Variant*, cl_kernel>>& built,
               const Shape& s, T beta, int reps, bool have_cublas, cublasHandle_t handle,
               std::uint64_t seed, std::vector<Row>& rows) {
  const std::size_t a_count = std::size_t(s.k) * s.m, b_count = std::size_t(s.k) * s.n;
  const std::size_t c_count = std::size_t(s.m) * s.n;
  std::vector<T> a(a_count), b(b_count), c0(c_count), ref(c_count, T(0)), got(c_count);
  fill_random(a, seed), fill_random(b, seed + 1), fill_random(c0, seed + 2);
  const T alpha = T(1);
  const double flops = 2.0 * s.m * double(s.n) * s.k;
  const std::string label =
      std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);

  double cublas_tflops = 0;
  if (have_cublas) {
    T *ga = nullptr, *gb = nullptr, *gc = nullptr;
    cudaMalloc(&ga, a_count * sizeof(T)), cudaMalloc(&gb, b_count * sizeof(T));
    cudaMalloc(&gc, c_count * sizeof(T));
    cudaMemcpy(ga, a.data(), a_count * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(gb, b.data(), b_count * sizeof(T), cudaMemcpyHostToDevice);
    // A' (K x M row-major) is op(A) column-major, B' (K x N row-major) is op(B)^T column-major.
    auto run = [&] {
      if constexpr (sizeof(T) == 8)
        cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, s.m, s.n, s.k, &alpha, ga, s.m, gb, s.n,
                    &beta, gc, s.m);
      else
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, s.m, s.n, s.k, &alpha, ga, s.m, gb, s.n,
                    &beta, gc, s.m);
    };
    auto reset_c = [&] { cudaMemcpy(gc, c0.data(), c_count * sizeof(T), cudaMemcpyHostToDevice); };
    reset_c();
    run();
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      cudaEventRecord(e0);
      run();
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float t = 0;
      cudaEventElapsedTime(&t, e0, e1);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    cublas_tflops = flops / (ms[ms.size() / 2] * 1e-3) * 1e-12;
    reset_c();
    run();
    cudaMemcpy(ref.data(), gc, c_count * sizeof(T), cudaMemcpyDeviceToHost);
    cudaFree(ga), cudaFree(gb), cudaFree(gc);
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    std::printf("  cuBLAS %cgemm %s: %.1f TFLOP/s\n", sizeof(T) == 8 ? 'd' : 's', label.c_str(),
                cublas_tflops);
  }
  double ref_max = 0;
  for (T x : ref) ref_max = std::max(ref_max, double(std::fabs(x)));

  cl_mem da = cl.buffer(a_count * sizeof(T)), db = cl.buffer(b_count * sizeof(T));
  cl_mem dc = cl.buffer(c_count * sizeof(T));
  cl.write(da, a.data(), a_count * sizeof(T));
  cl.write(db, b.data(), b_count * sizeof(T));
  for (auto& [v, kernel] : built) {
    if (s.m % v->bm || s.n % v->bn || s.k % v->bk) continue;
    set_args<T>(kernel, s.k, s.m, s.n, da, db, s.m, s.n, alpha, beta, dc, 0, s.m);
    cl.write(dc, c0.data(), c_count * sizeof(T));
    launch(cl, kernel, *v, s.m, s.n);
    cl.read(dc, got.data(), c_count * sizeof(T));  // one product on the original C, checked
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) ms.push_back(launch(cl, kernel, *v, s.m, s.n));
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    double err = 0;
    for (std::size_t i = 0; i < c_count; ++i) err = std::max(err, double(std::fabs(got[i] - ref[i])));
    if (std::isnan(got[0]) || std::isnan(got[c_count - 1])) err = INFINITY;
    const double rel = have_cublas ? err / ref_max : NAN;
    const double tol = sizeof(T) == 8 ? 1e-11 : 1e-4;
    const Row row{v->name, s, med, flops / (med * 1e-3) * 1e-12, cublas_tflops, rel,
                  !have_cublas || rel <= tol};
    std::printf("  %-44s %s %8.3f ms %6.1f TFLOP/s  rel.err %.1e %s\n", v->name.c_str(),
                label.c_str(), med, row.tflops, rel, row.ok ? "ok" : "WRONG");
    std::fflush(stdout);
    rows.push_back(row);
  }
  clReleaseMemObject(da), clReleaseMemObject(db), clReleaseMemObject(dc);
}

// Build-log lines worth a glance: registers, spills, stack.
std::string resource_lines(const std::string& log) {
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("registers") != std::string::npos || line.find("spill") != std::string::npos)
      out += "    " + line + "\n";
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--platform" && has_value) o.platform = argv[++i];
    else if (a == "--precision" && has_value) o.precision = argv[++i];
    else if (a == "--only" && has_value) {
      std::istringstream in(argv[++i]);
      for (std::string s; std::getline(in, s, ',');)
        if (!s.empty()) o.only.push_back(s);
    }
    else if (a == "--logs" && has_value) o.logs = argv[++i];
    else if (a == "--reps" && has_value) o.reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--beta" && has_value) o.beta = std::atof(argv[++i]);
    else if (a == "--list") o.list = true;
    else if (a == "--sizes" && has_value) {
      o.sizes.clear();
      std::istringstream in(argv[++i]);
      for (std::string s; std::getline(in, s, ',');) {
        Shape shape{};
        const int fields = std::sscanf(s.c_str(), "%dx%dx%d", &shape.m, &shape.n, &shape.k);
        if (fields == 1) shape.n = shape.k = shape.m;
        if ((fields != 1 && fields != 3) || shape.m <= 0 || shape.n <= 0 || shape.k <= 0) {
          std::fprintf(stderr, "bad size %s\n", s.c_str());
          std::exit(2);
        }
        o.sizes.push_back(shape);
      }
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  std::vector<Variant> all = variants();
  if (opt.list) {
    for (const Variant& v : all)
      std::printf("%-44s %4d threads %6zu B local\n", v.name.c_str(), v.threads, v.local_bytes);
    return 0;
  }
  sb::ClContext cl(opt.platform);
  std::printf("OpenCL: %s / %s, driver %s, sm %d, %zu B local memory\n", cl.platform_name.c_str(),
              cl.device_name.c_str(), cl.driver_version.c_str(), cl.compute_capability,
              cl.local_memory);
  int cuda_devices = 0;
  const bool have_cublas = cudaGetDeviceCount(&cuda_devices) == cudaSuccess && cuda_devices > 0;
  cublasHandle_t handle = nullptr;
  if (have_cublas) cublasCreate(&handle);
  std::printf("cuBLAS: %s\n", have_cublas ? "yes" : "no CUDA device");
  const std::uint64_t seed = std::uint64_t(std::time(nullptr)) * 2654435761u;
  std::printf("seed %llu\n", (unsigned long long)seed);

  const std::string options =
      cl.nvidia ? "-cl-nv-verbose -cl-nv-arch sm_" + std::to_string(cl.compute_capability) : "";
  std::vector<Row> rows;
  int failures = 0;
  for (char precision : opt.precision) {
    std::vector<std::pair<const Variant*, cl_kernel>> built;
    for (const Variant& v : all) {
      if (v.precision != precision || v.source.empty()) continue;
      if (!opt.only.empty() &&
          std::none_of(opt.only.begin(), opt.only.end(),
                       [&](const std::string& s) { return v.name.find(s) != std::string::npos; }))
        continue;
      if (v.min_cc > 0 && cl.compute_capability < v.min_cc) continue;
      if (v.local_bytes > cl.local_memory) {
        std::printf("%s: skipped, %zu B local memory\n", v.name.c_str(), v.local_bytes);
        continue;
      }
      std::string log;
      cl_kernel kernel = cl.build(v.source, v.kernel, options, log);
      if (!kernel && v.source.find("__asm__") != std::string::npos) {
        // Some OpenCL front ends know only the plain asm keyword.
        std::string plain_log;
        kernel = cl.build(replace_all(replace_all(v.source, "__asm__", "asm"), "__volatile__", "volatile"),
                     v.kernel, options, plain_log);
        if (kernel) std::printf("%s: built only with the plain asm keyword\n", v.name.c_str());
        log += "\n--- retry with asm ---\n" + plain_log;
      }
      if (!opt.logs.empty()) {
        std::ofstream(opt.logs + "/" + v.name + ".cl") << v.source;
        std::ofstream(opt.logs + "/" + v.name + ".log") << log;
      }
      if (!kernel) {
        std::printf("%s: BUILD FAILED\n%s\n", v.name.c_str(), log.substr(0, 3000).c_str());
        ++failures;
        continue;
      }
      std::printf("%s: built\n%s", v.name.c_str(), resource_lines(log).c_str());
      std::string err;
      for (int shape = 0; shape < 3 && err.empty(); ++shape) {
        const int m = 2 * v.bm + 37 + shape * 11, n = 3 * v.bn - 19 + shape * 5, k = 5 * v.bk + 3;
        err = precision == 'd'
                  ? small_check<double>(cl, kernel, v, m, n, k, shape == 1 ? -0.5 : 1.5,
                                        shape == 0 ? 0.0 : 0.75, seed + 10 * shape)
                  : small_check<float>(cl, kernel, v, m, n, k, shape == 1 ? -0.5f : 1.5f,
                                       shape == 0 ? 0.0f : 0.75f, seed + 10 * shape);
      }
      std::printf("  small shapes: %s\n", err.empty() ? "ok" : err.c_str());
      if (!err.empty()) {
        ++failures;
        clReleaseKernel(kernel);
        continue;
      }
      built.emplace_back(&v, kernel);
    }
    for (const Shape& s : opt.sizes) {
      const std::uint64_t shape_seed = seed + s.m + 3 * s.n + 7 * s.k;
      if (precision == 'd')
        time_size<double>(cl, built, s, opt.beta, opt.reps, have_cublas, handle, shape_seed, rows);
      else
        time_size<float>(cl, built, s, float(opt.beta), opt.reps, have_cublas, handle, shape_seed,
                         rows);
    }
    for (auto& [v, k] : built) clReleaseKernel(k);
  }
  if (handle) cublasDestroy(handle);

  std::printf("\n%-44s %18s %9s %8s %8s %6s %9s\n", "variant", "m x n x k", "ms", "TFLOP/s",
              "cuBLAS", "ratio", "rel.err");
  for (const Row& r : rows) {
    if (!r.ok) ++failures;
    const std::string label = std::to_string(r.shape.m) + "x" + std::to_string(r.shape.n) + "x" +
                              std::to_string(r.shape.k);
    std::printf("%-44s %18s %9.3f %8.1f %8.1f %5.0f%% %9.1e%s\n", r.variant.c_str(), label.c_str(), r.ms,
                r.tflops, r.cublas_tflops, r.cublas_tflops > 0 ? 100 * r.tflops / r.cublas_tflops : 0.0,
                r.rel_err, r.ok ? "" : " WRONG");
  }
  return failures == 0 ? 0 : 1;
}
