// switchyard bench qr [--m-log2 LIST] [--n LIST] [--host-m-log2 LIST] [--fallback LIBRARY]
//                     [--repeat R] [--skip-device] [--skip-host]
//                     [--routines LIST|all] [--max-seconds S]
//
// With --routines, the table of each QR routine through its entry point instead, on
// --m-log2 x --n device-resident against cuSOLVER and --host-m-log2 x --n host-resident against
// the fallback (qr_routines_bench.cpp); --max-seconds caps a fallback call there (60).
// Otherwise:
//
// Device-resident: dgeqrf then dorgqr through libswitchyard on device memory (both gpu routes
// work in place) against cusolverDnDgeqrf then cusolverDnDorgqr; "check" is the largest
// difference between the two thin Q factors over their first rows.
// Host-resident (pageable), end to end:
// - economic QR, dgeqrf then dorgqr, through libswitchyard against the fallback's own pair;
// - dgels (one right-hand side) from the fallback library, whose calls to dgeqrf and dormqr
//   reach libswitchyard, against the same dgels in a child process with SWITCHYARD_DISABLE=1.
//   The child with Switchyard first solves a 65536-row system, so that the time is that of a
//   program whose GPU has started; "residuals" is the relative difference of the two residual
//   sums of squares.
// The PCIe floor is the data the calls must move at the pinned host-to-device bandwidth
// measured here: A in and V out, then V in and Q out, for economic QR; A in and V out, then V
// and b in and b out, for dgels.
#include "qr_bench.hpp"

#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bandwidth.hpp"
#include "bench_util.hpp"
#include "device_fill.hpp"
#include "qr_routines_bench.hpp"

extern "C" {
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
}

namespace switchyard::bench {
namespace {

using Geqrf = void(const int*, const int*, double*, const int*, double*, double*, const int*,
                   int*);
using Orgqr = void(const int*, const int*, const int*, double*, const int*, const double*,
                   double*, const int*, int*);
using Gels = void(const char*, const int*, const int*, const int*, double*, const int*, double*,
                  const int*, double*, const int*, int*, std::size_t);

struct Options {
  std::vector<int> m_log2 = {20, 22, 23};
  std::vector<int> n = {16, 64};
  std::vector<int> host_m_log2 = {20, 22};
  std::string fallback;
  int repeat = 3;
  bool device = true, host = true;
  std::vector<std::string> routines;  // empty: the economic QR and dgels tables
  double max_seconds = 60;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--skip-device") {
      o.device = false;
    } else if (arg == "--skip-host") {
      o.host = false;
    } else if (!value) {
      return false;
    } else if (arg == "--m-log2") {
      o.m_log2 = parse_list(value), ++i;
    } else if (arg == "--n") {
      o.n = parse_list(value), ++i;
    } else if (arg == "--host-m-log2") {
      o.host_m_log2 = parse_list(value), ++i;
    } else if (arg == "--fallback") {
      o.fallback = value, ++i;
    } else if (arg == "--repeat") {
      o.repeat = std::max(1, std::atoi(value)), ++i;
    } else if (arg == "--max-seconds") {
      o.max_seconds = std::atof(value), ++i;
    } else if (arg == "--routines") {
      o.routines.clear();
      std::stringstream in(value);
      for (std::string r; std::getline(in, r, ',');) {
        if (r == "all") {
          o.routines = qr_routines();
        } else if (std::find(qr_routines().begin(), qr_routines().end(), r) !=
                   qr_routines().end()) {
          o.routines.push_back(r);
        } else {
          return false;
        }
      }
      ++i;
    } else {
      return false;
    }
  }
  return true;
}

// Largest |x - y| over the first `rows` rows of two m x n matrices in device memory.
double device_difference(const double* x, const double* y, int m, int n, int rows) {
  rows = std::min(rows, m);
  std::vector<double> hx(std::size_t(rows) * n), hy(hx.size());
  cudaMemcpy2D(hx.data(), sizeof(double) * rows, x, sizeof(double) * m, sizeof(double) * rows, n,
               cudaMemcpyDeviceToHost);
  cudaMemcpy2D(hy.data(), sizeof(double) * rows, y, sizeof(double) * m, sizeof(double) * rows, n,
               cudaMemcpyDeviceToHost);
  double worst = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) worst = std::max(worst, std::fabs(hx[i] - hy[i]));
  return worst;
}

void device_resident(const Options& o, cusolverDnHandle_t solver) {
  std::printf("\ndgeqrf + dorgqr, device-resident: Switchyard (gpu routes) vs cuSOLVER\n");
  std::printf("%9s %4s %9s %9s %9s %9s %9s %9s %8s %8s\n", "m", "n", "geqrf", "orgqr", "ours",
              "cs geqrf", "cs orgqr", "cusolver", "ratio", "check");
  for (int lg : o.m_log2) {
    for (int n : o.n) {
      const int m = 1 << lg;
      const std::size_t count = std::size_t(m) * n;
      double* pristine = device_alloc<double>(count);
      double* a = device_alloc<double>(count);
      double* q = device_alloc<double>(count);
      double* tau = device_alloc<double>(n);
      int* info = device_alloc<int>(1);
      int lwork_geqrf = 0, lwork_orgqr = 0;
      if (pristine && a) {
        cusolverDnDgeqrf_bufferSize(solver, m, n, a, m, &lwork_geqrf);
        cusolverDnDorgqr_bufferSize(solver, m, n, n, a, m, tau, &lwork_orgqr);
      }
      double* work = device_alloc<double>(std::size_t(std::max({1, lwork_geqrf, lwork_orgqr})));
      if (!pristine || !a || !q || !tau || !info || !work) {
        std::printf("%9d %4d   (no device memory)\n", m, n);
      } else {
        fill_uniform_on_device(pristine, count, unsigned(lg * 1000 + n));
        const auto fresh = [&] {
          cudaMemcpy(a, pristine, sizeof(double) * count, cudaMemcpyDeviceToDevice);
          cudaDeviceSynchronize();
        };
        double cs_geqrf = 1e300, cs_orgqr = 1e300;
        for (int r = 0; r < o.repeat; ++r) {
          fresh();
          cs_geqrf = std::min(cs_geqrf, best_ms(1, [&] {
            cusolverDnDgeqrf(solver, m, n, a, m, tau, work, lwork_geqrf, info);
            cudaDeviceSynchronize();
          }));
          cs_orgqr = std::min(cs_orgqr, best_ms(1, [&] {
            cusolverDnDorgqr(solver, m, n, n, a, m, tau, work, lwork_orgqr, info);
            cudaDeviceSynchronize();
          }));
        }
        cudaMemcpy(q, a, sizeof(double) * count, cudaMemcpyDeviceToDevice);

        std::vector<double> host_work(static_cast<std::size_t>(n));
        const int host_lwork = n;
        int host_info = 0;
        double geqrf = 1e300, orgqr = 1e300;
        for (int r = 0; r < o.repeat + 1; ++r) {  // the first run also warms the pools
          fresh();
          const double t1 = best_ms(1, [&] {
            dgeqrf_(&m, &n, a, &m, tau, host_work.data(), &host_lwork, &host_info);
          });
          const double t2 = best_ms(1, [&] {
            dorgqr_(&m, &n, &n, a, &m, tau, host_work.data(), &host_lwork, &host_info);
          });
          if (host_info != 0) std::printf("info = %d\n", host_info);
          if (r > 0) geqrf = std::min(geqrf, t1), orgqr = std::min(orgqr, t2);
        }
        const double ours = geqrf + orgqr, theirs = cs_geqrf + cs_orgqr;
        std::printf("%9d %4d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7.2fx %8.1e\n", m, n, geqrf,
                    orgqr, ours, cs_geqrf, cs_orgqr, theirs, theirs / ours,
                    device_difference(a, q, m, n, 4096));
        std::fflush(stdout);
      }
      for (void* p : {(void*)pristine, (void*)a, (void*)q, (void*)tau, (void*)info, (void*)work})
        cudaFree(p);
    }
  }
}

// Economic QR from pageable memory: Switchyard's dgeqrf and dorgqr against the fallback's.
void host_economic_qr(const Options& o, double h2d, Geqrf* fb_geqrf, Orgqr* fb_orgqr) {
  std::printf("\neconomic QR (dgeqrf + dorgqr), host-resident (pageable): Switchyard vs %s\n",
              o.fallback.c_str());
  std::printf("%9s %4s %9s %9s %9s %10s %8s %9s %8s %8s\n", "m", "n", "geqrf", "orgqr", "ours",
              "fallback", "ratio", "floor ms", "%floor", "check");
  for (int lg : o.host_m_log2) {
    for (int n : o.n) {
      const int m = 1 << lg;
      const std::size_t count = std::size_t(m) * n;
      std::vector<double> pristine(count), a(count), q(count), tau(static_cast<std::size_t>(n));
      parallel_fill(pristine.data(), count, unsigned(lg * 1000 + n));
      const auto run = [&](Geqrf* geqrf, Orgqr* orgqr, double& t_geqrf, double& t_orgqr) {
        int lwork = -1, info = 0;
        double query = 0;
        geqrf(&m, &n, a.data(), &m, tau.data(), &query, &lwork, &info);
        lwork = std::max(n, int(query)) * 2;
        std::vector<double> work(static_cast<std::size_t>(lwork));
        std::copy(pristine.begin(), pristine.end(), a.begin());
        t_geqrf = best_ms(1, [&] {
          geqrf(&m, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info);
        });
        t_orgqr = best_ms(1, [&] {
          orgqr(&m, &n, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info);
        });
        if (info != 0) std::printf("info = %d\n", info);
      };
      double geqrf = 1e300, orgqr = 1e300;
      for (int r = 0; r < o.repeat + 1; ++r) {
        double t1, t2;
        run(dgeqrf_, dorgqr_, t1, t2);
        if (r > 0) geqrf = std::min(geqrf, t1), orgqr = std::min(orgqr, t2);
      }
      q = a;
      double fb1, fb2;
      run(fb_geqrf, fb_orgqr, fb1, fb2);  // once: it takes seconds at the larger shapes
      double worst = 0;
      for (std::size_t i = 0; i < count; ++i) worst = std::max(worst, std::fabs(q[i] - a[i]));
      const double ours = geqrf + orgqr, floor_ms = 4.0 * sizeof(double) * count / h2d / 1e6;
      std::printf("%9d %4d %9.1f %9.1f %9.1f %10.1f %7.1fx %9.1f %7.0f%% %8.1e\n", m, n, geqrf,
                  orgqr, ours, fb1 + fb2, (fb1 + fb2) / ours, floor_ms, 100 * floor_ms / ours,
                  worst);
      std::fflush(stdout);
    }
  }
}

// One dgels of an m x n system with one right-hand side, from the fallback library, after a
// 65536-row one when `warm`; prints its time in milliseconds, the residual sum of squares
// b(n + 1 : m)^T b(n + 1 : m), and INFO.
int dgels_once(int m, int n, const std::string& library, bool warm) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  Gels* gels = handle ? reinterpret_cast<Gels*>(dlsym(handle, "dgels_")) : nullptr;
  if (!gels) {
    std::fprintf(stderr, "no dgels_ in %s\n", library.c_str());
    return 1;
  }
  double t = 0, residual = 0;
  int info = 0;
  for (int rows : warm ? std::vector<int>{65536, m} : std::vector<int>{m}) {
    const std::size_t count = std::size_t(rows) * n;
    std::vector<double> a(count), b(static_cast<std::size_t>(rows));
    parallel_fill(a.data(), count, 7);
    parallel_fill(b.data(), b.size(), 8);
    const int one = 1;
    int lwork = -1;
    double query = 0;
    gels("N", &rows, &n, &one, a.data(), &rows, b.data(), &rows, &query, &lwork, &info, 1);
    lwork = std::max(1, int(query));
    std::vector<double> work(static_cast<std::size_t>(lwork));
    t = best_ms(1, [&] {
      gels("N", &rows, &n, &one, a.data(), &rows, b.data(), &rows, work.data(), &lwork, &info, 1);
    });
    residual = 0;
    for (int i = n; i < rows; ++i) residual += b[i] * b[i];
  }
  std::printf("%.3f %.17g %d\n", t, residual, info);
  return 0;
}

struct GelsRun {
  double ms = -1, residual = 0;
};

// dgels_once in a child process of this program, with `environment` prepended.
GelsRun dgels_in_child(int m, int n, const std::string& library, const char* environment,
                       bool warm) {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return {};
  self[length] = 0;
  const std::string command = std::string(environment) + " '" + self + "' qr --dgels-once " +
                              std::to_string(m) + " " + std::to_string(n) + " '" + library + "'" +
                              (warm ? " warm" : "");
  FILE* child = popen(command.c_str(), "r");
  GelsRun run;
  int info = -1;
  if (child) {
    if (std::fscanf(child, "%lf %lf %d", &run.ms, &run.residual, &info) != 3 || info != 0) {
      run.ms = -1;
    }
    pclose(child);
  }
  return run;
}

void host_least_squares(const Options& o, double h2d) {
  std::printf("\ndgels (one right-hand side), host-resident (pageable): %s's dgels with "
              "Switchyard preloaded vs without\n", o.fallback.c_str());
  std::printf("%9s %4s %9s %10s %8s %9s %8s %10s\n", "m", "n", "ours", "fallback", "ratio",
              "floor ms", "%floor", "residuals");
  for (int lg : o.host_m_log2) {
    for (int n : o.n) {
      const int m = 1 << lg;
      // The report (on stderr) shows which routes dgels's calls took.
      const GelsRun ours = dgels_in_child(m, n, o.fallback, "SWITCHYARD_REPORT=1", true);
      const GelsRun theirs = dgels_in_child(m, n, o.fallback, "SWITCHYARD_DISABLE=1", false);
      if (ours.ms < 0 || theirs.ms < 0) {
        std::printf("%9d %4d   (dgels failed)\n", m, n);
        continue;
      }
      const double floor_ms =
          (2.0 * m * n + (double(m) * n + 2.0 * m)) * sizeof(double) / h2d / 1e6;
      std::printf("%9d %4d %9.1f %10.1f %7.1fx %9.1f %7.0f%% %10.2e\n", m, n, ours.ms, theirs.ms,
                  theirs.ms / ours.ms, floor_ms, 100 * floor_ms / ours.ms,
                  std::fabs(ours.residual - theirs.residual) / theirs.residual);
      std::fflush(stdout);
    }
  }
}

}  // namespace

int qr_main(int argc, char** argv) {
  if ((argc == 4 || argc == 5) && std::strcmp(argv[0], "--dgels-once") == 0) {
    return dgels_once(std::atoi(argv[1]), std::atoi(argv[2]), argv[3], argc == 5);
  }
  Options o;
  if (const char* f = std::getenv("SWITCHYARD_FALLBACK")) o.fallback = f;
  if (o.fallback.empty()) o.fallback = "liblapack.so.3";
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: switchyard bench qr [--m-log2 LIST] [--n LIST] [--host-m-log2 LIST]\n"
                 "         [--fallback LIBRARY] [--repeat R] [--skip-device] [--skip-host]\n"
                 "         [--routines dgeqrf,dorgqr,dormqr,dgels,dgelsd,dgeqp3,dgesvd,dgesdd|all]"
                 "\n         [--max-seconds S]\n");
    return 2;
  }
  // Every call Switchyard does not take, here and in the dgels children, goes to the fallback.
  setenv("SWITCHYARD_FALLBACK", o.fallback.c_str(), 1);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "switchyard bench qr: no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const double h2d = pinned_to_device_bandwidth();
  std::printf("device: %s; measured: pinned host to device %.1f GB/s\n", prop.name, h2d);
  if (o.device) {
    cusolverDnHandle_t solver = nullptr;
    if (cusolverDnCreate(&solver) != CUSOLVER_STATUS_SUCCESS) {
      std::fprintf(stderr, "switchyard bench qr: cuSOLVER does not start\n");
      return 1;
    }
    if (o.routines.empty()) {
      device_resident(o, solver);
    } else {
      device_resident_routines({o.routines, o.m_log2, o.n, o.repeat}, solver);
    }
    cusolverDnDestroy(solver);
  }
  if (o.host && !o.routines.empty()) {
    return host_resident_routines({o.routines, o.host_m_log2, o.n, o.repeat}, o.fallback,
                                  o.max_seconds);
  }
  if (o.host) {
    void* handle = dlopen(o.fallback.c_str(), RTLD_NOW | RTLD_LOCAL);
    Geqrf* geqrf = handle ? reinterpret_cast<Geqrf*>(dlsym(handle, "dgeqrf_")) : nullptr;
    Orgqr* orgqr = handle ? reinterpret_cast<Orgqr*>(dlsym(handle, "dorgqr_")) : nullptr;
    if (!geqrf || !orgqr) {
      std::fprintf(stderr, "switchyard bench qr: %s has no dgeqrf_/dorgqr_\n", o.fallback.c_str());
      return 1;
    }
    host_economic_qr(o, h2d, geqrf, orgqr);
    host_least_squares(o, h2d);
  }
  return 0;
}

}  // namespace switchyard::bench
