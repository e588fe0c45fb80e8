// Pinned slots that every device of a split call can move to itself: an operand that every
// device reads (op(B) when C is cut along its rows) is copied from pageable memory into them
// once and sent from there to each device, instead of once per device into each device's own
// staging (opencl_staging.hpp). The host's copies, not the links, set the pace of a split call
// from pageable memory (docs/multi-gpu.md). On two H200s of one host, device 1 took 2 GiB from
// slots pinned in device 0's context, which its own context had also made a
// CL_MEM_USE_HOST_PTR buffer, at 53.2 GB/s, as fast as from its own slots, and both devices
// together took the same slots at 99.5 GB/s (`SWITCHYARD_DEVICES=all switchyard bench
// transfers`). Eight slots of 16 MiB split dgemm 16384^3 as fast as sixteen (152-153 ms).
//
// Made once for the runtimes of SWITCHYARD_DEVICES, kept until exit like them.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"

namespace switchyard::opencl {

class SharedStaging {
 public:
  static constexpr std::size_t kSlotBytes = std::size_t(16) << 20;
  static constexpr int kSlots = 8;

  std::vector<void*> slots;  // page-locked in every context of the runtimes it was made for
  // One split call at a time owns the slots.
  std::mutex busy;

 private:
  friend SharedStaging* shared_staging(const std::vector<Runtime*>& runtimes, std::string& error);
  bool start(const std::vector<Runtime*>& runtimes, std::string& error);
};

// The shared staging of `runtimes` (the same list every time: the runtimes of
// SWITCHYARD_DEVICES), made on first use; null when a context does not take the memory as its
// own, the reason in `error` the first time (and for good: the calls copy for each device).
SharedStaging* shared_staging(const std::vector<Runtime*>& runtimes, std::string& error);

}  // namespace switchyard::opencl
