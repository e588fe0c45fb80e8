#include "device/startup.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace switchyard::device {
namespace {

using Clock = std::chrono::steady_clock;

struct Record {
  Family family;
  const char* name;
  double seconds;
};

struct Log {
  std::mutex mutex;
  std::vector<Record> phases;
  std::atomic<std::uint64_t> count{0};
  std::atomic<int> states[family_count] = {};
  Clock::time_point began[family_count];
  void (*starters[family_count])() = {};
  std::once_flag background[family_count];
  double forgone[family_count] = {};
  std::atomic<bool> inherited[family_count] = {};
  // Starts on helper threads not yet returned, and whether exit() is waiting for them. Atomics,
  // so that a fork() child may reset them whatever the parent's threads held.
  std::atomic<int> detached_starts{0};
  std::atomic<bool> exiting{false};
};

Log& log();

// In a fork() child, a device the parent started is not the child's to use; the child's calls
// run in the fallback. Only atomics are touched here: the parent's mutex may be held.
void after_fork_in_child() {
  Log& l = log();
  for (int f = 0; f < family_count; ++f) {
    if (State(l.states[f].load()) != State::cold) l.inherited[f].store(true);
  }
  l.detached_starts.store(0);  // the parent's helper threads are not the child's
}

void wait_for_detached_starts() {
  Log& l = log();
  if (l.detached_starts.load() == 0) return;
  l.exiting.store(true);
  const auto until = Clock::now() + std::chrono::duration<double>(kExitWaitSeconds);
  while (l.detached_starts.load() > 0 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// exit() runs the calling thread's thread_local destructors first (glibc's __call_tls_dtors),
// before any atexit handler or static destructor.
struct WaitAtExit {
  ~WaitAtExit() { wait_for_detached_starts(); }
};

// Only the main thread's end is taken for the process's: another thread that ends neither waits
// nor stops a start it asked for.
void wait_at_exit_if_main_thread() {
  if (gettid() != getpid()) return;
  static thread_local WaitAtExit wait;
  (void)wait;
}

// The thread that loads the library is the main thread in nearly every program: it waits even if
// it never asks for a start itself.
[[gnu::constructor]] void wait_at_exit_from_the_loading_thread() { wait_at_exit_if_main_thread(); }

// Never destroyed: phases may be reported from helper threads at exit.
Log& log() {
  static Log* made = [] {
    pthread_atfork(nullptr, nullptr, after_fork_in_child);
    return new Log;
  }();
  return *made;
}

}  // namespace

const char* family_name(Family f) { return f == Family::cuda ? "cuda" : "opencl"; }

State state(Family f) { return State(log().states[int(f)].load(std::memory_order_acquire)); }

double seconds_starting(Family f) {
  if (state(f) != State::starting) return 0.0;
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  return std::chrono::duration<double>(Clock::now() - l.began[int(f)]).count();
}

void begin_start(Family f) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.began[int(f)] = Clock::now();
  l.states[int(f)].store(int(State::starting), std::memory_order_release);
}

void end_start(Family f, bool ok) {
  log().states[int(f)].store(int(ok ? State::started : State::failed), std::memory_order_release);
}

void add_phase(Family f, const char* name, double seconds) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.phases.push_back({f, name, seconds});
  l.count.store(l.phases.size(), std::memory_order_release);
}

Phase::~Phase() {
  add_phase(family_, name_, std::chrono::duration<double>(Clock::now() - start_).count());
}

std::uint64_t phase_count() { return log().count.load(std::memory_order_acquire); }

std::string breakdown_since(std::uint64_t since) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  std::string text;
  for (std::size_t i = since; i < l.phases.size(); ++i) {
    char part[96];
    std::snprintf(part, sizeof part, "%s%s %s %.0f ms", text.empty() ? "" : ", ",
                  family_name(l.phases[i].family), l.phases[i].name, l.phases[i].seconds * 1e3);
    text += part;
  }
  return text;
}

double measured_start_seconds(Family f) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  double sum = 0.0;
  for (const Record& r : l.phases) {
    if (r.family == f) sum += r.seconds;
  }
  return sum;
}

double phase_seconds(Family f, const char* name) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  double sum = 0.0;
  for (const Record& r : l.phases) {
    if (r.family == f && std::strcmp(r.name, name) == 0) sum += r.seconds;
  }
  return sum;
}

void register_starter(Family f, void (*start)()) { log().starters[int(f)] = start; }

bool start_detached(std::function<void()> start) {
  wait_at_exit_if_main_thread();
  // For an exit() called from another thread; it runs after the static destructors of libraries
  // loaded since, so it may come too late for a driver's.
  static const bool at_exit = std::atexit(wait_for_detached_starts) == 0;
  (void)at_exit;
  Log& l = log();
  l.detached_starts.fetch_add(1);
  try {
    std::thread([start = std::move(start)] {
      struct Returned {
        ~Returned() { log().detached_starts.fetch_sub(1); }
      } returned;
      start();
    }).detach();
    return true;
  } catch (const std::exception&) {
    l.detached_starts.fetch_sub(1);
    return false;
  }
}

bool exiting() { return log().exiting.load(); }

void start_in_background(Family f) {
  Log& l = log();
  std::call_once(l.background[int(f)], [&l, f] {
    // Without a thread to spare, the device starts on demand instead.
    if (void (*start)() = l.starters[int(f)]) start_detached(start);
  });
}

void forgo(Family f, double seconds) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.forgone[int(f)] += seconds;
}

double forgone_seconds(Family f) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  return l.forgone[int(f)];
}

bool inherited_by_fork(Family f) { return log().inherited[int(f)].load(); }

void start_in_background_once(bool wanted) {
  if (!wanted) return;
  static std::once_flag once;
  std::call_once(once, [] {
    // One after the other, as a program's calls would start them; without a thread to spare,
    // the devices start on demand instead.
    start_detached([] {
      for (void (*start)() : log().starters) {
        if (start && !exiting()) start();
      }
    });
  });
}

}  // namespace switchyard::device
