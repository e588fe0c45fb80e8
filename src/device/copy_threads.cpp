#include "device/copy_threads.hpp"

#include <system_error>
#include <utility>

namespace switchyard::device {

CopyThreads::CopyThreads(int count) {
  for (int t = 0; t < count; ++t) {
    try {
      threads_.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      break;  // fewer copies at once
    }
  }
}

CopyThreads::~CopyThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    queued_.notify_all();
  }
  for (std::thread& t : threads_) t.join();
}

std::future<void> CopyThreads::run(std::function<void()> task) {
  if (threads_.empty()) return std::async(std::launch::deferred, std::move(task));
  std::packaged_task<void()> packaged(std::move(task));
  std::future<void> done = packaged.get_future();
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.push_back(std::move(packaged));
  queued_.notify_one();  // one thread a task: waking them all costs the caller more
  return done;
}

void CopyThreads::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    queued_.wait(lock, [&] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;
    std::packaged_task<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace switchyard::device
