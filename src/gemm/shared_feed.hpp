// One host copy of an operand that every device of a split call reads, sent to each device.
//
// Each device's call (gemm_streamed, one thread each) moves the same pieces of that operand in
// the same order. The feed copies piece i from pageable memory into slot i % R of the shared
// staging (opencl_shared_staging.hpp) once, on a thread of its own, and every device sends it
// from there to itself. Piece i + R goes into that slot only after every device has sent piece
// i and those transfers have left the slot. The copies run up to R - 1 pieces ahead of the
// device that asks first, so that as many host threads copy as with a device's own staging.
//
// A device whose call stops early (a failure, or a list of pieces unlike the others') leaves
// the feed, and the others never wait for it again. Every device leaves when its call ends.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <future>
#include <mutex>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/kernel_source.hpp"
#include "gemm/stream_pieces.hpp"

namespace switchyard::gemm {

template <class T>
class Feed {
 public:
  // `cl` null: the transfers' events are all null (tests of the feed alone).
  Feed(const opencl::Api* cl, std::vector<void*> slots, int devices)
      : cl_(cl),
        slots_(std::move(slots)),
        sent_(std::size_t(devices), 0),
        left_(std::size_t(devices), false),
        events_(slots_.size()) {}
  Feed(const Feed&) = delete;
  Feed& operator=(const Feed&) = delete;
  ~Feed() {
    for (std::future<void>& f : copies_) f.wait();
    for (std::vector<cl_event>& events : events_) release(events);
  }

  // Device `device`'s pieces of the operand, in the order it sends them. The first device to
  // offer sets the feed's pieces; a later one whose pieces differ (in their host rectangles) is
  // refused and leaves: it copies its own.
  bool offer(int device, const std::vector<const Piece<T>*>& pieces) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!offered_) {
      for (const Piece<T>* p : pieces) pieces_.push_back(*p);
      ready_.assign(pieces_.size(), false);
      offered_ = true;
      return true;
    }
    bool same = pieces.size() == pieces_.size();
    for (std::size_t i = 0; same && i < pieces.size(); ++i) {
      const Piece<T>& a = *pieces[i];
      const Piece<T>& b = pieces_[i];
      same = a.host == b.host && a.host_ld == b.host_ld && a.rows == b.rows && a.cols == b.cols;
    }
    if (!same) leave_locked(device);
    return same;
  }

  // The slot that holds piece i, once it has been copied there; starts the copies of the pieces
  // up to R - 1 beyond it.
  const void* take(int i) {
    std::unique_lock<std::mutex> lock(mutex_);
    const int end = std::min<int>(int(pieces_.size()), i + int(slots_.size()));
    for (; started_ < end; ++started_) {
      const int j = started_;
      copies_.push_back(std::async(std::launch::async, [this, j] { copy(j); }));
    }
    changed_.wait(lock, [&] { return bool(ready_[std::size_t(i)]); });
    return slots_[std::size_t(i) % slots_.size()];
  }

  // Device `device` has sent piece i (the next after those it sent before) by the transfer
  // `done` (or null when it failed to); the feed takes that reference to `done`.
  void sent(int device, int i, cl_event done) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (done) events_[std::size_t(i) % slots_.size()].push_back(done);
    sent_[std::size_t(device)] = i + 1;
    changed_.notify_all();
  }

  // Device `device` sends no more pieces.
  void leave(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    leave_locked(device);
  }

 private:
  void leave_locked(int device) {
    left_[std::size_t(device)] = true;
    changed_.notify_all();
  }

  // Copies piece j into its slot once every device still in the feed has sent piece j - R, and
  // those transfers have ended.
  void copy(int j) {
    const std::size_t slot = std::size_t(j) % slots_.size();
    std::vector<cl_event> before;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] {
        for (std::size_t d = 0; d < sent_.size(); ++d) {
          if (!left_[d] && sent_[d] + int(slots_.size()) <= j) return false;
        }
        return true;
      });
      before.swap(events_[slot]);
    }
    // One at a time: the events are of the devices' several contexts. Failed or not, a
    // transfer that ended has left the slot.
    for (cl_event e : before) cl_->WaitForEvents(1, &e);
    release(before);
    pack(pieces_[std::size_t(j)], static_cast<T*>(slots_[slot]));
    std::lock_guard<std::mutex> lock(mutex_);
    ready_[std::size_t(j)] = true;
    changed_.notify_all();
  }

  void release(std::vector<cl_event>& events) {
    for (cl_event e : events) cl_->ReleaseEvent(e);
    events.clear();
  }

  const opencl::Api* cl_;
  const std::vector<void*> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool offered_ = false;
  std::vector<Piece<T>> pieces_;
  std::vector<char> ready_;                    // piece i is in its slot
  std::vector<int> sent_;                      // pieces each device has sent
  std::vector<bool> left_;                     // devices that send no more
  std::vector<std::vector<cl_event>> events_;  // the transfers from each slot since it was filled
  int started_ = 0;                            // pieces whose copies have started
  std::vector<std::future<void>> copies_;
};

// A device's place in a feed: the feed (null: none), the device's number there, and the operand
// the feed copies.
template <class T>
struct FeedSeat {
  Feed<T>* feed = nullptr;
  int device = 0;
  Operand operand = Operand::b;
};

}  // namespace switchyard::gemm
