// What streaming host operands through the OpenCL device needs beside the
// runtime's own queue (which runs the kernels): one queue for uploads, one
// for downloads, so that both directions of the link and the kernels run at
// once; and pinned host slots the transfers go through. Pageable memory can
// not be copied by the device's DMA engines, so host threads copy between it
// and the slots while earlier slots are in flight. The slots lie in staging
// memory (staging_memory.hpp) faulted in while the device started, made one
// CL_MEM_USE_HOST_PTR buffer and mapped once: NVIDIA's OpenCL pins such
// memory, and a transfer from or to a pointer into it runs at the link's
// pinned rate (52.1 GB/s from 4 MiB pieces on the H200, `switchyard bench
// transfers`, where a fresh CL_MEM_ALLOC_HOST_PTR buffer costs as much to pin
// as cudaMallocHost).
//
// Made on a runtime's first streamed call and kept until exit, like the runtime.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"

namespace switchyard::opencl {

struct PinnedSlot {
  void* host = nullptr;      // the mapped, page-locked memory
  cl_event last = nullptr;   // the last transfer that used it, or null
};

class Staging {
 public:
  // Uploads keep kUploadSlots - 1 host copies ahead of the transfers: host
  // copies of pageable memory run at about 5 GB/s a thread, so it takes that
  // many to keep up with the link (55 GB/s); 4 MiB pieces move at 52.6 GB/s,
  // against 53.8 for 16 MiB (`switchyard bench transfers` on the H200 host).
  static constexpr std::size_t kSlotBytes = std::size_t(4) << 20;
  static constexpr int kUploadSlots = 16, kDownloadSlots = 16;
  static constexpr std::size_t kBytes = (kUploadSlots + kDownloadSlots) * kSlotBytes;

  // Starts faulting in the staging's memory; the device's start calls it.
  static void prepare();

  cl_command_queue upload = nullptr, download = nullptr;
  std::vector<PinnedSlot> up, down;
  // One streamed call at a time owns the queues and slots.
  std::mutex busy;

 private:
  friend Staging* staging(Runtime& rt, std::string& error);
  bool start(Runtime& rt, std::string& error);
  cl_mem pinned_ = nullptr;
};

// The staging of the runtime `rt` (each runtime has its own), made on first use; null with the
// reason in `error` when it can not be made (then it is tried again on the next call).
Staging* staging(Runtime& rt, std::string& error);

// Replaces `slot.last` by `event` (which the slot now holds a reference to).
void hold(const Api& cl, PinnedSlot& slot, cl_event event);

}  // namespace switchyard::opencl
