// What Switchyard shows of the calls it sees: one trace line per call
// (SWITCHYARD_TRACE) and a table at exit (SWITCHYARD_REPORT). A CallRecord
// wraps one call; nested calls (a fallback dgels calling the routed dgeqrf)
// carry their parent's id and depth. Without a trace a record only times and
// counts its call: ids, the start-up's phases and the reason are for the trace.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "route.hpp"
#include "routine.hpp"
#include "totals.hpp"

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

// The exit report: one row per routine that was called.
std::string format_report(const Totals& totals);

// For records of calls that are not BLAS/LAPACK routines (the sparse CG):
// a call id from the same sequence, and one finished line appended to the
// trace (a no-op when the trace is off).
std::uint64_t next_call_id();
bool trace_enabled();
void write_trace_line(const std::string& line);

class CallRecord {
 public:
  // `timed` false: the call is counted, not timed, unless the trace is on (dispatch.hpp: a call
  // sent to the fallback on sight, where the clock's two readings would cost a small call as
  // much as the rest of Switchyard's look at it).
  CallRecord(Routine r, const Shape& s, bool timed = true);
  ~CallRecord();
  CallRecord(const CallRecord&) = delete;
  CallRecord& operator=(const CallRecord&) = delete;

  void set_decision(const Decision& d) {
    backend_ = d.backend;
    if (event_) event_->decision = d;
  }
  // The devices the call was split over (dispatch.hpp's ran_as), for the report.
  void set_split_over(const char* note) { split_over_ = note; }
  int depth() const { return depth_; }        // 0 for the program's own calls
  bool traced() const { return event_.has_value(); }  // whether the call gets a trace line

 private:
  // The trace's line, made only when the trace is on: a call sent to the fallback by the
  // thresholds costs a small call's own time again, and the line's reason alone is 224 bytes.
  std::optional<TraceEvent> event_;
  Routine routine_;
  Shape shape_;
  Backend backend_ = Backend::fallback;
  int depth_;
  bool timed_;
  std::uint64_t start_;  // tick_clock::ticks(), when timed
  std::uint64_t phases_before_ = 0;
  const char* split_over_ = nullptr;
};

}  // namespace switchyard
