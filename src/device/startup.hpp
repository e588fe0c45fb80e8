// Where each device family stands in this process (cold, starting, started),
// and what starting it cost, phase by phase. The router reads the state to
// weigh a call's gain against the start-up it would pay; the trace line of
// the call that started a device shows the breakdown.
//
// Nothing here starts a device: the runtimes (cuda_runtime.cpp,
// opencl_runtime.cpp) report their own starts and phases.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace switchyard::device {

// The two device families: CUDA (the QR routes) and OpenCL (the gemm route).
enum class Family { cuda, opencl };
inline constexpr int family_count = 2;
const char* family_name(Family f);  // "cuda", "opencl"

enum class State { cold, starting, started, failed };

// Never blocks and never starts anything.
State state(Family f);

// Seconds since the start of `f` began (0 unless it is starting).
double seconds_starting(Family f);

// The runtime of `f` reports its start: begun, then finished (ok or not).
void begin_start(Family f);
void end_start(Family f, bool ok);

// Adds one timed phase of setting `f` up (the context, loading programs, the
// first pinned staging...) to the process's breakdown.
void add_phase(Family f, const char* name, double seconds);

// Times one phase from construction to destruction.
class Phase {
 public:
  Phase(Family f, const char* name)
      : family_(f), name_(name), start_(std::chrono::steady_clock::now()) {}
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  Family family_;
  const char* name_;
  std::chrono::steady_clock::time_point start_;
};

// How many phases have been added so far in this process; a call compares
// the count before and after to learn whether it paid for a start.
std::uint64_t phase_count();

// "cuda driver 121 ms, cuda context 203 ms, cuda pinned staging 14 ms": the
// phases added after the first `since` of them, or "".
std::string breakdown_since(std::uint64_t since);

// The sum of the phases of `f` so far, in seconds; of those named `name` only.
double measured_start_seconds(Family f);
double phase_seconds(Family f, const char* name);

// How a route starts its family's device (its `unusable()`, which starts it on the first ask);
// registered by the route's own source file.
void register_starter(Family f, void (*start)());

// Runs `start` on a detached helper thread, counted as a start under way until it returns, and
// returns at once; false when no thread could be made. A process that exits meanwhile first
// waits for it, for at most kExitWaitSeconds: the drivers abort or fault when torn down under a
// thread inside them (nvidia-h200, an empty program cache: 7 of 22 processes that exited while
// an OpenCL start ran in the background). The wait is a thread_local's destructor in the main
// thread, which exit() runs first, before any atexit handler or static destructor; an atexit
// handler waits too, for an exit() called from another thread.
bool start_detached(std::function<void()> start);
inline constexpr double kExitWaitSeconds = 30.0;

// Whether the process has begun to exit with a start under way: a start checks it between its
// phases and stops, so that the exit waits for one phase only.
bool exiting();

// Starts `f` on a detached helper thread (start_detached), once per process, and returns at
// once; a call routed to it meanwhile waits for the rest of its start.
void start_in_background(Family f);

// The gain the router's model gave the calls it kept off cold `f` because none paid for the
// start alone, summed; the router starts `f` in the background once the sum covers the start.
void forgo(Family f, double seconds);
double forgone_seconds(Family f);

// Whether this process is a fork() child of one that had started (or was starting) `f`: the
// device can not be used here (CUDA does not survive a fork), and the routes leave it alone.
bool inherited_by_fork(Family f);

// SWITCHYARD_START=background: the first call of the process (`wanted`) starts every registered
// family on a detached helper thread (start_detached), one after the other, and returns at once;
// a call routed to a device meanwhile waits for the rest of its start. Later calls do nothing.
void start_in_background_once(bool wanted);

}  // namespace switchyard::device
