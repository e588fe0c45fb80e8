// Each QR routine Switchyard routes, through its entry point, on the shapes of
// --m-log2 x --n (switchyard bench qr --routines LIST).
//
// Device-resident: the operands in device memory, libswitchyard's entry point (its gpu route
// works on them in place) against the cuSOLVER routine that does the same, on the same matrix,
// each the best of R runs from a fresh copy:
//   dgeqrf  cusolverDnDgeqrf;
//   dorgqr  cusolverDnDorgqr, both on cuSOLVER's reflectors of A;
//   dormqr  cusolverDnDormqr, Q^T C with C of n columns, both on cuSOLVER's reflectors of A;
//   dgels   cusolverDnDgeqrf + cusolverDnDormqr + cublasDtrsm (one right-hand side);
//   dgelsd  the same anchor as dgels (A has full rank, so the solutions agree);
//   dgesvd  cusolverDnDgesvd, JOBU = JOBVT = 'S';
//   dgesdd  the same anchor (cuSOLVER has no divide and conquer SVD);
//   dgeqp3  none (cuSOLVER has no pivoted QR); up to the route's 64 columns.
// "check" compares an output of the two: R's diagonal magnitudes (dgeqrf), the first rows of
// Q or Q^T C, the solution, or the singular values; the largest difference relative to the
// largest magnitude.
// Host-resident: `switchyard bench routing` on the grid (routing_bench.cpp says how).
#include "qr_routines_bench.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "device_fill.hpp"
#include "routing_bench.hpp"

extern "C" {
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
void dormqr_(const char*, const char*, const int*, const int*, const int*, const double*,
             const int*, const double*, double*, const int*, double*, const int*, int*, std::size_t,
             std::size_t);
void dgels_(const char*, const int*, const int*, const int*, double*, const int*, double*,
            const int*, double*, const int*, int*, std::size_t);
void dgelsd_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*,
             const double*, int*, double*, const int*, int*, int*);
void dgeqp3_(const int*, const int*, double*, const int*, int*, double*, double*, const int*, int*);
void dgesvd_(const char*, const char*, const int*, const int*, double*, const int*, double*,
             double*, const int*, double*, const int*, double*, const int*, int*, std::size_t,
             std::size_t);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*,
             double*, const int*, double*, const int*, int*, int*, std::size_t);
}

namespace switchyard::bench {

const std::vector<std::string>& qr_routines() {
  static const std::vector<std::string> all = {"dgeqrf", "dorgqr", "dormqr", "dgels",
                                               "dgelsd", "dgeqp3", "dgesvd", "dgesdd"};
  return all;
}

namespace {

// The widest dgeqp3 the gpu route takes (qr/gpu/drivers.hpp); the others take 256 columns.
constexpr int kGpuMaxPivotedColumns = 64;

// One shape's device memory: A and its pristine copy, C (m x n) and its copy, b, the small
// outputs; the anchors' handles and workspace.
struct Problem {
  int m = 0, n = 0;
  double *pristine = nullptr, *a = nullptr, *c0 = nullptr, *c = nullptr, *b0 = nullptr,
         *b = nullptr, *tau = nullptr, *s = nullptr, *u = nullptr, *vt = nullptr, *work = nullptr;
  int* info = nullptr;
  int lwork = 0;
  // The drivers' host workspace, kept from call to call as a program would keep it: a
  // driver's optimal LWORK may be m x n, whose first touch would otherwise be timed.
  std::vector<double> host_work;
  std::vector<int> host_iwork;
  double* workspace(std::size_t count) {
    if (host_work.size() < count) host_work.resize(count);
    return host_work.data();
  }
  int* int_workspace(std::size_t count) {
    if (host_iwork.size() < count) host_iwork.resize(count);
    return host_iwork.data();
  }
  cusolverDnHandle_t solver = nullptr;
  cublasHandle_t blas = nullptr;

  std::size_t count() const { return std::size_t(m) * n; }
  bool allocated() const { return pristine && a && c0 && c && b0 && b && tau && s && u && vt; }
  void fresh() const {
    cudaMemcpy(a, pristine, sizeof(double) * count(), cudaMemcpyDeviceToDevice);
    cudaMemcpy(c, c0, sizeof(double) * count(), cudaMemcpyDeviceToDevice);
    cudaMemcpy(b, b0, sizeof(double) * m, cudaMemcpyDeviceToDevice);
    cudaDeviceSynchronize();
  }
  // cuSOLVER's reflectors of A, in a, for the Q routines' runs.
  void cusolver_reflectors() const {
    fresh();
    cusolverDnDgeqrf(solver, m, n, a, m, tau, work, lwork, info);
    cudaDeviceSynchronize();
  }
};

std::vector<double> to_host(const double* x, int rows, int ld, int cols) {
  std::vector<double> h(std::size_t(rows) * cols);
  cudaMemcpy2D(h.data(), sizeof(double) * rows, x, sizeof(double) * ld, sizeof(double) * rows, cols,
               cudaMemcpyDeviceToHost);
  return h;
}

double relative_difference(const std::vector<double>& x, const std::vector<double>& y,
                           bool magnitudes) {
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double a = magnitudes ? std::fabs(x[i]) : x[i], b = magnitudes ? std::fabs(y[i]) : y[i];
    worst = std::max(worst, std::fabs(a - b));
    scale = std::max(scale, std::fabs(b));
  }
  return scale > 0 ? worst / scale : worst;
}

std::vector<double> r_diagonal(const Problem& p) {
  std::vector<double> d(std::size_t(p.n));
  for (int j = 0; j < p.n; ++j) {
    cudaMemcpy(&d[j], p.a + j + std::size_t(j) * p.m, sizeof(double), cudaMemcpyDeviceToHost);
  }
  return d;
}

// What one row runs: ours and the anchor (null: none) on a fresh problem, each leaving the
// output that `output` reads.
struct Row {
  std::function<void(Problem&)> ours, anchor;
  std::function<std::vector<double>(const Problem&)> output;
  bool magnitudes = false;
  const char* anchor_name;
};

// The host workspace a driver asks for in its query.
int queried(double answer) { return std::max(1, int(answer + 0.5)); }

Row row_of(const std::string& r) {
  if (r == "dgeqrf") {
    return {[](Problem& p) {
              double* const work = p.workspace(std::size_t(p.n));
              int lwork = p.n, info = 0;
              dgeqrf_(&p.m, &p.n, p.a, &p.m, p.tau, work, &lwork, &info);
            },
            [](Problem& p) {
              cusolverDnDgeqrf(p.solver, p.m, p.n, p.a, p.m, p.tau, p.work, p.lwork, p.info);
            },
            r_diagonal, true, "geqrf"};
  }
  const auto q_rows = [](const Problem& p) { return to_host(p.a, std::min(p.m, 4096), p.m, p.n); };
  const auto c_rows = [](const Problem& p) { return to_host(p.c, std::min(p.m, 4096), p.m, p.n); };
  if (r == "dorgqr") {
    return {[](Problem& p) {
              double* const work = p.workspace(std::size_t(p.n));
              int lwork = p.n, info = 0;
              dorgqr_(&p.m, &p.n, &p.n, p.a, &p.m, p.tau, work, &lwork, &info);
            },
            [](Problem& p) {
              cusolverDnDorgqr(p.solver, p.m, p.n, p.n, p.a, p.m, p.tau, p.work, p.lwork, p.info);
            },
            q_rows, false, "orgqr"};
  }
  if (r == "dormqr") {
    return {[](Problem& p) {
              const int lwork = 64 * p.n;
              double* const work = p.workspace(std::size_t(lwork));
              int info = 0;
              dormqr_("L", "T", &p.m, &p.n, &p.n, p.a, &p.m, p.tau, p.c, &p.m, work, &lwork, &info,
                      1, 1);
            },
            [](Problem& p) {
              cusolverDnDormqr(p.solver, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, p.m, p.n, p.n, p.a, p.m,
                               p.tau, p.c, p.m, p.work, p.lwork, p.info);
            },
            c_rows, false, "ormqr"};
  }
  const auto solution = [](const Problem& p) { return to_host(p.b, p.n, p.m, 1); };
  const auto cusolver_gels = [](Problem& p) {
    const double one = 1;
    cusolverDnDgeqrf(p.solver, p.m, p.n, p.a, p.m, p.tau, p.work, p.lwork, p.info);
    cusolverDnDormqr(p.solver, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, p.m, 1, p.n, p.a, p.m, p.tau, p.b,
                     p.m, p.work, p.lwork, p.info);
    cublasDtrsm(p.blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                p.n, 1, &one, p.a, p.m, p.b, p.m);
  };
  if (r == "dgels") {
    return {[](Problem& p) {
              const int one = 1;
              int lwork = -1, info = 0;
              double answer = 0;
              dgels_("N", &p.m, &p.n, &one, p.a, &p.m, p.b, &p.m, &answer, &lwork, &info, 1);
              lwork = queried(answer);
              double* const work = p.workspace(std::size_t(lwork));
              dgels_("N", &p.m, &p.n, &one, p.a, &p.m, p.b, &p.m, work, &lwork, &info, 1);
            },
            cusolver_gels, solution, false, "geqrf+ormqr+trsm"};
  }
  if (r == "dgelsd") {
    return {[](Problem& p) {
              const int one = 1;
              const double rcond = -1;
              int lwork = -1, info = 0, rank = 0, iwork_size = 0;
              double answer = 0;
              std::vector<double> s(std::size_t(p.n));
              dgelsd_(&p.m, &p.n, &one, p.a, &p.m, p.b, &p.m, s.data(), &rcond, &rank, &answer,
                      &lwork, &iwork_size, &info);
              lwork = queried(answer);
              double* const work = p.workspace(std::size_t(lwork));
              int* const iwork = p.int_workspace(std::size_t(std::max(1, iwork_size)));
              dgelsd_(&p.m, &p.n, &one, p.a, &p.m, p.b, &p.m, s.data(), &rcond, &rank, work, &lwork,
                      iwork, &info);
            },
            cusolver_gels, solution, false, "geqrf+ormqr+trsm"};
  }
  if (r == "dgeqp3") {
    return {[](Problem& p) {
              std::vector<int> jpvt(std::size_t(p.n), 0);
              int lwork = -1, info = 0;
              double answer = 0;
              dgeqp3_(&p.m, &p.n, p.a, &p.m, jpvt.data(), p.tau, &answer, &lwork, &info);
              lwork = queried(answer);
              double* const work = p.workspace(std::size_t(lwork));
              dgeqp3_(&p.m, &p.n, p.a, &p.m, jpvt.data(), p.tau, work, &lwork, &info);
            },
            nullptr, r_diagonal, true, "-"};
  }
  const auto singular_values = [](const Problem& p) { return to_host(p.s, p.n, p.n, 1); };
  const auto cusolver_svd = [](Problem& p) {
    cusolverDnDgesvd(p.solver, 'S', 'S', p.m, p.n, p.a, p.m, p.s, p.u, p.m, p.vt, p.n, p.work,
                     p.lwork, nullptr, p.info);
  };
  if (r == "dgesvd") {
    return {[](Problem& p) {
              int lwork = -1, info = 0;
              double answer = 0;
              dgesvd_("S", "S", &p.m, &p.n, p.a, &p.m, p.s, p.u, &p.m, p.vt, &p.n, &answer, &lwork,
                      &info, 1, 1);
              lwork = queried(answer);
              double* const work = p.workspace(std::size_t(lwork));
              dgesvd_("S", "S", &p.m, &p.n, p.a, &p.m, p.s, p.u, &p.m, p.vt, &p.n, work, &lwork,
                      &info, 1, 1);
            },
            cusolver_svd, singular_values, false, "gesvd"};
  }
  return {[](Problem& p) {
            int lwork = -1, info = 0;
            double answer = 0;
            int* const iwork = p.int_workspace(std::size_t(8) * p.n);
            dgesdd_("S", &p.m, &p.n, p.a, &p.m, p.s, p.u, &p.m, p.vt, &p.n, &answer, &lwork, iwork,
                    &info, 1);
            lwork = queried(answer);
            double* const work = p.workspace(std::size_t(lwork));
            dgesdd_("S", &p.m, &p.n, p.a, &p.m, p.s, p.u, &p.m, p.vt, &p.n, work, &lwork, iwork,
                    &info, 1);
          },
          cusolver_svd, singular_values, false, "gesvd"};
}

// cusolverDnDgesvd (CUDA 13.0, nvidia-h100-x1) writes past the workspace its bufferSize asks
// for once m n reaches 2^30 (compute-sanitizer: batch_eye_kernel), which ends the context.
bool anchor_fails(const std::string& routine, const Problem& p) {
  return (routine == "dgesvd" || routine == "dgesdd") && double(p.m) * p.n >= double(1 << 30);
}

// The largest workspace the anchors ask for on this shape.
int anchor_workspace(const Problem& p) {
  int geqrf = 0, orgqr = 0, ormqr = 0, gesvd = 0;
  cusolverDnDgeqrf_bufferSize(p.solver, p.m, p.n, p.a, p.m, &geqrf);
  cusolverDnDorgqr_bufferSize(p.solver, p.m, p.n, p.n, p.a, p.m, p.tau, &orgqr);
  cusolverDnDormqr_bufferSize(p.solver, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, p.m, p.n, p.n, p.a, p.m,
                              p.tau, p.c, p.m, &ormqr);
  cusolverDnDgesvd_bufferSize(p.solver, p.m, p.n, &gesvd);
  return std::max({1, geqrf, orgqr, ormqr, gesvd});
}

}  // namespace

void device_resident_routines(const QrRoutinesOptions& o, cusolverDnHandle_t solver) {
  std::printf(
      "\neach routine, device-resident: Switchyard (gpu routes, through the entry "
      "points) vs cuSOLVER, ms\n");
  std::printf("%-7s %9s %4s %10s %-17s %10s %8s %9s\n", "routine", "m", "n", "ours", "anchor",
              "anchor ms", "ratio", "check");
  cublasHandle_t blas = nullptr;
  cublasCreate(&blas);
  bool failed = false;
  for (int lg : o.m_log2) {
    for (int n : o.n) {
      if (failed) break;
      Problem p;
      p.m = 1 << lg, p.n = n, p.solver = solver, p.blas = blas;
      p.pristine = device_alloc<double>(p.count());
      p.a = device_alloc<double>(p.count());
      p.c0 = device_alloc<double>(p.count());
      p.c = device_alloc<double>(p.count());
      p.u = device_alloc<double>(p.count());
      p.b0 = device_alloc<double>(p.m);
      p.b = device_alloc<double>(p.m);
      p.tau = device_alloc<double>(n);
      p.s = device_alloc<double>(n);
      p.vt = device_alloc<double>(std::size_t(n) * n);
      p.info = device_alloc<int>(1);
      if (p.allocated()) {
        p.lwork = anchor_workspace(p);
        p.work = device_alloc<double>(std::size_t(p.lwork));
      }
      if (!p.allocated() || !p.work || !p.info) {
        std::printf("%-7s %9d %4d   (no device memory)\n", "-", p.m, n);
      } else {
        fill_uniform_on_device(p.pristine, p.count(), unsigned(lg * 1000 + n));
        fill_uniform_on_device(p.c0, p.count(), unsigned(lg * 1000 + n + 1));
        fill_uniform_on_device(p.b0, std::size_t(p.m), unsigned(lg * 1000 + n + 2));
        for (const std::string& name : o.routines) {
          // A call the route declines runs in the fallback, which cannot read device memory.
          if (name == "dgeqp3" && n > kGpuMaxPivotedColumns) {
            std::printf("%-7s %9d %4d   (the gpu route takes at most %d columns)\n", name.c_str(),
                        p.m, n, kGpuMaxPivotedColumns);
            continue;
          }
          const Row row = row_of(name);
          const bool on_reflectors = name == "dorgqr" || name == "dormqr";
          const auto prepare = [&] { on_reflectors ? p.cusolver_reflectors() : p.fresh(); };
          // The best of `repeat` runs, each on a fresh problem; negative when the device
          // reported an error (which leaves the context unusable: the table ends there).
          const auto time = [&](const std::function<void(Problem&)>& run, int repeat,
                                const char* who) {
            double best = 1e300;
            for (int r = 0; r < repeat; ++r) {
              prepare();
              cudaError_t status = cudaSuccess;
              best = std::min(best, best_ms(1, [&] {
                                run(p);
                                status = cudaDeviceSynchronize();
                              }));
              if (status != cudaSuccess) {
                std::printf("%-7s %9d %4d   (%s failed on the device: %s)\n", name.c_str(), p.m, n,
                            who, cudaGetErrorString(status));
                return -1.0;
              }
            }
            return best;
          };
          // Ours first, its first run warming the device pools.
          const double ours = time(row.ours, 1, "ours") < 0 ? -1 : time(row.ours, o.repeat, "ours");
          if ((failed = ours < 0)) break;
          const std::vector<double> mine = row.output(p);
          double anchor = 0;
          std::vector<double> theirs;
          if (row.anchor && !anchor_fails(name, p)) {
            anchor = time(row.anchor, o.repeat, "cuSOLVER");
            if ((failed = anchor < 0)) break;
            theirs = row.output(p);
          }
          if (anchor > 0) {
            std::printf("%-7s %9d %4d %10.3f %-17s %10.3f %7.2fx %9.1e\n", name.c_str(), p.m, n,
                        ours, row.anchor_name, anchor, anchor / ours,
                        relative_difference(mine, theirs, row.magnitudes));
          } else {
            std::printf("%-7s %9d %4d %10.3f %-17s %10s %8s %9s\n", name.c_str(), p.m, n, ours,
                        row.anchor ? "(gesvd fails)" : row.anchor_name, "-", "-", "-");
          }
          std::fflush(stdout);
        }
      }
      for (void* x :
           {(void*)p.pristine, (void*)p.a, (void*)p.c0, (void*)p.c, (void*)p.u, (void*)p.b0,
            (void*)p.b, (void*)p.tau, (void*)p.s, (void*)p.vt, (void*)p.info, (void*)p.work}) {
        cudaFree(x);
      }
    }
  }
  cublasDestroy(blas);
}

int host_resident_routines(const QrRoutinesOptions& o, const std::string& fallback,
                           double max_seconds) {
  std::string shapes;
  for (const std::string& r : o.routines) {
    for (int lg : o.m_log2) {
      for (int n : o.n) {
        const std::string m = std::to_string(1L << lg), w = std::to_string(n);
        std::string shape = r + ":" + m + ":" + w;
        if (r == "dormqr") shape = r + ":" + m + ":" + w + ":" + w;  // Q^T C, C of n columns
        if (r == "dgels" || r == "dgelsd") shape += ":1";
        shapes += (shapes.empty() ? "" : ",") + shape;
      }
    }
  }
  std::printf(
      "\neach routine, host-resident (pageable), as a program calls it: "
      "switchyard bench routing on the grid\n");
  std::fflush(stdout);
  const std::string repeat = std::to_string(o.repeat), seconds = std::to_string(max_seconds);
  std::vector<std::string> args = {"--fallback",     fallback, "--shapes",      shapes,
                                   "--repeat",       repeat,   "--warm-up",     "1",
                                   "--cold-samples", "1",      "--max-seconds", seconds,
                                   "--small-calls",  "0"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return routing_main(int(argv.size()), argv.data());
}

}  // namespace switchyard::bench
