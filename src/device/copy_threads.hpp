// Host threads that copy pieces between pageable memory and pinned staging, started once and kept
// until exit. Starting a thread for each piece, as std::async does, cost 0.15 to 0.3 ms a piece
// on the H200 hosts, on the thread that sends the pieces: a dgemm 16384^3 split over two H200s
// spent 106-166 ms of its upload loops starting threads (docs/multi-gpu.md).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace switchyard::device {

class CopyThreads {
 public:
  // Starts up to `count` threads (fewer where the system gives fewer).
  explicit CopyThreads(int count);
  ~CopyThreads();
  CopyThreads(const CopyThreads&) = delete;
  CopyThreads& operator=(const CopyThreads&) = delete;

  // Runs `task` on one of the threads, in the order given; the future is ready once it has run.
  // Without a thread, the task runs when the future is waited for.
  std::future<void> run(std::function<void()> task);

  // Whether any thread started: without one, run() hands nothing over.
  bool started() const { return !threads_.empty(); }

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<std::packaged_task<void()>> queue_;
  bool closing_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace switchyard::device
