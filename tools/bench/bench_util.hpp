// Small pieces the benchmarks share: device allocation that reports failure, best-of-R
// timing, a fast parallel fill of host arrays, and comma-separated option lists.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

namespace switchyard::bench {

// count elements of device memory, or null (with the error cleared) when there is none.
template <class T>
T* device_alloc(std::size_t count) {
  void* p = nullptr;
  if (cudaMalloc(&p, sizeof(T) * std::max<std::size_t>(1, count)) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return static_cast<T*>(p);
}

// The shortest of `repeat` runs of `run`, in milliseconds.
template <class F>
double best_ms(int repeat, F&& run) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const auto stop = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return best;
}

// Uniform values in [-1, 1), the same for the same seed and thread count.
inline void parallel_fill(double* x, std::size_t count, unsigned seed) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      std::uint64_t state = (std::uint64_t(seed) << 32) + t * 0x9e3779b97f4a7c15ull + 1;
      for (std::size_t i = count * t / threads; i < count * (t + 1) / threads; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = double(state >> 11) * 0x1.0p-52 - 1.0;
      }
    });
  }
  for (std::thread& th : pool) th.join();
}

// "8,16,64" -> {8, 16, 64}; parsing stops at the first item that is not a number.
inline std::vector<int> parse_list(const char* text) {
  std::vector<int> values;
  for (const char* p = text; *p;) {
    char* end = nullptr;
    const long value = std::strtol(p, &end, 10);
    if (end == p) break;
    values.push_back(int(value));
    p = *end == ',' ? end + 1 : end;
  }
  return values;
}

}  // namespace switchyard::bench
