#include "device/host_copies.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <system_error>
#include <thread>
#include <utility>

namespace switchyard::device {

class CopyTeam {
 public:
  explicit CopyTeam(int threads) {
    for (int t = 0; t < threads; ++t) {
      try {
        std::thread([this] { serve(); }).detach();
        ++threads_;
      } catch (const std::system_error&) {
        break;  // as many as the system allows; with none, copies run on their callers' threads
      }
    }
  }

  void add(CopyGroup& group, std::function<void()> copy) {
    if (threads_ == 0) {
      copy();
      return;
    }
    {
      std::lock_guard<std::mutex> lock(group.mutex_);
      ++group.pending_;
    }
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back({&group, std::move(copy)});
    } catch (...) {
      // Not queued: the group must not wait for it.
      std::lock_guard<std::mutex> lock(group.mutex_);
      --group.pending_;
      throw;
    }
    ready_.notify_one();
  }

 private:
  struct Item {
    CopyGroup* group;
    std::function<void()> copy;
  };

  void serve() {
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return !queue_.empty(); });
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      item.copy();
      item.copy = nullptr;  // what it holds goes before its group can end
      // Notified under the group's lock: its waiter can not return, and destroy it, before
      // this thread is done with it.
      std::lock_guard<std::mutex> lock(item.group->mutex_);
      if (--item.group->pending_ == 0) item.group->done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Item> queue_;
  int threads_ = 0;
};

namespace {

// The teams of this process, one a way: each made at its first copy, never destroyed (its
// threads wait on it until exit). A fork() child has none of the parent's threads, so it makes
// its own.
CopyTeam& team(CopyWay way) {
  static std::mutex mutex;
  static CopyTeam* teams[2] = {};
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (owner != getpid()) {
    teams[0] = teams[1] = nullptr;
    owner = getpid();
  }
  CopyTeam*& team = teams[way == CopyWay::into_staging ? 0 : 1];
  if (!team) team = new CopyTeam(copy_threads());
  return *team;
}

}  // namespace

void CopyGroup::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
}

void run_copy(CopyGroup& group, CopyWay way, std::function<void()> copy) {
  team(way).add(group, std::move(copy));
}

int copy_parts(std::size_t bytes) {
  return int(std::clamp<std::size_t>(bytes >> 19, 1, std::size_t(copy_threads())));
}

int copy_threads() {
  static const int threads = [] {
    cpu_set_t set;
    const int cores = sched_getaffinity(0, sizeof set, &set) == 0
                          ? CPU_COUNT(&set)
                          : int(std::thread::hardware_concurrency());
    return std::clamp(cores - 1, 2, 64);
  }();
  return threads;
}

}  // namespace switchyard::device
