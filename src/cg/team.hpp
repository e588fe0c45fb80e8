// A team of host threads that run one function together, SPMD style, with
// a barrier and deterministic sum reductions: the CPU CG runs its whole
// iteration loop inside one team, so threads start once per solve.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace switchyard::cg {

class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      lock.unlock();
      woken_.notify_all();
      return;
    }
    woken_.wait(lock, [&] { return generation_ != generation; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable woken_;
  int count_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
};

// Up to kMaxSums values summed across the team. Every thread adds the
// partials in thread order, so all get the same, reproducible answer. Two
// buffers alternate: a thread can write the next reduction's partials while
// a slower one still reads this one's, and cannot reach the one after
// before every thread has passed the barrier in between.
class TeamSums {
 public:
  static constexpr int kMaxSums = 6;
  explicit TeamSums(int threads) : barrier_(threads), partial_(2 * std::size_t(threads)) {}

  template <int N>
  void sum(int thread, const double (&mine)[N], double (&total)[N]) {
    static_assert(N <= kMaxSums, "too many sums");
    const int threads = int(partial_.size() / 2);
    Slot* buffer = partial_.data() + std::size_t(phase(thread)) * std::size_t(threads);
    for (int k = 0; k < N; ++k) buffer[thread].v[k] = mine[k];
    barrier_.wait();
    for (int k = 0; k < N; ++k) total[k] = 0.0;
    for (int t = 0; t < threads; ++t) {
      for (int k = 0; k < N; ++k) total[k] += buffer[t].v[k];
    }
  }

  void wait() { barrier_.wait(); }

 private:
  struct alignas(64) Slot {
    double v[kMaxSums];
    int next_phase;  // per-thread: which buffer this thread's next sum uses
  };
  int phase(int thread) {
    // Each thread keeps its own phase in its slot of buffer 0.
    int& p = partial_[std::size_t(thread)].next_phase;
    const int now = p;
    p ^= 1;
    return now;
  }
  Barrier barrier_;
  std::vector<Slot> partial_;
};

// Runs fn(thread, threads) on up to `wanted` threads, the caller's
// included. A thread that cannot be started only costs speed: the team is
// sized by the threads that did start, and setup(threads) runs on the
// caller's thread before any of them begins.
template <class Setup, class Fn>
void run_team(int wanted, Setup&& setup, Fn&& fn) {
  std::mutex mutex;
  std::condition_variable started;
  bool go = false;
  int threads = 1;
  std::vector<std::thread> pool;
  const auto worker = [&](int id) {
    int size;
    {
      std::unique_lock<std::mutex> lock(mutex);
      started.wait(lock, [&] { return go; });
      size = threads;
    }
    if (id < size) fn(id, size);
  };
  try {
    pool.reserve(std::size_t(wanted > 1 ? wanted - 1 : 0));
    for (int id = 1; id < wanted; ++id) pool.emplace_back(worker, id);
  } catch (const std::exception&) {
    // Carry on with the threads that did start.
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    threads = int(pool.size()) + 1;
    setup(threads);
    go = true;
  }
  started.notify_all();
  fn(0, threads);
  for (std::thread& t : pool) t.join();
}

}  // namespace switchyard::cg
