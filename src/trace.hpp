// What Switchyard shows of the calls it sees: one trace line per call
// (SWITCHYARD_TRACE) and a table at exit (SWITCHYARD_REPORT). A CallRecord
// wraps one call; nested calls (a fallback dgels calling the routed dgeqrf)
// carry their parent's id and depth.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "route.hpp"
#include "routine.hpp"

namespace switchyard {

struct TraceEvent {
  std::uint64_t id = 0;
  std::uint64_t parent = 0;  // 0 at the top level
  int depth = 0;
  Routine routine = Routine::dgemm;
  Shape shape;
  Decision decision;
  double seconds = 0.0;
  std::string startup;  // the device start-up this call paid for, phase by phase, or ""
};

// "switchyard: call=3 parent=2 depth=1 dgemm transa=N transb=T m=.. n=.. k=..
//  route=fallback reason="..." time_ms=... [startup="cuda driver 120 ms, ..."]" (one line, with
//  its newline).
std::string format_trace_line(const TraceEvent& e);

// Calls, time and flops of one routine, by backend.
struct RoutineTotals {
  std::array<std::uint64_t, backend_count> calls{};
  double seconds = 0.0;
  double flops = 0.0;
};
using Totals = std::array<RoutineTotals, routine_count>;

// The exit report: one row per routine that was called.
std::string format_report(const Totals& totals);

// Adds one finished call to the process-wide totals.
void record_totals(Routine r, Backend b, double seconds, double flops);
Totals current_totals();

// For records of calls that are not BLAS/LAPACK routines (the sparse CG):
// a call id from the same sequence, and one finished line appended to the
// trace (a no-op when the trace is off).
std::uint64_t next_call_id();
bool trace_enabled();
void write_trace_line(const std::string& line);

class CallRecord {
 public:
  CallRecord(Routine r, const Shape& s);
  ~CallRecord();
  CallRecord(const CallRecord&) = delete;
  CallRecord& operator=(const CallRecord&) = delete;

  void set_decision(const Decision& d) { event_.decision = d; }
  int depth() const { return event_.depth; }  // 0 for the program's own calls

 private:
  TraceEvent event_;
  std::chrono::steady_clock::time_point start_;
  std::uint64_t phases_before_ = 0;
};

}  // namespace switchyard
