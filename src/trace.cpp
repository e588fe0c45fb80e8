#include "trace.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "config.hpp"
#include "device/startup.hpp"
#include "tick_clock.hpp"
#include "trace_file.hpp"

namespace switchyard {
namespace {

std::atomic<std::uint64_t> next_id{1};

// The innermost call in progress on this thread, for nesting.
thread_local std::uint64_t current_call = 0;
thread_local int current_depth = 0;

// The trace destination, opened once. Lines are appended with one write()
// each, so that threads and forked children never interleave within a line.
int trace_fd() {
  static const int fd = [] {
    const std::string& where = config().trace;
    if (where.empty()) return -1;
    if (where == "stderr") return STDERR_FILENO;
    return open_trace_file(where);
  }();
  return fd;
}

void write_line(int fd, const std::string& line) {
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= std::size_t(n);
  }
}

}  // namespace

std::uint64_t next_call_id() { return next_id.fetch_add(1, std::memory_order_relaxed); }

bool trace_enabled() { return trace_fd() >= 0; }

void write_trace_line(const std::string& line) {
  const int fd = trace_fd();
  if (fd >= 0) write_line(fd, line);
}

std::string format_trace_line(const TraceEvent& e) {
  char text[1024];
  int n = std::snprintf(text, sizeof text, "switchyard: call=%llu parent=%llu depth=%d %s",
                        (unsigned long long)e.id, (unsigned long long)e.parent, e.depth,
                        routine_name(e.routine));
  if (e.shape.transa) n += std::snprintf(text + n, sizeof text - n, " transa=%c", e.shape.transa);
  if (e.shape.transb) n += std::snprintf(text + n, sizeof text - n, " transb=%c", e.shape.transb);
  n += std::snprintf(text + n, sizeof text - n, " m=%lld n=%lld", (long long)e.shape.m,
                     (long long)e.shape.n);
  if (e.shape.transa) {
    n += std::snprintf(text + n, sizeof text - n, " k=%lld", (long long)e.shape.k);
  }
  n += std::snprintf(text + n, sizeof text - n, " route=%s reason=\"%s\" time_ms=%.3f",
                     backend_name(e.decision.backend), e.decision.reason, e.seconds * 1e3);
  if (!e.startup.empty()) {
    n += std::snprintf(text + n, sizeof text - n, " startup=\"%s\"", e.startup.c_str());
  }
  std::snprintf(text + n, sizeof text - n, "\n");
  return text;
}

std::string format_report(const Totals& t) {
  std::string out =
      "switchyard report\n"
      "routine       calls  fallback       cpu       gpu      time_s   GFLOP/s\n";
  bool any = false;
  for (int r = 0; r < routine_count; ++r) {
    const RoutineTotals& row = t[r];
    std::uint64_t calls = 0;
    for (std::uint64_t c : row.calls) calls += c;
    if (calls == 0) continue;
    any = true;
    char line[160];
    const double gflops = row.seconds > 0 ? row.flops / row.seconds * 1e-9 : 0.0;
    std::snprintf(line, sizeof line, "%-8s %10llu %9llu %9llu %9llu %11.4f %9.2f\n",
                  routine_name(Routine(r)), (unsigned long long)calls,
                  (unsigned long long)row.calls[int(Backend::fallback)],
                  (unsigned long long)row.calls[int(Backend::cpu)],
                  (unsigned long long)row.calls[int(Backend::gpu)], row.seconds, gflops);
    out += line;
  }
  if (!any) out += "(no routed BLAS/LAPACK calls were seen)\n";
  for (int r = 0; r < routine_count; ++r) {
    if (t[r].split == 0 || !t[r].split_over) continue;
    char line[160];
    std::snprintf(line, sizeof line, "%s: %llu gpu calls %s\n", routine_name(Routine(r)),
                  (unsigned long long)t[r].split, t[r].split_over);
    out += line;
  }
  for (int r = 0; r < routine_count; ++r) {
    if (t[r].untimed == 0) continue;
    char line[200];
    std::snprintf(line, sizeof line,
                  "%s: %llu calls sent to the fallback by the thresholds were counted, not timed "
                  "(SWITCHYARD_REPORT=1 times them)\n",
                  routine_name(Routine(r)), (unsigned long long)t[r].untimed);
    out += line;
  }
  out += "time includes nested calls; GFLOP/s counts LAPACK's flops\n";
  return out;
}

CallRecord::CallRecord(Routine r, const Shape& s, bool timed)
    : event_(trace_enabled() ? std::make_optional<TraceEvent>() : std::nullopt),
      routine_(r),
      shape_(s),
      depth_(current_depth),
      timed_(timed || event_),  // a trace line gives the call's time
      start_(timed_ ? tick_clock::ticks() : 0) {
  if (event_) {
    event_->id = next_call_id();
    event_->parent = current_call;
    event_->depth = depth_;
    event_->routine = r;
    event_->shape = s;
    phases_before_ = device::phase_count();
    current_call = event_->id;
  }
  ++current_depth;
}

CallRecord::~CallRecord() {
  --current_depth;
  if (!timed_) {
    record_untimed(routine_, backend_);
    return;
  }
  const std::uint64_t ticks = tick_clock::ticks() - start_;
  record_totals(routine_, backend_, ticks, routine_flops(routine_, shape_), split_over_);
  if (!event_) return;
  current_call = event_->parent;
  event_->seconds = tick_clock::seconds(ticks);
  // The device start-up paid while this call ran (in a nested call too: its time is part of this
  // one's).
  if (device::phase_count() != phases_before_)
    event_->startup = device::breakdown_since(phases_before_);
  write_trace_line(format_trace_line(*event_));
}

// The report is printed when the program exits, on stderr, if asked for.
__attribute__((destructor)) static void print_report_at_exit() {
  if (!config().report) return;
  const std::string report = format_report(current_totals());
  write_line(STDERR_FILENO, report);
}

}  // namespace switchyard
