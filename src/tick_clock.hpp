// The clock every call is timed by, for the report and the trace. A reading must cost a few
// nanoseconds, since a program may make millions of calls of a few tens of nanoseconds each:
// on x86-64 it is the time-stamp counter (invariant on every x86-64 processor Linux runs
// CUDA on), which ticks() reads in about 9 ns where steady_clock takes about 20 (a 2-core
// Xeon VM); elsewhere it is steady_clock in nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace switchyard::tick_clock {

inline std::uint64_t ticks() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count());
#endif
}

// Seconds of `count` ticks. On x86-64 the counter's rate is found against steady_clock over the
// process's life so far (from the library's load), so a conversion costs a steady_clock reading:
// the report converts its sums once, not each call.
double seconds(std::uint64_t count);

}  // namespace switchyard::tick_clock
