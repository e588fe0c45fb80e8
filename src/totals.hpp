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

// Calls, time and flops of one routine, by backend.
struct RoutineTotals {
  std::array<std::uint64_t, backend_count> calls{};
  double seconds = 0.0;
  double flops = 0.0;
};
using Totals = std::array<RoutineTotals, routine_count>;

// Adds one finished call, of `ticks` of tick_clock, to the calling thread's totals.
void record_totals(Routine r, Backend b, std::uint64_t ticks, double flops);

// The sum over every thread, those that have exited included.
Totals current_totals();

}  // namespace switchyard
