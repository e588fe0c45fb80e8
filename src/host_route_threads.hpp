#pragma once

// The threads a call on the host's cores runs on: the fallback's count (fallback_threads()),
// shared among the calls of the host's routes that run at once. A program that calls from
// several threads at once would otherwise run each call on every core, and the CPU TSQR on more
// threads cuts A into shorter leaves, with more work above them: on the H200 host's 16 cores a
// 4096 x 128 dgeqrf took 21.5 ms on 16 threads, where reference LAPACK takes 43-56 ms on one.
// With OPENBLAS_NUM_THREADS=16 on the 2-core development machine, 8 threads each calling it 8
// times took 2153 ms unshared, 845 shared, 1331 in reference LAPACK alone (docs/tsqr.md).

#include <algorithm>
#include <atomic>

#include "calibration.hpp"

namespace switchyard {

inline std::atomic<int> host_route_calls_running{0};

// Held for the whole of one call on the host's cores.
class HostRouteThreads {
 public:
  HostRouteThreads() : running_(host_route_calls_running.fetch_add(1) + 1) {}
  ~HostRouteThreads() { host_route_calls_running.fetch_sub(1); }
  HostRouteThreads(const HostRouteThreads&) = delete;
  HostRouteThreads& operator=(const HostRouteThreads&) = delete;

  // The fallback's threads over the calls running when this one began, this one included, but
  // at least two where it has two: on one thread the CPU TSQR of a short matrix is one leaf,
  // which it hands to the fallback's xGEQRF whole.
  int count() const {
    const int threads = fallback_threads();
    return std::max(std::min(2, threads), threads / running_);
  }

 private:
  int running_;
};

}  // namespace switchyard
