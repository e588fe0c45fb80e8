// What streaming host operands through the OpenCL device needs beside the
// runtime's own queue (which runs the kernels): one queue for uploads, one
// for downloads, so that both directions of the link and the kernels run at
// once; and pinned host slots the transfers go through. Pageable memory can
// not be copied by the device's DMA engines, so host threads copy between it
// and the slots while earlier slots are in flight. The slots are buffers made
// with CL_MEM_ALLOC_HOST_PTR and mapped once: NVIDIA's OpenCL backs them with
// page-locked memory, and a transfer from or to their mapped pointer runs at
// the link's pinned rate.
//
// Made on the first streamed call and kept until exit, like the runtime.
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
  static constexpr std::size_t kSlotBytes = std::size_t(16) << 20;
  // Uploads keep kUploadSlots - 1 host copies ahead of the transfers; 16 MiB
  // pieces keep each transfer's fixed cost below 2% of it.
  static constexpr int kUploadSlots = 8, kDownloadSlots = 8;

  cl_command_queue upload = nullptr, download = nullptr;
  std::vector<PinnedSlot> up, down;
  // One streamed call at a time owns the queues and slots.
  std::mutex busy;

 private:
  friend Staging* staging(Runtime& rt, std::string& error);
  bool start(Runtime& rt, std::string& error);
  std::vector<cl_mem> buffers_;
};

// The staging of `rt`'s device, made on first use; null with the reason in
// `error` when it can not be made (then it is tried again on the next call).
Staging* staging(Runtime& rt, std::string& error);

// Replaces `slot.last` by `event` (which the slot now holds a reference to).
void hold(const Api& cl, PinnedSlot& slot, cl_event event);

}  // namespace switchyard::opencl
