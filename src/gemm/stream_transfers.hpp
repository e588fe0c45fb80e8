// The two directions of a streamed call, each a pipeline through the pinned
// slots (device/opencl_staging.hpp):
//  - upload: helper threads (device/host_copies.hpp) copy pieces into the
//    upload slots up to kUploadSlots - 1 ahead; the calling thread enqueues each piece's
//    transfer as soon as it is packed, and after the last piece of each
//    stage calls back (the caller enqueues the kernels that use the stage);
//  - download: a worker thread takes the pieces of each stage handed to it,
//    enqueues their transfers behind the event that produces them, and helper
//    threads copy each piece out of its slot once it arrived. A call of one
//    stage has nothing to overlap: its pieces are downloaded on the calling
//    thread when it finishes.
// A slot is filled again only once its last transfer, of this call or an
// earlier one, has left it.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "device/host_copies.hpp"
#include "device/opencl_staging.hpp"
#include "gemm/shared_feed.hpp"
#include "gemm/stream_fault.hpp"
#include "gemm/stream_pieces.hpp"

namespace switchyard::gemm {

// The parts a piece's host copy runs in on the helper threads (device::copy_parts), so that the
// first piece goes up and the last one is back soon; 0 for a piece below 1 MiB, whose copy
// costs less than waking a helper thread and runs on the thread that waits for it. (The LAPACK
// test suites, whose gemm calls are small, ran 4 times longer with a thread started per piece.)
template <class T>
int copy_parts(const Piece<T>& p) {
  const std::size_t bytes = sizeof(T) * elements(p);
  return bytes < (std::size_t(1) << 20) ? 0 : device::copy_parts(bytes);
}

// Uploads stages[0], stages[1], ... in order on the staging's upload queue.
// After the last piece of stage s is enqueued, `after(s, event)` runs with
// the event of that transfer (null for a stage with no pieces) and returns
// false to stop. Returns false with the reason in `error` on the first
// failure; every host copy has ended when it returns. A piece whose `feed`
// is set is sent from the slot of `seat`'s feed (shared_feed.hpp) instead of
// being copied into one of the staging's own; the device leaves the feed
// when this returns. `fault`: null, or a failure planted in one upload
// (stream_fault.hpp).
template <class T, class After>
bool upload(const opencl::Api& cl, opencl::Staging& st,
            const std::vector<std::vector<Piece<T>>>& stages, After&& after, std::string& error,
            const StreamFault* fault, FeedSeat<T> seat = {}) {
  std::vector<const Piece<T>*> order;
  std::vector<int> stage_of;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    for (const Piece<T>& p : stages[s]) order.push_back(&p), stage_of.push_back(int(s));
  }
  const int count = int(order.size()), slots = int(st.up.size());
  // The staging's slot of each piece, in turn; -1 for a piece the feed copies.
  std::vector<int> own_slot(order.size(), -1);
  for (int c = 0, owned = 0; c < count; ++c) {
    if (order[c]->feed < 0) own_slot[c] = owned++ % slots;
  }
  const auto fill = [&](int c, std::size_t begin, std::size_t end) {
    opencl::PinnedSlot& slot = st.up[own_slot[c]];
    // Failed or not, a transfer that ended has left the slot.
    if (slot.last) cl.WaitForEvents(1, &slot.last);
    pack_part(*order[c], static_cast<T*>(slot.host), begin, end);
  };
  // After `fill`, which its copies call: each group waits for its copies when it ends.
  const std::unique_ptr<device::CopyGroup[]> packed(new device::CopyGroup[order.size()]);
  const auto start = [&](int c) {
    if (own_slot[c] < 0) return;
    device::run_in_parts(packed[c], device::CopyWay::into_staging, elements(*order[c]),
                         copy_parts(*order[c]),
                         [&fill, c](std::size_t begin, std::size_t end) { fill(c, begin, end); });
  };
  for (int c = 0; c < std::min(count, slots - 1); ++c) start(c);
  bool ok = true;
  int next_stage = 0;  // the first stage whose callback has not run
  const auto stages_before = [&](int end) {
    for (; ok && next_stage < end; ++next_stage) {
      if (stages[next_stage].empty()) ok = after(next_stage, cl_event(nullptr));
    }
  };
  for (int c = 0; c < count; ++c) {
    if (ok && c + slots - 1 < count) start(c + slots - 1);
    if (own_slot[c] < 0 || copy_parts(*order[c]) > 0) {
      packed[c].wait();
    } else if (ok) {
      fill(c, 0, elements(*order[c]));  // a small piece, copied here; none once a step failed
    }
    stages_before(stage_of[c]);
    if (!ok) continue;
    const bool fed = own_slot[c] < 0;
    void* const from =
        fed ? const_cast<void*>(seat.feed->take(order[c]->feed)) : st.up[own_slot[c]].host;
    cl_event done = nullptr;
    cl_int r = planted(fault, StreamFault::Step::upload, c);
    if (r == CL_SUCCESS) r = enqueue_move(cl, st.upload, true, *order[c], from, 0, nullptr, &done);
    if (r != CL_SUCCESS) {
      error = "upload failed: " + opencl::error_name(r);
      ok = false;
      continue;
    }
    if (!fed) opencl::hold(cl, st.up[own_slot[c]], done);
    cl.Flush(st.upload);
    if (c + 1 == count || stage_of[c + 1] != stage_of[c]) {
      ok = after(stage_of[c], done);
      next_stage = stage_of[c] + 1;
    }
    if (fed) seat.feed->sent(seat.device, order[c]->feed, done);  // the feed's reference now
  }
  stages_before(int(stages.size()));
  for (int c = 0; c < count; ++c) packed[c].wait();
  if (seat.feed) seat.feed->leave(seat.device);
  return ok;
}

// Downloads the pieces of each stage handed to it into the host, on a
// worker thread where there are several stages, else in finish():
// written[i] becomes 1 once piece i of the flattened list is in host
// memory, which happens only for a transfer that completed. `fault`: null,
// or a failure planted in one download (stream_fault.hpp).
template <class T>
class Download {
 public:
  Download(const opencl::Api& cl, opencl::Staging& st,
           const std::vector<std::vector<Piece<T>>>& stages, const StreamFault* fault)
      : cl_(cl), st_(st), stages_(stages), fault_(fault) {
    for (const auto& s : stages) {
      first_.push_back(int(written_.size()));
      written_.resize(written_.size() + s.size(), 0);
    }
    // Starting a thread costs more than a small call's whole device work:
    // the forced LAPACK suites on PoCL, whose gemm calls are small and of
    // one panel, ran 2.3 times longer with a thread per call.
    if (stages.size() > 1) worker_ = std::thread([this] { run(); });
  }
  Download(const Download&) = delete;
  Download& operator=(const Download&) = delete;
  ~Download() { finish(); }

  // Stage s is produced by the work `ready` ends (this takes its reference).
  void hand(int s, cl_event ready) {
    std::lock_guard<std::mutex> lock(mutex_);
    handed_.push_back({s, ready});
    changed_.notify_one();
  }

  // No more stages: returns once every piece handed over is in host memory
  // or has failed. The reason of a failure in `error`, if any.
  void finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
      changed_.notify_one();
    }
    if (worker_.joinable()) {
      worker_.join();
    } else {
      run();  // on a second finish(), nothing is left to run
    }
  }
  const std::string& error() const { return error_; }
  const std::vector<char>& written() const { return written_; }
  int first(int stage) const { return first_[stage]; }

 private:
  void run() {
    const int slots = int(st_.down.size());
    // Per slot: the copies out of it that are running, the one that waits (a piece below
    // copy_parts' threshold, copied out by this thread when the slot is needed again), and its
    // last download, released once those are done.
    const std::unique_ptr<device::CopyGroup[]> unpacked(new device::CopyGroup[slots]);
    std::vector<std::function<void()>> waiting(static_cast<std::size_t>(slots));
    std::vector<cl_event> arrivals(static_cast<std::size_t>(slots), nullptr);
    const auto empty_slot = [&](int slot) {
      if (waiting[slot]) std::exchange(waiting[slot], nullptr)();
      unpacked[slot].wait();
      if (arrivals[slot]) cl_.ReleaseEvent(std::exchange(arrivals[slot], nullptr));
    };
    int used = 0;
    for (;;) {
      std::pair<int, cl_event> next;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return closed_ || !handed_.empty(); });
        if (handed_.empty()) break;
        next = handed_.front();
        handed_.erase(handed_.begin());
      }
      const std::vector<Piece<T>>& pieces = stages_[next.first];
      for (std::size_t i = 0; i < pieces.size() && error_.empty(); ++i, ++used) {
        const int slot = used % slots;
        empty_slot(slot);
        const int index = first_[next.first] + int(i);
        cl_event arrived = nullptr;
        cl_int r = planted(fault_, StreamFault::Step::download, index);
        if (r == CL_SUCCESS) {
          r = enqueue_move(cl_, st_.download, false, pieces[i], st_.down[slot].host, 1,
                           &next.second, &arrived);
        }
        if (r != CL_SUCCESS) {
          error_ = "download failed: " + opencl::error_name(r);
          break;
        }
        cl_.Flush(st_.download);
        arrivals[slot] = arrived;
        const Piece<T>& piece = pieces[i];
        const auto copy_out = [this, arrived, slot, index, &piece](std::size_t begin,
                                                                   std::size_t end) {
          cl_int status = CL_QUEUED;
          if (cl_.WaitForEvents(1, &arrived) == CL_SUCCESS) {
            cl_.GetEventInfo(arrived, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                             nullptr);
          }
          if (status != CL_COMPLETE) return;
          unpack_part(static_cast<const T*>(st_.down[slot].host), piece, begin, end);
          if (begin == 0) written_[index] = 1;  // read only once finish() has waited for all
        };
        const int parts = copy_parts(piece);
        if (parts == 0) {
          waiting[slot] = [copy_out, &piece] { copy_out(0, elements(piece)); };
        } else {
          device::run_in_parts(unpacked[slot], device::CopyWay::out_of_staging, elements(piece),
                               parts, copy_out);
        }
      }
      if (next.second) cl_.ReleaseEvent(next.second);
    }
    for (int slot = 0; slot < slots; ++slot) empty_slot(slot);
  }

  const opencl::Api& cl_;
  opencl::Staging& st_;
  const std::vector<std::vector<Piece<T>>>& stages_;
  const StreamFault* fault_;
  std::vector<int> first_;
  std::vector<char> written_;
  std::string error_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::pair<int, cl_event>> handed_;
  bool closed_ = false;
  std::thread worker_;
};

}  // namespace switchyard::gemm
