// switchyard bench tsqr [--precision d|s|ds] [--m-log2 LO:HI] [--n LIST] [--host-m-log2 LIST]
//                       [--host-n LIST] [--fallback LIBRARY|none] [--repeat R] [--skip-device]
//                       [--skip-host] [--devices all|LIST]
//
// Device-resident: A in device memory, xGEQRF through libswitchyard (the gpu route factors it
// in place) against cusolverDnXgeqrf on the same matrix; the memory floor is A read and
// written once at the device-to-device copy bandwidth measured here.
// Host-resident: A in pageable host memory, xGEQRF through libswitchyard against the fallback
// library's own xGEQRF (OpenBLAS on the GPU machine); the PCIe floor is A sent and returned
// once at the pinned host-to-device bandwidth measured here.
// With --devices, host-resident xGEQRF split over those CUDA devices (SWITCHYARD_DEVICES) against
// one device: each side a program calling dgeqrf through preloaded Switchyard
// (switchyard-bench-call), the gpu route forced, with "check" each one's checksum of |R(j,j)|;
// and device-resident, A in managed memory laid out over the devices against on one
// (managed_split_bench.hpp).
// Each time is the best of R runs on a fresh copy of the same matrix; "check" is the largest
// relative difference of |R(j,j)| between the two factorizations.
#include "tsqr_bench.hpp"

#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bandwidth.hpp"
#include "bench_util.hpp"
#include "child_process.hpp"
#include "device_fill.hpp"
#include "managed_split_bench.hpp"
#include "qr/gpu/blocked_qr.hpp"

extern "C" {
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
}

namespace switchyard::bench {
namespace {

template <class T>
using Geqrf = void(const int*, const int*, T*, const int*, T*, T*, const int*, int*);

struct Options {
  std::string precisions = "ds";
  int m_lo = 16, m_hi = 23;
  std::vector<int> n = {8, 16, 32, 64, 128, 256};
  std::vector<int> host_m_log2 = {20, 22, 23};
  std::vector<int> host_n = {16, 64};
  std::string fallback;
  std::string devices;  // --devices: "" for one device only
  int repeat = 3;
  bool device = true, host = true;
  bool managed_split = false;  // --managed-split: only the managed-memory table (its child)
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--skip-device") {
      o.device = false;
    } else if (arg == "--skip-host") {
      o.host = false;
    } else if (arg == "--managed-split") {
      o.managed_split = true;
    } else if (!value) {
      return false;
    } else if (arg == "--precision") {
      o.precisions = value, ++i;
    } else if (arg == "--m-log2") {
      if (std::sscanf(value, "%d:%d", &o.m_lo, &o.m_hi) != 2) return false;
      ++i;
    } else if (arg == "--n") {
      o.n = parse_list(value), ++i;
    } else if (arg == "--host-m-log2") {
      o.host_m_log2 = parse_list(value), ++i;
    } else if (arg == "--host-n") {
      o.host_n = parse_list(value), ++i;
    } else if (arg == "--fallback") {
      o.fallback = value, ++i;
    } else if (arg == "--repeat") {
      o.repeat = std::max(1, std::atoi(value)), ++i;
    } else if (arg == "--devices") {
      o.devices = value, ++i;
    } else {
      return false;
    }
  }
  return true;
}

double geqrf_flops(double m, double n) { return 2 * m * n * n - 2 * n * n * n / 3; }

struct Bandwidths {
  double device_copy;  // GB/s, read + write counted
  double pinned_h2d;   // GB/s
};

Bandwidths measure_bandwidths() {
  return {device_copy_bandwidth(), pinned_to_device_bandwidth()};
}

// |R(j,j)| of a factored matrix in device or host memory.
template <class T>
std::vector<double> r_diagonal(const T* a, long long lda, int n, bool on_device) {
  std::vector<T> d(static_cast<std::size_t>(n));
  if (on_device) {
    cudaMemcpy2D(d.data(), sizeof(T), a, sizeof(T) * (lda + 1), sizeof(T), n,
                 cudaMemcpyDeviceToHost);
  } else {
    for (int j = 0; j < n; ++j) d[j] = a[j * (lda + 1)];
  }
  return std::vector<double>(d.begin(), d.end());
}

double largest_relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double worst = 0;
  for (std::size_t j = 0; j < x.size(); ++j) {
    const double scale = std::max(std::fabs(y[j]), 1e-300);
    worst = std::max(worst, std::fabs(std::fabs(x[j]) - std::fabs(y[j])) / scale);
  }
  return worst;
}

template <class T> Geqrf<T>* switchyard_geqrf();
template <> Geqrf<float>* switchyard_geqrf<float>() { return sgeqrf_; }
template <> Geqrf<double>* switchyard_geqrf<double>() { return dgeqrf_; }

template <class T>
cusolverStatus_t cusolver_geqrf_buffer(cusolverDnHandle_t h, int m, int n, T* a, int lda, int* lwork) {
  if constexpr (sizeof(T) == 4) {
    return cusolverDnSgeqrf_bufferSize(h, m, n, a, lda, lwork);
  } else {
    return cusolverDnDgeqrf_bufferSize(h, m, n, a, lda, lwork);
  }
}

template <class T>
cusolverStatus_t cusolver_geqrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* tau, T* work,
                                int lwork, int* info) {
  if constexpr (sizeof(T) == 4) {
    return cusolverDnSgeqrf(h, m, n, a, lda, tau, work, lwork, info);
  } else {
    return cusolverDnDgeqrf(h, m, n, a, lda, tau, work, lwork, info);
  }
}

template <class T>
void device_resident(const Options& o, const Bandwidths& bw, cusolverDnHandle_t solver) {
  const char p = sizeof(T) == 4 ? 's' : 'd';
  std::printf("\n%cgeqrf, device-resident: Switchyard (gpu route) vs cusolverDn%cgeqrf\n", p,
              p == 's' ? 'S' : 'D');
  std::printf("%9s %4s %10s %10s %8s %9s %8s %8s\n", "m", "n", "ours ms", "cusolver", "ratio",
              "GFLOP/s", "%floor", "check");
  for (int lg = o.m_lo; lg <= o.m_hi; ++lg) {
    for (int n : o.n) {
      const int m = 1 << lg;
      const std::size_t count = std::size_t(m) * n;
      T* pristine = device_alloc<T>(count);
      T* a = device_alloc<T>(count);
      T* tau = device_alloc<T>(n);
      int* info = device_alloc<int>(1);
      T* work = nullptr;
      if (!pristine || !a || !tau || !info) {
        std::printf("%9d %4d   (no device memory)\n", m, n);
        cudaFree(pristine);
        cudaFree(a);
        cudaFree(tau);
        cudaFree(info);
        continue;
      }
      fill_uniform_on_device(pristine, count, unsigned(lg * 1000 + n));
      const auto fresh = [&] {
        cudaMemcpy(a, pristine, sizeof(T) * count, cudaMemcpyDeviceToDevice);
        cudaDeviceSynchronize();
      };

      int lwork = 0;
      cusolver_geqrf_buffer<T>(solver, m, n, a, m, &lwork);
      work = device_alloc<T>(std::size_t(std::max(1, lwork)));
      double theirs = 1e300;
      for (int r = 0; r < o.repeat; ++r) {
        fresh();
        theirs = std::min(theirs, best_ms(1, [&] {
          cusolver_geqrf<T>(solver, m, n, a, m, tau, work, lwork, info);
          cudaDeviceSynchronize();
        }));
      }
      const std::vector<double> their_r = r_diagonal(a, m, n, true);

      double ours = -1;
      std::vector<double> our_r;
      if (n <= qr::gpu::kMaxColumns) {
        std::vector<T> host_work(static_cast<std::size_t>(n));  // LWORK >= N, as xGEQRF requires
        const int host_lwork = n;
        int host_info = 0;
        ours = 1e300;
        for (int r = 0; r < o.repeat + 1; ++r) {  // the first run also warms the pools
          fresh();
          const double t = best_ms(1, [&] {
            switchyard_geqrf<T>()(&m, &n, a, &m, tau, host_work.data(), &host_lwork, &host_info);
          });
          if (host_info != 0) std::printf("info = %d\n", host_info);
          if (r > 0) ours = std::min(ours, t);
        }
        our_r = r_diagonal(a, m, n, true);
      }
      const double floor_ms = 2.0 * sizeof(T) * count / bw.device_copy / 1e6;
      if (ours > 0) {
        std::printf("%9d %4d %10.3f %10.3f %7.2fx %9.0f %7.0f%% %8.1e\n", m, n, ours, theirs,
                    theirs / ours, geqrf_flops(m, n) / ours / 1e6, 100 * floor_ms / ours,
                    largest_relative_difference(our_r, their_r));
      } else {
        std::printf("%9d %4d %10s %10.3f %8s   (wider than the gpu route takes)\n", m, n,
                    "-", theirs, "-");
      }
      std::fflush(stdout);
      cudaFree(pristine);
      cudaFree(a);
      cudaFree(tau);
      cudaFree(work);
      cudaFree(info);
    }
  }
}

template <class T>
void host_resident(const Options& o, const Bandwidths& bw, Geqrf<T>* fallback_geqrf,
                   const std::string& fallback_name) {
  const char p = sizeof(T) == 4 ? 's' : 'd';
  std::printf("\n%cgeqrf, host-resident (pageable): Switchyard vs the fallback (%s)\n", p,
              fallback_name.c_str());
  std::printf("%9s %4s %10s %10s %8s %9s %8s %8s\n", "m", "n", "ours ms", "fallback", "ratio",
              "GFLOP/s", "%floor", "check");
  for (int lg : o.host_m_log2) {
    for (int n : o.host_n) {
      const int m = 1 << lg;
      const std::size_t count = std::size_t(m) * n;
      std::vector<double> source(count);
      parallel_fill(source.data(), count, unsigned(lg * 1000 + n));
      std::vector<T> pristine(source.begin(), source.end()), a(count), tau(static_cast<std::size_t>(n));
      std::vector<T> work(static_cast<std::size_t>(n));
      int info = 0;
      const auto fresh = [&] { std::copy(pristine.begin(), pristine.end(), a.begin()); };
      double ours = 1e300;
      for (int r = 0; r < o.repeat + 1; ++r) {
        fresh();
        const int lwork = n;
        const double t = best_ms(1, [&] {
          switchyard_geqrf<T>()(&m, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info);
        });
        if (info != 0) std::printf("info = %d\n", info);
        if (r > 0) ours = std::min(ours, t);
      }
      const std::vector<double> our_r = r_diagonal(a.data(), m, n, false);

      const double floor_ms = 2.0 * sizeof(T) * count / bw.pinned_h2d / 1e6;
      if (!fallback_geqrf) {
        std::printf("%9d %4d %10.3f %10s %8s %9.0f %7.0f%% %8s\n", m, n, ours, "-", "-",
                    geqrf_flops(m, n) / ours / 1e6, 100 * floor_ms / ours, "-");
        std::fflush(stdout);
        continue;
      }
      // The fallback runs once at the largest shapes: it takes seconds.
      int lwork = -1;
      T query{};
      fallback_geqrf(&m, &n, a.data(), &m, tau.data(), &query, &lwork, &info);
      lwork = std::max(1, int(query));
      work.resize(std::size_t(lwork));
      double theirs = 1e300;
      for (int r = 0; r < (lg >= 22 ? 1 : o.repeat); ++r) {
        fresh();
        theirs = std::min(theirs, best_ms(1, [&] {
          fallback_geqrf(&m, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info);
        }));
      }
      const std::vector<double> their_r = r_diagonal(a.data(), m, n, false);
      std::printf("%9d %4d %10.3f %10.1f %7.1fx %9.0f %7.0f%% %8.1e\n", m, n, ours, theirs,
                  theirs / ours, geqrf_flops(m, n) / ours / 1e6, 100 * floor_ms / ours,
                  largest_relative_difference(our_r, their_r));
      std::fflush(stdout);
    }
  }
}

// One program's dgeqrf/sgeqrf of m x n through preloaded Switchyard, forced to the gpu route, with
// `devices` as SWITCHYARD_DEVICES ("" for one device): its best warm ms and checksum, or a
// negative time when it failed.
std::pair<double, double> program_geqrf(char precision, int m, int n, const std::string& devices,
                                        int repeat) {
  std::string command = "env -u SWITCHYARD_DEVICES LD_PRELOAD=" + quoted(library_path()) +
                        " SWITCHYARD_ROUTE_" +
                        std::string(1, char(precision - 32)) + "GEQRF=gpu";
  if (!devices.empty()) command += " SWITCHYARD_DEVICES=" + quoted(devices);
  command += " " + quoted(sibling("switchyard-bench-call")) + " " + precision + "geqrf " +
             std::to_string(m) + " " + std::to_string(n) + " 0 " + std::to_string(repeat) +
             " 2>&1";
  const ChildOutput child = output_of(command);
  if (child.status != 0 || child.text.rfind("ms ") == std::string::npos) return {-1, 0};
  const CallTimes t = call_times(child.text);
  if (t.ms.size() < 2) return {-1, 0};
  return {*std::min_element(t.ms.begin() + 1, t.ms.end()), t.check};
}

template <class T>
void split_over_devices(const Options& o) {
  const char p = sizeof(T) == 4 ? 's' : 'd';
  std::printf("\n%cgeqrf, host-resident (pageable), split over devices %s vs one device "
              "(programs through preloaded Switchyard, best of %d warm calls)\n",
              p, o.devices.c_str(), o.repeat);
  std::printf("%9s %4s %10s %10s %8s %14s %14s\n", "m", "n", "split ms", "one ms", "speed-up",
              "split check", "one check");
  for (int lg : o.host_m_log2) {
    for (int n : o.host_n) {
      const int m = 1 << lg;
      const auto [split, split_check] = program_geqrf(p, m, n, o.devices, o.repeat);
      const auto [one, one_check] = program_geqrf(p, m, n, "", o.repeat);
      if (split < 0 || one < 0) {
        std::printf("%9d %4d   (a program failed)\n", m, n);
        continue;
      }
      std::printf("%9d %4d %10.2f %10.2f %7.2fx %14.8e %14.8e\n", m, n, split, one, one / split,
                  split_check, one_check);
      std::fflush(stdout);
    }
  }
}

template <class T>
Geqrf<T>* load_fallback(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return nullptr;
  return reinterpret_cast<Geqrf<T>*>(dlsym(handle, sizeof(T) == 4 ? "sgeqrf_" : "dgeqrf_"));
}

}  // namespace

int tsqr_main(int argc, char** argv) {
  Options o;
  if (const char* f = std::getenv("SWITCHYARD_FALLBACK")) o.fallback = f;
  if (o.fallback.empty()) o.fallback = "liblapack.so.3";
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: switchyard bench tsqr [--precision d|s|ds] [--m-log2 LO:HI] [--n LIST]\n"
                 "         [--host-m-log2 LIST] [--host-n LIST] [--fallback LIBRARY|none]\n"
                 "         [--repeat R] [--skip-device] [--skip-host] [--devices all|LIST]\n");
    return 2;
  }
  if (o.managed_split) return managed_split(o.precisions[0], o.m_lo, o.m_hi, o.n, o.repeat);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "switchyard bench tsqr: no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const Bandwidths bw = measure_bandwidths();
  std::printf("device: %s; measured: device copy %.0f GB/s (read + write), pinned host to device "
              "%.1f GB/s\n", prop.name, bw.device_copy, bw.pinned_h2d);
  cusolverDnHandle_t solver = nullptr;
  if (o.device && cusolverDnCreate(&solver) != CUSOLVER_STATUS_SUCCESS) {
    std::fprintf(stderr, "switchyard bench tsqr: cuSOLVER does not start\n");
    return 1;
  }
  for (char p : o.precisions) {
    if (p != 'd' && p != 's') continue;
    if (o.device) {
      if (p == 'd') device_resident<double>(o, bw, solver);
      else device_resident<float>(o, bw, solver);
      if (!o.devices.empty()) managed_split_in_child(o.devices, p, o.m_lo, o.m_hi, o.n, o.repeat);
    }
    if (o.host && !o.devices.empty()) {
      if (p == 'd') split_over_devices<double>(o);
      else split_over_devices<float>(o);
    } else if (o.host) {
      // "--fallback none" times Switchyard alone: the fallback can take minutes at n = 256.
      const bool timed = o.fallback != "none";
      Geqrf<double>* dgeqrf = p == 'd' && timed ? load_fallback<double>(o.fallback) : nullptr;
      Geqrf<float>* sgeqrf = p == 's' && timed ? load_fallback<float>(o.fallback) : nullptr;
      if (timed && !dgeqrf && !sgeqrf) {
        std::fprintf(stderr, "switchyard bench tsqr: %s has no %cgeqrf_\n", o.fallback.c_str(), p);
        return 1;
      }
      if (p == 'd') host_resident<double>(o, bw, dgeqrf, o.fallback);
      else host_resident<float>(o, bw, sgeqrf, o.fallback);
    }
  }
  if (solver) cusolverDnDestroy(solver);
  return 0;
}

}  // namespace switchyard::bench
