#include "totals.hpp"

#include <atomic>
#include <mutex>
#include <vector>

#include "tick_clock.hpp"

namespace switchyard {
namespace {

// One thread's totals. Only the owning thread writes them, so a relaxed load and store add to
// them; the report reads them from another thread, hence atomics.
struct ThreadRow {
  std::array<std::atomic<std::uint64_t>, backend_count> calls{};
  std::atomic<std::uint64_t> ticks{0};
  std::atomic<double> flops{0.0};
  std::atomic<std::uint64_t> untimed{0};
  std::atomic<std::uint64_t> split{0};
};
using ThreadTotals = std::array<ThreadRow, routine_count>;

template <class V>
void add(std::atomic<V>& to, V value) {
  to.store(to.load(std::memory_order_relaxed) + value, std::memory_order_relaxed);
}

// The live threads' totals, and what the threads that have exited counted.
struct Registry {
  std::mutex mutex;
  std::vector<const ThreadTotals*> live;
  Totals exited{};
};

// The devices each routine's split calls ran over, the latest (they change only with
// SWITCHYARD_DEVICES, read once).
std::array<std::atomic<const char*>, routine_count> split_notes{};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: threads may exit after static destructors
  return *r;
}

void add_into(Totals& sum, const ThreadTotals& t) {
  for (int r = 0; r < routine_count; ++r) {
    for (int b = 0; b < backend_count; ++b) {
      sum[r].calls[b] += t[r].calls[b].load(std::memory_order_relaxed);
    }
    sum[r].seconds += tick_clock::seconds(t[r].ticks.load(std::memory_order_relaxed));
    sum[r].flops += t[r].flops.load(std::memory_order_relaxed);
    sum[r].untimed += t[r].untimed.load(std::memory_order_relaxed);
    sum[r].split += t[r].split.load(std::memory_order_relaxed);
  }
}

// Registered at a thread's first call; at its exit, its counts move to `exited`.
struct ThisThread {
  ThreadTotals totals;
  ThisThread() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.live.push_back(&totals);
  }
  ~ThisThread() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    add_into(r.exited, totals);
    for (auto it = r.live.begin(); it != r.live.end(); ++it) {
      if (*it == &totals) {
        r.live.erase(it);
        break;
      }
    }
  }
};

ThreadRow& this_thread_row(Routine r) {
  thread_local ThisThread me;
  return me.totals[int(r)];
}

}  // namespace

void record_totals(Routine r, Backend b, std::uint64_t ticks, double flops,
                   const char* split_over) {
  ThreadRow& row = this_thread_row(r);
  add(row.calls[int(b)], std::uint64_t{1});
  add(row.ticks, ticks);
  add(row.flops, flops);
  if (split_over) {
    add(row.split, std::uint64_t{1});
    split_notes[int(r)].store(split_over, std::memory_order_relaxed);
  }
}

void record_untimed(Routine r, Backend b) {
  ThreadRow& row = this_thread_row(r);
  add(row.calls[int(b)], std::uint64_t{1});
  add(row.untimed, std::uint64_t{1});
}

Totals current_totals() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Totals sum = r.exited;
  for (const ThreadTotals* t : r.live) add_into(sum, *t);
  for (int routine = 0; routine < routine_count; ++routine) {
    sum[routine].split_over = split_notes[routine].load(std::memory_order_relaxed);
  }
  return sum;
}

}  // namespace switchyard
