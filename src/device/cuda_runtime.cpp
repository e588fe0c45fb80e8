#include "device/cuda_runtime.hpp"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "build_info.hpp"
#include "config.hpp"
#include "device/probe.hpp"
#include "device/staging_memory.hpp"
#include "device/startup.hpp"
#include "kernel_image.hpp"

namespace switchyard::cuda {
namespace {

// Pools of objects created on demand and never destroyed: a process may call from any number
// of threads, and CUDA objects must not be destroyed after the runtime has shut down at exit.
template <class T>
class Pool {
 public:
  bool take(T& item) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return false;
    item = free_.back();
    free_.pop_back();
    return true;
  }
  void give(const T& item) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(item);
  }

 private:
  std::mutex mutex_;
  std::vector<T> free_;
};

// One pool per device, made on its first use.
template <class T>
Pool<T>& pool_of(int ordinal) {
  static std::mutex mutex;
  static auto* pools = new std::map<int, Pool<T>*>;
  std::lock_guard<std::mutex> lock(mutex);
  Pool<T>*& pool = (*pools)[ordinal];
  if (!pool) pool = new Pool<T>;
  return *pool;
}

}  // namespace

cudaError_t use_device(int ordinal) {
  static std::mutex mutex;
  static auto* prepared = new std::map<int, cudaError_t>;
  cudaError_t status = cudaSetDevice(ordinal);
  if (status != cudaSuccess) return status;
  std::lock_guard<std::mutex> lock(mutex);
  const auto found = prepared->find(ordinal);
  if (found != prepared->end()) return found->second;
  cudaMemPool_t pool;
  status = cudaDeviceGetDefaultMemPool(&pool, ordinal);
  std::uint64_t keep_everything = UINT64_MAX;
  if (status == cudaSuccess) {
    status = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything);
  }
  (*prepared)[ordinal] = status;
  return status;
}

namespace {

// Why the kernels cannot run on the selected device, or empty: they need sm_80 (cp.async, FP64
// mma), and this build's code for the device's architecture or PTX it can compile.
std::string unsupported_device(const CudaDevice& d) {
  const std::string which = "CUDA device " + std::to_string(d.ordinal) + " (" + d.name + ", sm_" +
                            std::to_string(d.major) + std::to_string(d.minor) + ")";
  if (d.major < 8) return which + ": the CUDA routes need compute capability 8.0 or later";
  const cudaError_t image = kernels::kernel_image_status();
  if (image == cudaSuccess) return "";
  return which + ": " + describe(image) + "; this build holds CUDA code for " +
         cuda_architectures + " (rebuild with -DCMAKE_CUDA_ARCHITECTURES naming " +
         std::to_string(d.major) + std::to_string(d.minor) + ")";
}

}  // namespace

const char* unavailable() {
  // The whole start, timed: the driver, then the context, which the first call would otherwise
  // create inside its first allocation; meanwhile the first staging's memory is faulted in.
  // Never destroyed, as what it reads below: a start in the background may still be on its way
  // when the process exits.
  static const std::string& why = *new std::string([] {
    device::begin_start(device::Family::cuda);
    const std::string failure = [] {
      {
        const device::Phase timed(device::Family::cuda, "driver");
        const DeviceProbe& probe = probe_cuda_devices();
        if (probe.cuda.empty()) return probe.cuda_absent;
      }
      Staging::prepare();
      const device::Phase timed(device::Family::cuda, "context");
      int count = 0;
      cudaError_t status = cudaGetDeviceCount(&count);
      if (status != cudaSuccess) return "CUDA runtime: " + describe(status);
      if (count == 0) return std::string("no CUDA device");
      status = use_device(device_ordinal());
      if (status == cudaSuccess) status = cudaFree(nullptr);
      if (status != cudaSuccess) return "CUDA context: " + describe(status);
      return unsupported_device(probe_cuda_devices().cuda[std::size_t(device_ordinal())]);
    }();
    device::end_start(device::Family::cuda, failure.empty());
    return failure;
  }());
  return why.empty() ? nullptr : why.c_str();
}

int device_ordinal() {
  const int count = int(probe_cuda_devices().cuda.size());
  return count > 0 ? config().device % count : 0;
}

const std::vector<int>& device_ordinals() {
  static const std::vector<int>& ordinals = *new std::vector<int>([] {
    const std::vector<CudaDevice>& present = probe_cuda_devices().cuda;
    const int count = int(present.size());
    std::vector<int> listed = config().devices;
    if (config().all_devices) {
      for (int d = 0; d < count; ++d) listed.push_back(d);
    }
    std::vector<int> usable;
    for (int d : listed) {
      if (count > 0 && present[std::size_t(d % count)].major >= 8) usable.push_back(d % count);
    }
    if (usable.empty()) usable.push_back(device_ordinal());
    return usable;
  }());
  return ordinals;
}

std::vector<int> started_device_ordinals() {
  static std::atomic<bool> started{false};
  static std::once_flag once;
  const std::vector<int>& all = device_ordinals();
  if (all.size() < 2) return all;
  std::call_once(once, [&all] {
    const auto start_others = [&all] {
      for (int ordinal : all) {
        if (ordinal == device_ordinal()) continue;
        if (use_device(ordinal) != cudaSuccess || cudaFree(nullptr) != cudaSuccess ||
            Staging(ordinal).pin() != cudaSuccess) {
          return;  // calls stay on one device
        }
      }
      started = true;
    };
    device::start_detached(start_others);  // without a thread to spare, calls stay on one device
  });
  return started ? all : std::vector<int>{device_ordinal()};
}

std::string describe(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

bool fail(std::string& error, const char* what, cudaError_t status) {
  error = std::string(what) + ": " + describe(status);
  return false;
}

namespace {

// Orders `stream` after the work the program has enqueued so far on its default streams
// (the legacy one, and the calling thread's per-thread one). A cudaMemcpy from pageable memory
// into a matrix that a call then works on in place returns before its data has landed, and a
// non-blocking stream would not wait for it.
cudaError_t follow_default_streams(cudaStream_t stream) {
  cudaEvent_t enqueued;
  cudaError_t status = cudaEventCreateWithFlags(&enqueued, cudaEventDisableTiming);
  if (status != cudaSuccess) return status;
  for (cudaStream_t program : {cudaStreamLegacy, cudaStreamPerThread}) {
    if (status == cudaSuccess) status = cudaEventRecord(enqueued, program);
    if (status == cudaSuccess) status = cudaStreamWaitEvent(stream, enqueued, 0);
  }
  cudaEventDestroy(enqueued);  // the waits already enqueued keep what they need
  return status;
}

}  // namespace

Stream::Stream(int ordinal) : ordinal_(ordinal) {
  status_ = use_device(ordinal);
  if (status_ != cudaSuccess) return;
  if (!pool_of<cudaStream_t>(ordinal).take(stream_)) {
    // Non-blocking: the program's later work on its default stream is not held up by
    // Switchyard's, which every call finishes before it returns anyway.
    status_ = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    if (status_ != cudaSuccess) {
      stream_ = nullptr;
      return;
    }
  }
  status_ = follow_default_streams(stream_);
}

Stream::~Stream() {
  if (stream_) pool_of<cudaStream_t>(ordinal_).give(stream_);
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
  status_ = cudaMallocAsync(&pointer_, bytes ? bytes : 1, stream);
  if (status_ != cudaSuccess) pointer_ = nullptr;
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer_) cudaFreeAsync(pointer_, stream_);
}

struct Staging::Set {
  int count = 0;
  void* slots[kSlots];
  cudaEvent_t events[kSlots];
};

void Staging::prepare() { device::prepare_staging(device::Family::cuda, kBytes); }

Staging::Staging(int ordinal) : ordinal_(ordinal) {
  if (!pool_of<Set*>(ordinal).take(set_)) set_ = new Set{};
}

Staging::~Staging() { pool_of<Set*>(ordinal_).give(set_); }

cudaError_t Staging::pin() {
  if (set_->count > 0) return cudaSuccess;
  cudaError_t status = use_device(ordinal_);
  if (status != cudaSuccess) return status;
  const device::Phase timed(device::Family::cuda, "pinned staging");
  for (int i = 0; i < kSlots; ++i) {
    status = cudaEventCreateWithFlags(&set_->events[i], cudaEventDisableTiming);
    if (status != cudaSuccess) {
      for (int j = 0; j < i; ++j) cudaEventDestroy(set_->events[j]);
      return status;
    }
  }
  device::StagingMemory memory = device::take_staging(device::Family::cuda, kBytes);
  char* base = static_cast<char*>(memory.get());
  status = base ? cudaHostRegister(base, kBytes, cudaHostRegisterPortable)
                : cudaErrorMemoryAllocation;
  if (status == cudaSuccess) {
    memory.release();  // pinned until exit, as the set is kept
  } else {
    // Where the driver can not register host memory, it can still allocate it pinned.
    cudaGetLastError();
    void* allocated = nullptr;
    status = cudaMallocHost(&allocated, kBytes);
    base = static_cast<char*>(allocated);
  }
  if (status != cudaSuccess) {
    for (cudaEvent_t e : set_->events) cudaEventDestroy(e);
    return status;
  }
  for (int i = 0; i < kSlots; ++i) set_->slots[i] = base + i * kSlotBytes;
  set_->count = kSlots;
  return cudaSuccess;
}

int Staging::count() const { return set_->count; }
void* Staging::slot(int i) const { return set_->slots[i]; }
cudaEvent_t Staging::event(int i) const { return set_->events[i]; }

bool device_accessible(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();  // unregistered host memory reports an error on some versions
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

bool device_only(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice;
}

int prefetched_device(const void* p, std::size_t bytes) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  int location = cudaInvalidDeviceId;
  if (attributes.type != cudaMemoryTypeManaged ||
      cudaMemRangeGetAttribute(&location, sizeof location,
                               cudaMemRangeAttributeLastPrefetchLocation, p, bytes) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return location >= 0 ? location : -1;
}

}  // namespace switchyard::cuda
