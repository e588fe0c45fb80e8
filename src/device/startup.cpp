#include "device/startup.hpp"

#include <atomic>
#include <cstdio>
#include <exception>
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
};

// Never destroyed: phases may be reported from helper threads at exit.
Log& log() {
  static Log* made = new Log;
  return *made;
}

}  // namespace

const char* family_name(Family f) { return f == Family::cuda ? "cuda" : "opencl"; }

State state(Family f) { return State(log().states[int(f)].load(std::memory_order_acquire)); }

double seconds_starting(Family f) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (state(f) != State::starting) return 0.0;
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

void register_starter(Family f, void (*start)()) { log().starters[int(f)] = start; }

void start_in_background_once(bool wanted) {
  if (!wanted) return;
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      std::thread([] {
        for (void (*start)() : log().starters) {
          if (start) start();
        }
      }).detach();
    } catch (const std::exception&) {
      // No thread to spare: the devices start on demand instead.
    }
  });
}

}  // namespace switchyard::device
