// One host copy of an operand that every device of a split call reads, sent to each device.
//
// Each device's call (gemm_streamed, one thread each) moves the same pieces of that operand in
// the same order. The feed copies piece i from pageable memory into slot i % R of the shared
// staging (opencl_shared_staging.hpp) once, and every device sends it from there to itself.
// The copy of piece i + R starts as soon as every device has sent piece i, and writes the slot
// once those transfers have ended; so the copies run up to R pieces ahead of the slowest device.
//
// The copies are made by worker threads started with the feed, each piece in parts by several
// of them. Waking threads costs much on the H200's hosts: a thread started for each 4 MiB
// piece, as the devices' own staging does, added 0.1 to 0.3 ms to each piece on the thread
// that sends it, and a dgemm 16384^3 split over two H200s took 217-350 ms with such a feed
// (each device copying for itself: 182-237 ms); with 16 workers, pieces of 16 MiB in four
// parts and one worker woken per part, it took 152-153 ms (against 204 in the same call).
//
// A device whose call stops early (a failure, or a list of pieces unlike the others') leaves
// the feed, and the others never wait for it again. Every device leaves when its call ends.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/kernel_source.hpp"
#include "gemm/stream_pieces.hpp"

namespace switchyard::gemm {

template <class T>
class Feed {
 public:
  // `cl` null: the transfers' events are all null (tests of the feed alone). Each slot holds
  // `slot_bytes`.
  Feed(const opencl::Api* cl, std::vector<void*> slots, std::size_t slot_bytes, int devices)
      : cl_(cl),
        slots_(std::move(slots)),
        slot_bytes_(slot_bytes),
        sent_(std::size_t(devices), 0),
        left_(std::size_t(devices), false),
        events_(slots_.size()) {
    for (int w = 0; w < kWorkers; ++w) {
      try {
        workers_.emplace_back([this] { work(); });
      } catch (const std::system_error&) {
        break;  // fewer copies at once
      }
    }
  }
  // Whether a thread could be started to copy: without one, the feed must not be used.
  bool working() const { return !workers_.empty(); }

  Feed(const Feed&) = delete;
  Feed& operator=(const Feed&) = delete;
  ~Feed() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
      queued_.notify_all();
    }
    for (std::thread& w : workers_) w.join();
    for (std::vector<cl_event>& events : events_) release(events);
  }

  // Device `device`'s pieces of the operand, in the order it sends them. The first device to
  // offer sets the feed's pieces; a later one whose pieces differ (in their host rectangles) is
  // refused and leaves: it copies its own. So is one with a piece larger than a slot.
  bool offer(int device, const std::vector<const Piece<T>*>& pieces) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Piece<T>* p : pieces) {
      if (sizeof(T) * std::size_t(p->rows) * std::size_t(p->cols) > slot_bytes_) {
        leave_locked(device);
        return false;
      }
    }
    if (!offered_) {
      for (const Piece<T>* p : pieces) pieces_.push_back(*p);
      ready_.assign(pieces_.size(), false);
      remaining_.assign(pieces_.size(), 0);
      offered_ = true;
      start_copies();  // while the devices may still be sending what comes before
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

  // The slot that holds piece i, once it has been copied there.
  const void* take(int i) {
    std::unique_lock<std::mutex> lock(mutex_);
    start_copies();
    ready_changed_.wait(lock, [&] { return bool(ready_[std::size_t(i)]); });
    return slots_[std::size_t(i) % slots_.size()];
  }

  // Device `device` has sent piece i (the next after those it sent before) by the transfer
  // `done` (or null when it failed to); the feed takes that reference to `done`.
  void sent(int device, int i, cl_event done) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (done) events_[std::size_t(i) % slots_.size()].push_back(done);
    sent_[std::size_t(device)] = i + 1;
    start_copies();
  }

  // Device `device` sends no more pieces.
  void leave(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    leave_locked(device);
  }

 private:
  // Each piece is copied in kParts parts by as many workers (a slot of 16 MiB takes one thread
  // about 4 ms to fill from pageable memory), kWorkers at once.
  static constexpr int kParts = 4;
  static constexpr int kWorkers = 16;
  struct Copy {
    int piece, part;
    // The transfers from its slot since the slot was last filled.
    std::shared_ptr<std::vector<cl_event>> before;
  };
  void leave_locked(int device) {
    left_[std::size_t(device)] = true;
    start_copies();
  }

  // Starts the copy of each piece whose slot every device still in the feed is done with: it
  // has sent the piece R before (or there was none). The copy waits for those transfers. Once
  // every device has left, none takes a piece: nothing more is copied (piece i and piece i + R
  // would otherwise be written into one slot at once).
  void start_copies() {
    int done = int(pieces_.size());  // the pieces every device still in the feed has sent
    bool anyone = false;
    for (std::size_t d = 0; d < sent_.size(); ++d) {
      if (!left_[d]) done = std::min(done, sent_[d]);
      anyone = anyone || !left_[d];
    }
    if (!anyone) return;
    const int end = std::min<int>(int(pieces_.size()), done + int(slots_.size()));
    for (; started_ < end; ++started_) {
      auto before = std::make_shared<std::vector<cl_event>>();
      before->swap(events_[std::size_t(started_) % slots_.size()]);
      remaining_[std::size_t(started_)] = kParts;
      for (int part = 0; part < kParts; ++part) {
        queue_.push_back({started_, part, before});
        queued_.notify_one();  // one worker a part: waking them all costs the waker more
      }
    }
  }

  // A worker: copies the queued pieces until the feed closes.
  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      queued_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;
      Copy next = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      copy(next);
      lock.lock();
    }
  }

  // Copies its part of a piece into the piece's slot once the transfers that last used the
  // slot ended. The part that ends last lets the devices take the piece.
  void copy(const Copy& c) {
    // One at a time: the events are of the devices' several contexts. Failed or not, a
    // transfer that ended has left the slot.
    for (cl_event e : *c.before) cl_->WaitForEvents(1, &e);
    const Piece<T>& p = pieces_[std::size_t(c.piece)];
    const std::size_t size = std::size_t(p.rows) * std::size_t(p.cols);
    pack_part(p, static_cast<T*>(slots_[std::size_t(c.piece) % slots_.size()]),
              size * std::size_t(c.part) / kParts, size * std::size_t(c.part + 1) / kParts);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--remaining_[std::size_t(c.piece)] > 0) return;
    release(*c.before);
    ready_[std::size_t(c.piece)] = true;
    ready_changed_.notify_all();
  }

  void release(std::vector<cl_event>& events) {
    for (cl_event e : events) cl_->ReleaseEvent(e);
    events.clear();
  }

  const opencl::Api* cl_;
  const std::vector<void*> slots_;
  const std::size_t slot_bytes_;
  std::mutex mutex_;
  std::condition_variable ready_changed_;  // a piece is in its slot
  bool offered_ = false;
  std::vector<Piece<T>> pieces_;
  std::vector<char> ready_;                    // piece i is in its slot
  std::vector<int> sent_;                      // pieces each device has sent
  std::vector<bool> left_;                     // devices that send no more
  std::vector<std::vector<cl_event>> events_;  // the transfers from each slot since it was filled
  int started_ = 0;                            // pieces whose copies have been queued
  std::vector<int> remaining_;                 // parts of each piece not yet copied
  std::deque<Copy> queue_;
  std::condition_variable queued_;
  bool closing_ = false;
  std::vector<std::thread> workers_;
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
