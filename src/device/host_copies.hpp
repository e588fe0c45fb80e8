// The helper threads that copy between a caller's pageable memory and pinned staging while
// earlier pieces are in flight (row_streaming.hpp).
//
// Pageable memory can not be copied to the device asynchronously, so a streamed call's host
// copies set how soon its first transfer starts and how soon its last piece is back. One thread
// copies pageable memory at about 5 GB/s, so a 4 MiB slot filled by one thread kept the link
// (55 GB/s) waiting for 0.4-0.8 ms at each end of every call; split over eight threads it
// fills in 0.08 ms (nvidia-h200's host). The threads start at the first streamed call, not when
// the library loads, and stay for the life of the process; a fork() child that streams starts
// its own (it streams only if its parent never did: a device started before fork() is not the
// child's to use).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>

namespace switchyard::device {

// Copies that a caller waits for together.
class CopyGroup {
 public:
  CopyGroup() = default;
  CopyGroup(const CopyGroup&) = delete;
  CopyGroup& operator=(const CopyGroup&) = delete;
  ~CopyGroup() { wait(); }

  // Returns once every copy added to the group has run.
  void wait();

 private:
  friend class CopyTeam;
  std::mutex mutex_;
  std::condition_variable done_;
  int pending_ = 0;
};

// Which way a copy goes. A copy out of a staging slot waits for the transfer into the slot,
// which waits for the device's work on the data, and may hold its thread that long; copies into
// slots, which wait only for a slot's last transfer to leave it, have threads of their own, so
// that a call's uploads never queue behind its downloads (or another call's).
enum class CopyWay { into_staging, out_of_staging };

// Runs `copy` on a helper thread of `way` as part of `group`, or on the calling thread where no
// helper thread could be started. Copies of one way run in the order they were added; one may
// block only on work already enqueued on a device, never on a copy added after it.
void run_copy(CopyGroup& group, CopyWay way, std::function<void()> copy);

// The parts a host copy of `bytes` is split into: pieces of at least 512 KiB, at most one a
// helper thread, and at least one.
int copy_parts(std::size_t bytes);

// Runs copy(begin, end) over [0, count) in `parts` consecutive parts, each by run_copy.
template <class Copy>
void run_in_parts(CopyGroup& group, CopyWay way, std::size_t count, int parts, Copy copy) {
  for (int k = 0; k < parts; ++k) {
    const std::size_t begin = count * std::size_t(k) / std::size_t(parts);
    const std::size_t end = count * std::size_t(k + 1) / std::size_t(parts);
    run_copy(group, way, [copy, begin, end] { copy(begin, end); });
  }
}

// How many helper threads copy each way: the cores the calling thread may run on but one, at
// least 2 (and at most 64). Calls streaming to several devices at once share them, and the host's
// copies set their pace: on nvidia-h200-x2's host, 15 threads copied pageable memory at 52 GB/s and
// 30 at 68.
int copy_threads();

}  // namespace switchyard::device
