// The calls of this process, by routine and backend, for the report (SWITCHYARD_REPORT and
// switchyard_print_report). Each thread counts its own calls on counters no other thread
// writes, so that a program calling small routines from many threads never waits on a lock nor
// shares a cache line for them; the report sums the threads.
#pragma once

#include <array>
#include <cstdint>

#include "route.hpp"
#include "routine.hpp"

namespace switchyard {

// Calls, time and flops of one routine, by backend; how many of its calls were counted without
// being timed (sent to the fallback on sight while the report was not asked for: their time and
// flops are in neither sum); and of its gpu calls, how many were split over several devices, and
// over which (the trace's note, "split over CUDA devices 0,1").
struct RoutineTotals {
  std::array<std::uint64_t, backend_count> calls{};
  double seconds = 0.0;
  double flops = 0.0;
  std::uint64_t untimed = 0;
  std::uint64_t split = 0;
  const char* split_over = nullptr;
};
using Totals = std::array<RoutineTotals, routine_count>;

// Adds one finished call, of `ticks` of tick_clock, to the calling thread's totals;
// `split_over`: the devices it was split over (a note kept for the life of the process), or null.
void record_totals(Routine r, Backend b, std::uint64_t ticks, double flops,
                   const char* split_over = nullptr);
// Adds one call that was not timed.
void record_untimed(Routine r, Backend b);

// The sum over every thread, those that have exited included.
Totals current_totals();

}  // namespace switchyard
