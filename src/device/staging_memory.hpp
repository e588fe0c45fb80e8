// Host memory for pinned staging, its pages faulted in before it is pinned.
//
// Pinning fresh memory costs mostly the faulting in of its pages. On the H200 host (a virtual
// machine whose memory is backed as it is first touched), `switchyard bench transfers` measured
// 64 MiB faulted in at 47 ms with 4 KiB pages and 15 ms with transparent huge pages, then
// registered with the CUDA driver in 4.3 and 1.8 ms, where cudaMallocHost of the same 64 MiB
// took 36 ms (and of 16 x 16 MiB, 149-213 ms). So each device family's first staging is mapped
// and faulted in on a helper thread while the family's driver and context start (over 300 ms),
// and the call that starts the device pays only the registration.
#pragma once

#include <cstddef>

#include "device/startup.hpp"

namespace switchyard::device {

// Fresh anonymous memory, aligned to 2 MiB with huge pages asked for, every page faulted in.
// Unmapped on destruction unless released.
class StagingMemory {
 public:
  StagingMemory() = default;
  // Empty (get() null) when the memory can not be mapped.
  explicit StagingMemory(std::size_t bytes);
  ~StagingMemory();
  StagingMemory(StagingMemory&& o) noexcept;
  StagingMemory& operator=(StagingMemory&& o) noexcept;
  StagingMemory(const StagingMemory&) = delete;
  StagingMemory& operator=(const StagingMemory&) = delete;

  void* get() const { return memory_; }
  std::size_t bytes() const { return bytes_; }
  // Hands the memory over for good: it is never unmapped (pinned memory stays until exit).
  void* release();

 private:
  void* mapping_ = nullptr;  // what was mapped, alignment included
  std::size_t mapped_ = 0;
  void* memory_ = nullptr;
  std::size_t bytes_ = 0;
};

// Starts making `bytes` of staging memory for `f` on a helper thread (once per family; the
// device's start calls it before its driver starts).
void prepare_staging(Family f, std::size_t bytes);

// The memory prepare_staging made for `f`, once it is ready; when there is none (never
// prepared, taken already, or of another size), memory made now.
StagingMemory take_staging(Family f, std::size_t bytes);

}  // namespace switchyard::device
