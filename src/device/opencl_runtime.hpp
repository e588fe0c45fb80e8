// The OpenCL device of this process: the ICD loader opened with dlopen (the
// library links no libOpenCL), one device chosen, and its context, queue,
// programs and buffers kept from the first call routed to it until exit.
//
// Nothing starts while the library loads: runtime() starts the device on
// first use. Every failure is reported as a sentence (what failed and the
// OpenCL error name) and leaves the caller's data alone, so that the call can
// run in the fallback.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstddef>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace switchyard::opencl {

// The OpenCL entry points the library uses, resolved from libOpenCL.so.1.
struct Api {
  decltype(&::clGetPlatformIDs) GetPlatformIDs;
  decltype(&::clGetPlatformInfo) GetPlatformInfo;
  decltype(&::clGetDeviceIDs) GetDeviceIDs;
  decltype(&::clGetDeviceInfo) GetDeviceInfo;
  decltype(&::clCreateContext) CreateContext;
  decltype(&::clCreateCommandQueue) CreateCommandQueue;
  decltype(&::clCreateBuffer) CreateBuffer;
  decltype(&::clReleaseMemObject) ReleaseMemObject;
  decltype(&::clCreateProgramWithSource) CreateProgramWithSource;
  decltype(&::clCreateProgramWithBinary) CreateProgramWithBinary;
  decltype(&::clBuildProgram) BuildProgram;
  decltype(&::clGetProgramBuildInfo) GetProgramBuildInfo;
  decltype(&::clGetProgramInfo) GetProgramInfo;
  decltype(&::clReleaseProgram) ReleaseProgram;
  decltype(&::clCreateKernel) CreateKernel;
  decltype(&::clReleaseKernel) ReleaseKernel;
  decltype(&::clSetKernelArg) SetKernelArg;
  decltype(&::clEnqueueNDRangeKernel) EnqueueNDRangeKernel;
  decltype(&::clEnqueueWriteBufferRect) EnqueueWriteBufferRect;
  decltype(&::clEnqueueReadBufferRect) EnqueueReadBufferRect;
  decltype(&::clEnqueueWriteBuffer) EnqueueWriteBuffer;
  decltype(&::clEnqueueReadBuffer) EnqueueReadBuffer;
  decltype(&::clEnqueueFillBuffer) EnqueueFillBuffer;
  decltype(&::clEnqueueMapBuffer) EnqueueMapBuffer;
  decltype(&::clEnqueueBarrierWithWaitList) EnqueueBarrierWithWaitList;
  decltype(&::clEnqueueMarkerWithWaitList) EnqueueMarkerWithWaitList;
  decltype(&::clFlush) Flush;
  decltype(&::clFinish) Finish;
  decltype(&::clWaitForEvents) WaitForEvents;
  decltype(&::clReleaseEvent) ReleaseEvent;
  decltype(&::clGetEventProfilingInfo) GetEventProfilingInfo;
  decltype(&::clGetEventInfo) GetEventInfo;
};

// The loaded entry points, or null with the reason in `why`.
const Api* api(std::string& why);

// "CL_OUT_OF_RESOURCES (-5)".
std::string error_name(cl_int code);

struct DeviceInfo {
  int index = -1;           // position in the list of every device of every platform
  std::string platform;     // platform name
  std::string name;         // device name
  std::string vendor;
  int nv_compute_capability = 0;  // 90 for sm_90 on NVIDIA devices, else 0
  std::string driver;       // driver version
  bool is_gpu = false;
  bool has_fp64 = false;
  std::size_t max_work_group = 0;
  std::size_t local_memory = 0;   // bytes
  int compute_units = 0;          // CL_DEVICE_MAX_COMPUTE_UNITS: SMs on NVIDIA, cores on PoCL
  int max_clock_mhz = 0;          // CL_DEVICE_MAX_CLOCK_FREQUENCY
  unsigned long long global_memory = 0;
  unsigned long long max_allocation = 0;
};

// Whether an OpenCL GPU can be present, found without loading OpenCL: false when every
// platform the ICD loader would load is PoCL, whose devices are the host's cores (unless an
// NVIDIA driver is present for PoCL's CUDA device), or there is none. Loading PoCL to learn
// that costs tens of milliseconds (its LLVM), which a program on a machine without a GPU
// would pay at its first large gemm.
bool gpu_possible();

// The rule itself: the ICD files (*.icd, each naming a library) in `vendors` allow a GPU unless
// all of them name PoCL and there is no NVIDIA driver. A `vendors` that is not a folder allows
// one when a variable `named` it (a loader configured otherwise), and not when it is the
// default folder, missing (no platform at all).
bool icds_allow_gpu(const std::filesystem::path& vendors, bool named, bool nvidia_driver);

// Every device of every platform, in the order SWITCHYARD_OPENCL_DEVICE
// numbers them, or empty with the reason in `why`.
std::vector<DeviceInfo> list_devices(std::string& why);

// The index of the device `choice` names in `devices`: a number, a part of a
// device or platform name ("NVIDIA", "pthread"), or "" for the first GPU and
// else the first device. -1 when nothing matches.
int choose_device(const std::vector<DeviceInfo>& devices, const std::string& choice);

class Runtime;

// A device buffer taken from a runtime's pool; released back to it on destruction.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : owner_(o.owner_), mem_(o.mem_), bytes_(o.bytes_) {
    o.mem_ = nullptr;
  }
  Buffer& operator=(Buffer&& o) noexcept;
  ~Buffer();
  cl_mem get() const { return mem_; }
  std::size_t bytes() const { return bytes_; }

 private:
  friend class Runtime;
  Buffer(Runtime* owner, cl_mem mem, std::size_t bytes) : owner_(owner), mem_(mem), bytes_(bytes) {}
  Runtime* owner_ = nullptr;  // the runtime whose pool it goes back to
  cl_mem mem_ = nullptr;
  std::size_t bytes_ = 0;
};

class Runtime {
 public:
  const Api& cl() const { return *api_; }
  const DeviceInfo& device() const { return info_; }
  cl_device_id device_id() const { return device_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }

  // A buffer of at least `bytes`, reused from earlier calls when one fits;
  // an empty Buffer with the reason in `error` when the device has no room.
  Buffer acquire(std::size_t bytes, std::string& error);

  // Builds `source` for this device, through the on-disk binary cache.
  // Null with the compiler's log in `error` when it does not build.
  cl_program build(const std::string& source, const std::string& options, std::string& error);

  // Returns a pooled buffer (Buffer's destructor calls it).
  void give_back(cl_mem mem, std::size_t bytes);

 private:
  friend Runtime* runtime(const char** why);
  friend std::vector<Runtime*> split_runtimes(std::string& why);
  Runtime() = default;
  bool start(std::string& why);
  // Its context and queue on `device`.
  bool open(const DeviceInfo& info, cl_device_id device, std::string& why);

  const Api* api_ = nullptr;
  DeviceInfo info_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;

  struct Free {
    cl_mem mem;
    std::size_t bytes;
  };
  std::mutex pool_mutex_;
  std::vector<Free> free_;
  std::size_t free_bytes_ = 0;
};

// The process's OpenCL runtime, started on first use; null with the reason
// (kept for the life of the process) in `*why` when no device can run. The
// OpenCL family's start (device/startup.hpp) begins here and ends once the
// route's first program is made (opencl_route::kernels).
Runtime* runtime(const char** why);

// The runtime if its context is up, else null; never starts it or waits for it.
Runtime* started_runtime();

// The runtimes one call may split its work over, one for each entry of SWITCHYARD_DEVICES in
// its order. Entry i runs on ordinal devices[i], modulo their count, of the devices of
// runtime()'s platform that have its device's name (a split shares the work evenly, so only
// devices alike take part). The first entry on runtime()'s own device is runtime() itself;
// every other entry is a runtime of its own, context and queue made here on the first call, so
// that a repeated ordinal is a second context on the same device (how the tests split over one
// device). Empty, the reason in `why`, with fewer than two entries or when one can not start;
// the same list on every later call.
std::vector<Runtime*> split_runtimes(std::string& why);

}  // namespace switchyard::opencl
