// The CUDA side of the device runtime: the device this process uses, streams, device memory
// from a pool kept across calls, pinned staging buffers, and where a pointer lives. Nothing
// here runs before the first call routed to the GPU; the CUDA runtime is linked statically and
// loads the driver only then, so the library still loads where there is none.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <exception>
#include <string>
#include <vector>

namespace switchyard::cuda {

// Why this process cannot run CUDA work, or null. Probes once.
const char* unavailable();

// The device calls run on: SWITCHYARD_DEVICE (or the MPI local rank) modulo the device count.
int device_ordinal();

// The devices one call may split its work over (SWITCHYARD_DEVICES), each able to run the
// kernels; device_ordinal() alone by default. Probes once.
const std::vector<int>& device_ordinals();

// device_ordinals() once every one of them has started; until then the call's device alone. The
// first ask starts the others on a helper thread (their contexts and staging), so that no call
// waits for, or pays, another device's start.
std::vector<int> started_device_ordinals();

// Makes `ordinal` the calling thread's device; the first time for each device, also makes its
// memory pool keep what calls free.
cudaError_t use_device(int ordinal);

// "cudaErrorMemoryAllocation: out of memory".
std::string describe(cudaError_t status);

// Sets `error` to "what: describe(status)" and returns false, for a failing step of a route.
bool fail(std::string& error, const char* what, cudaError_t status);

// Waits for the work enqueued on `stream`; returns `enqueued` (the status of enqueueing it)
// when that failed, else the work's own.
inline cudaError_t wait(cudaStream_t stream, cudaError_t enqueued) {
  const cudaError_t finished = cudaStreamSynchronize(stream);
  return enqueued == cudaSuccess ? finished : enqueued;
}

// A route's device work, `work()`, with an exception it throws (memory for a host buffer, a
// helper thread that can not start) turned into `error` and false: the call then runs in the
// fallback.
template <class Work>
bool run_guarded(std::string& error, Work&& work) {
  try {
    return work();
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
}

// A stream on a device (the call's, unless named), held by one call; streams are pooled per
// device, created on demand. Its work comes after what the program enqueued on its default
// streams before the call.
class Stream {
 public:
  explicit Stream(int ordinal = device_ordinal());
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaError_t status() const { return status_; }
  cudaStream_t get() const { return stream_; }

 private:
  int ordinal_;
  cudaStream_t stream_ = nullptr;
  cudaError_t status_ = cudaSuccess;
};

// Device memory from the device's pool, ordered on a stream. The pool keeps freed memory for
// the next call instead of returning it to the driver.
class DeviceBuffer {
 public:
  DeviceBuffer(std::size_t bytes, cudaStream_t stream);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  cudaError_t status() const { return status_; }
  void* get() const { return pointer_; }

 private:
  void* pointer_ = nullptr;
  cudaStream_t stream_;
  cudaError_t status_;
};

// A set of pinned host buffers for streaming host data to and from a device (the call's, unless
// named), held by one call; sets are pooled per device and kept for the life of the process. A
// set is pinned whole on its first use: one registration of staging memory
// (staging_memory.hpp), the first set's faulted in while the device started.
class Staging {
 public:
  // Sixteen slots of 4 MiB: fifteen host copies in flight while one slot transfers. Host copies
  // of pageable memory run at about 5 GB/s a thread, so it takes that many to keep up with the
  // link (55 GB/s); and 4 MiB pieces move at 52.6 GB/s, against 54.5 for 16 MiB
  // (`switchyard bench transfers` on the H200 host).
  static constexpr int kSlots = 16;
  static constexpr std::size_t kSlotBytes = std::size_t(4) << 20;
  static constexpr std::size_t kBytes = kSlots * kSlotBytes;
  struct Set;

  // Starts faulting in the first set's memory; the device's start calls it.
  static void prepare();

  explicit Staging(int ordinal = device_ordinal());
  ~Staging();
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  // Pins the set's kSlots slots, once; the error of pinning them.
  cudaError_t pin();
  int count() const;  // slots in the set: the ring size of a transfer through it
  void* slot(int i) const;
  cudaEvent_t event(int i) const;  // recorded after the slot's transfer is enqueued

 private:
  int ordinal_;
  Set* set_ = nullptr;
};

// Whether the GPU can work on p in place (device or managed memory); host memory, pinned or
// not, is streamed.
bool device_accessible(const void* p);

// Whether p is device memory the host cannot read (not managed memory).
bool device_only(const void* p);

// The device to which every page of [p, p + bytes) in managed memory was last prefetched
// (cudaMemPrefetchAsync), else -1: not managed memory, some pages never prefetched or prefetched
// elsewhere, or prefetched to the host.
int prefetched_device(const void* p, std::size_t bytes);

// *p = value, wherever p lives (WORK(1) may be device memory).
template <class T>
cudaError_t store(T* p, T value) {
  if (device_accessible(p)) return cudaMemcpy(p, &value, sizeof(T), cudaMemcpyHostToDevice);
  *p = value;
  return cudaSuccess;
}

}  // namespace switchyard::cuda
