// A in managed memory, as a program that spreads a matrix over its GPUs holds it. The same
// matrix is factored twice through libswitchyard's xGEQRF, each time from a fresh copy, and its
// Q formed in place by xORGQR:
//  - "one": every page prefetched to device 0, where the gpu route factors it in place;
//  - "split": the rows of each device's share (as the split cuts them) prefetched to it, column
//    by column, so that each device factors its rows where they lie.
// Times are the best of R calls after two to start the devices; "check" is the largest relative
// difference of |R(j,j)| between the two, and for xORGQR the larger of the two residuals
// max |R(0,0) Q(:,0) - A(:,0)| / max |A(:,0)|.
#include "managed_split_bench.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

#include "bench_util.hpp"
#include "child_process.hpp"
#include "device_fill.hpp"
#include "qr/gpu/split_devices.hpp"
#include "qr/gpu/tsqr_tree.hpp"

extern "C" {
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void sorgqr_(const int*, const int*, const int*, float*, const int*, const float*, float*,
             const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
}

namespace switchyard::bench {
namespace {

void geqrf(int m, int n, float* a, float* tau, float* work, int* info) {
  sgeqrf_(&m, &n, a, &m, tau, work, &n, info);
}
void geqrf(int m, int n, double* a, double* tau, double* work, int* info) {
  dgeqrf_(&m, &n, a, &m, tau, work, &n, info);
}
void orgqr(int m, int n, float* a, const float* tau, float* work, int* info) {
  sorgqr_(&m, &n, &n, a, &m, tau, work, &n, info);
}
void orgqr(int m, int n, double* a, const double* tau, double* work, int* info) {
  dorgqr_(&m, &n, &n, a, &m, tau, work, &n, info);
}

// The largest relative difference between the magnitudes of two lists.
double largest_difference(const std::vector<double>& x, const std::vector<double>& reference) {
  double largest = 0;
  for (std::size_t j = 0; j < x.size(); ++j) {
    const double scale = std::max(std::fabs(reference[j]), 1e-300);
    largest = std::max(largest, std::fabs(std::fabs(x[j]) - std::fabs(reference[j])) / scale);
  }
  return largest;
}

// `count` elements of device or managed memory, `stride` apart, read by a copy: the host
// touching managed memory would move its pages to the host, and the next call would fetch them
// back.
template <class T>
std::vector<double> copied_to_host(const T* a, std::size_t stride, int count) {
  std::vector<T> got(static_cast<std::size_t>(count));
  cudaMemcpy2D(got.data(), sizeof(T), a, sizeof(T) * stride, sizeof(T), std::size_t(count),
               cudaMemcpyDefault);
  return std::vector<double>(got.begin(), got.end());
}

// Rows [first, first + rows) of each of n columns (leading dimension m) to `device`.
template <class T>
void prefetch_rows(T* a, long long m, int n, long long first, long long rows, int device) {
  const cudaMemLocation where{cudaMemLocationTypeDevice, device};
  for (int j = 0; j < n; ++j) {
    cudaMemPrefetchAsync(a + first + m * j, sizeof(T) * std::size_t(rows), where, 0, nullptr);
  }
}

std::vector<int> listed_devices() {
  std::vector<int> devices;
  const char* listed = std::getenv("SWITCHYARD_DEVICES");
  int count = 0;
  cudaGetDeviceCount(&count);
  if (!listed || std::string(listed) == "all") {
    for (int d = 0; d < count; ++d) devices.push_back(d);
    return devices;
  }
  for (int d : parse_list(listed)) devices.push_back(d);
  return devices;
}

template <class T>
void table(int m_lo, int m_hi, const std::vector<int>& widths, int repeat) {
  const std::vector<int> devices = listed_devices();
  std::string named;
  for (int d : devices) named += (named.empty() ? "" : ",") + std::to_string(d);
  const char p = sizeof(T) == 4 ? 's' : 'd';
  std::printf(
      "\n%cgeqrf, device-resident (managed memory), split over devices %s vs one device "
      "(best of %d calls)\n",
      p, named.c_str(), repeat);
  std::printf("%9s %4s %10s %10s %8s %8s | %-8s %10s %10s %8s %8s\n", "m", "n", "split ms",
              "one ms", "speed-up", "check", "orgqr", "split ms", "one ms", "speed-up", "check");
  for (int lg = m_lo; lg <= m_hi; ++lg) {
    for (int n : widths) {
      const int m = 1 << lg;
      const std::size_t count = std::size_t(m) * n;
      T* pristine = device_alloc<T>(count);
      T* a = nullptr;
      if (!pristine ||
          cudaMallocManaged(reinterpret_cast<void**>(&a), sizeof(T) * count) != cudaSuccess) {
        std::printf("%9d %4d   (no device memory)\n", m, n);
        cudaFree(pristine);
        continue;
      }
      fill_uniform_on_device(pristine, count, unsigned(lg * 1000 + n));
      std::vector<T> tau(static_cast<std::size_t>(n)), work(static_cast<std::size_t>(n));
      const long long rows = qr::gpu::share_rows(m, devices.size(), qr::gpu::kTsqrBlockRows);
      // The best of `repeat` timed calls of xGEQRF and then xORGQR after `warm` untimed ones,
      // each on a fresh copy laid out by `lay`; R(j,j) of the last and its Q's residual.
      struct Timed {
        double geqrf = 1e300, orgqr = 1e300;
        std::vector<double> r;
        double q_residual = 0;
      };
      const std::vector<double> first_column = copied_to_host(pristine, 1, m);
      double first_column_max = 0;
      for (double x : first_column) first_column_max = std::max(first_column_max, std::fabs(x));
      const auto timed = [&](auto&& lay, int warm) {
        Timed t;
        for (int i = 0; i < warm + repeat; ++i) {
          cudaMemcpy(a, pristine, sizeof(T) * count, cudaMemcpyDefault);
          lay();
          cudaDeviceSynchronize();
          int info = 0;
          const double ms = best_ms(1, [&] { geqrf(m, n, a, tau.data(), work.data(), &info); });
          if (i + 1 == warm + repeat) t.r = copied_to_host(a, std::size_t(m) + 1, n);
          const double q_ms = best_ms(1, [&] { orgqr(m, n, a, tau.data(), work.data(), &info); });
          if (info != 0) std::printf("info = %d\n", info);
          if (i >= warm) {
            t.geqrf = std::min(t.geqrf, ms);
            t.orgqr = std::min(t.orgqr, q_ms);
          }
          // The devices beyond the first start in the background at the first call.
          if (i + 1 == warm) std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        // A's first column from Q's: R(0,0) Q(:,0).
        const std::vector<double> q = copied_to_host(a, 1, m);
        for (int row = 0; row < m; ++row) {
          const std::size_t i = std::size_t(row);
          t.q_residual = std::max(t.q_residual, std::fabs(t.r[0] * q[i] - first_column[i]));
        }
        t.q_residual /= first_column_max;
        return t;
      };
      const Timed split = timed(
          [&] {
            for (std::size_t d = 0; d < devices.size(); ++d) {
              const long long first = rows * (long long)d;
              prefetch_rows(a, m, n, first, std::min<long long>(rows, m - first), devices[d]);
            }
          },
          2);
      const Timed one = timed([&] { prefetch_rows(a, m, n, 0, m, devices.front()); }, 1);
      std::printf("%9d %4d %10.2f %10.2f %7.2fx %8.1e | %-8s %10.2f %10.2f %7.2fx %8.1e\n", m, n,
                  split.geqrf, one.geqrf, one.geqrf / split.geqrf,
                  largest_difference(split.r, one.r), "", split.orgqr, one.orgqr,
                  one.orgqr / split.orgqr, std::max(split.q_residual, one.q_residual));
      std::fflush(stdout);
      cudaFree(a);
      cudaFree(pristine);
    }
  }
}

}  // namespace

void managed_split_in_child(const std::string& devices, char precision, int m_lo, int m_hi,
                            const std::vector<int>& n, int repeat) {
  std::string widths;
  for (int w : n) widths += (widths.empty() ? "" : ",") + std::to_string(w);
  const ChildOutput child = output_of(
      "SWITCHYARD_DEVICES=" + quoted(devices) + " " + quoted(sibling("switchyard-bench")) +
      " tsqr --managed-split --precision " + precision + " --m-log2 " + std::to_string(m_lo) + ":" +
      std::to_string(m_hi) + " --n " + widths + " --repeat " + std::to_string(repeat) + " 2>&1");
  std::fputs(child.text.c_str(), stdout);
  if (child.status != 0)
    std::printf("(the managed-memory child failed: status %d)\n", child.status);
  std::fflush(stdout);
}

int managed_split(char precision, int m_lo, int m_hi, const std::vector<int>& n, int repeat) {
  if (precision == 's')
    table<float>(m_lo, m_hi, n, repeat);
  else
    table<double>(m_lo, m_hi, n, repeat);
  return 0;
}

}  // namespace switchyard::bench
