#include "device/opencl_runtime.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "config.hpp"
#include "device/opencl_staging.hpp"
#include "device/program_cache.hpp"
#include "device/startup.hpp"

namespace switchyard::opencl {
namespace {

// Pooled buffers kept free for later calls, at most this many bytes; a
// larger free total releases the oldest first.
constexpr std::size_t kPoolKeepBytes = std::size_t(4) << 30;

template <class Fn>
bool resolve(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

const Api* load_api(std::string& why) {
  static Api table;
  static std::string& failure = *new std::string;  // never destroyed, as the runtime
  static const bool loaded = [] {
    void* lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      failure = "no OpenCL ICD loader (libOpenCL.so.1 not found)";
      return false;
    }
    Api& a = table;
    const bool all =
        resolve(lib, "clGetPlatformIDs", a.GetPlatformIDs) &&
        resolve(lib, "clGetPlatformInfo", a.GetPlatformInfo) &&
        resolve(lib, "clGetDeviceIDs", a.GetDeviceIDs) &&
        resolve(lib, "clGetDeviceInfo", a.GetDeviceInfo) &&
        resolve(lib, "clCreateContext", a.CreateContext) &&
        resolve(lib, "clCreateCommandQueue", a.CreateCommandQueue) &&
        resolve(lib, "clCreateBuffer", a.CreateBuffer) &&
        resolve(lib, "clReleaseMemObject", a.ReleaseMemObject) &&
        resolve(lib, "clCreateProgramWithSource", a.CreateProgramWithSource) &&
        resolve(lib, "clCreateProgramWithBinary", a.CreateProgramWithBinary) &&
        resolve(lib, "clBuildProgram", a.BuildProgram) &&
        resolve(lib, "clGetProgramBuildInfo", a.GetProgramBuildInfo) &&
        resolve(lib, "clGetProgramInfo", a.GetProgramInfo) &&
        resolve(lib, "clReleaseProgram", a.ReleaseProgram) &&
        resolve(lib, "clCreateKernel", a.CreateKernel) &&
        resolve(lib, "clReleaseKernel", a.ReleaseKernel) &&
        resolve(lib, "clSetKernelArg", a.SetKernelArg) &&
        resolve(lib, "clEnqueueNDRangeKernel", a.EnqueueNDRangeKernel) &&
        resolve(lib, "clEnqueueWriteBufferRect", a.EnqueueWriteBufferRect) &&
        resolve(lib, "clEnqueueReadBufferRect", a.EnqueueReadBufferRect) &&
        resolve(lib, "clEnqueueWriteBuffer", a.EnqueueWriteBuffer) &&
        resolve(lib, "clEnqueueReadBuffer", a.EnqueueReadBuffer) &&
        resolve(lib, "clEnqueueFillBuffer", a.EnqueueFillBuffer) &&
        resolve(lib, "clEnqueueMapBuffer", a.EnqueueMapBuffer) &&
        resolve(lib, "clEnqueueBarrierWithWaitList", a.EnqueueBarrierWithWaitList) &&
        resolve(lib, "clEnqueueMarkerWithWaitList", a.EnqueueMarkerWithWaitList) &&
        resolve(lib, "clFlush", a.Flush) &&
        resolve(lib, "clFinish", a.Finish) &&
        resolve(lib, "clWaitForEvents", a.WaitForEvents) &&
        resolve(lib, "clReleaseEvent", a.ReleaseEvent) &&
        resolve(lib, "clGetEventProfilingInfo", a.GetEventProfilingInfo) &&
        resolve(lib, "clGetEventInfo", a.GetEventInfo);
    if (!all) failure = "the OpenCL loader lacks OpenCL 1.2 entry points";
    return all;
  }();
  why = failure;
  return loaded ? &table : nullptr;
}

std::string device_string(const Api& cl, cl_device_id d, cl_device_info what) {
  char text[512] = "";
  cl.GetDeviceInfo(d, what, sizeof text - 1, text, nullptr);
  return text;
}

template <class V>
V device_value(const Api& cl, cl_device_id d, cl_device_info what) {
  V v{};
  cl.GetDeviceInfo(d, what, sizeof v, &v, nullptr);
  return v;
}

// The compute capability (90 for sm_90) of an NVIDIA device, from cl_nv_device_attribute_query
// (CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, _MINOR_NV); 0 for other devices, which reject the query.
int nv_compute_capability(const Api& cl, cl_device_id d, const std::string& vendor) {
  if (vendor.find("NVIDIA") == std::string::npos) return 0;
  cl_uint major = 0, minor = 0;
  if (cl.GetDeviceInfo(d, 0x4000, sizeof major, &major, nullptr) != CL_SUCCESS ||
      cl.GetDeviceInfo(d, 0x4001, sizeof minor, &minor, nullptr) != CL_SUCCESS) {
    return 0;
  }
  return int(major * 10 + minor);
}

// Every device of every platform, with their ids, in a fixed order.
std::vector<DeviceInfo> enumerate(const Api& cl, std::vector<cl_device_id>* ids,
                                  std::string& why) {
  std::vector<DeviceInfo> devices;
  cl_uint n = 0;
  cl_int r = cl.GetPlatformIDs(0, nullptr, &n);
  if (r == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (r == CL_SUCCESS && n == 0)) {
    why = "no OpenCL platform installed (no ICD in /etc/OpenCL/vendors)";
    return devices;
  }
  if (r != CL_SUCCESS) {
    why = "clGetPlatformIDs failed: " + error_name(r);
    return devices;
  }
  std::vector<cl_platform_id> platforms(n);
  cl.GetPlatformIDs(n, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    char platform_name[256] = "";
    cl.GetPlatformInfo(p, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name, nullptr);
    cl_uint count = 0;
    if (cl.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS) continue;
    std::vector<cl_device_id> found(count);
    cl.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, count, found.data(), nullptr);
    for (cl_device_id d : found) {
      DeviceInfo info;
      info.index = int(devices.size());
      info.platform = platform_name;
      info.name = device_string(cl, d, CL_DEVICE_NAME);
      info.vendor = device_string(cl, d, CL_DEVICE_VENDOR);
      info.nv_compute_capability = nv_compute_capability(cl, d, info.vendor);
      info.driver = device_string(cl, d, CL_DRIVER_VERSION);
      info.is_gpu = (device_value<cl_device_type>(cl, d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
      info.has_fp64 = device_value<cl_device_fp_config>(cl, d, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
      info.max_work_group = device_value<std::size_t>(cl, d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
      info.local_memory = std::size_t(device_value<cl_ulong>(cl, d, CL_DEVICE_LOCAL_MEM_SIZE));
      info.compute_units = int(device_value<cl_uint>(cl, d, CL_DEVICE_MAX_COMPUTE_UNITS));
      info.max_clock_mhz = int(device_value<cl_uint>(cl, d, CL_DEVICE_MAX_CLOCK_FREQUENCY));
      info.global_memory = device_value<cl_ulong>(cl, d, CL_DEVICE_GLOBAL_MEM_SIZE);
      info.max_allocation = device_value<cl_ulong>(cl, d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
      devices.push_back(info);
      if (ids) ids->push_back(d);
    }
  }
  if (devices.empty()) why = "the OpenCL platforms have no devices";
  return devices;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The runtime once its context is up, for started_runtime().
std::atomic<Runtime*> context_up{nullptr};

}  // namespace

const Api* api(std::string& why) { return load_api(why); }

std::string error_name(cl_int code) {
  const char* name = "unknown OpenCL error";
  switch (code) {
    case CL_DEVICE_NOT_FOUND: name = "CL_DEVICE_NOT_FOUND"; break;
    case CL_DEVICE_NOT_AVAILABLE: name = "CL_DEVICE_NOT_AVAILABLE"; break;
    case CL_COMPILER_NOT_AVAILABLE: name = "CL_COMPILER_NOT_AVAILABLE"; break;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: name = "CL_MEM_OBJECT_ALLOCATION_FAILURE"; break;
    case CL_OUT_OF_RESOURCES: name = "CL_OUT_OF_RESOURCES"; break;
    case CL_OUT_OF_HOST_MEMORY: name = "CL_OUT_OF_HOST_MEMORY"; break;
    case CL_BUILD_PROGRAM_FAILURE: name = "CL_BUILD_PROGRAM_FAILURE"; break;
    case CL_INVALID_VALUE: name = "CL_INVALID_VALUE"; break;
    case CL_INVALID_BINARY: name = "CL_INVALID_BINARY"; break;
    case CL_INVALID_BUFFER_SIZE: name = "CL_INVALID_BUFFER_SIZE"; break;
    case CL_INVALID_KERNEL_ARGS: name = "CL_INVALID_KERNEL_ARGS"; break;
    case CL_INVALID_WORK_GROUP_SIZE: name = "CL_INVALID_WORK_GROUP_SIZE"; break;
    case CL_INVALID_WORK_ITEM_SIZE: name = "CL_INVALID_WORK_ITEM_SIZE"; break;
    case CL_INVALID_GLOBAL_WORK_SIZE: name = "CL_INVALID_GLOBAL_WORK_SIZE"; break;
    case CL_INVALID_MEM_OBJECT: name = "CL_INVALID_MEM_OBJECT"; break;
    case CL_INVALID_OPERATION: name = "CL_INVALID_OPERATION"; break;
    case CL_INVALID_KERNEL_NAME: name = "CL_INVALID_KERNEL_NAME"; break;
    case CL_INVALID_ARG_SIZE: name = "CL_INVALID_ARG_SIZE"; break;
    case CL_INVALID_COMMAND_QUEUE: name = "CL_INVALID_COMMAND_QUEUE"; break;
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
      name = "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
      break;
    default: break;
  }
  return std::string(name) + " (" + std::to_string(code) + ")";
}

bool icds_allow_gpu(const std::filesystem::path& vendors, bool named, bool nvidia_driver) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(vendors, ec)) return named;  // no ICD at all, unless named otherwise
  for (const fs::directory_entry& e : fs::directory_iterator(vendors, ec)) {
    if (e.path().extension() != ".icd") continue;
    std::ifstream icd(e.path());
    std::string library;
    std::getline(icd, library);
    if (lower(library).find("pocl") == std::string::npos || nvidia_driver) return true;
  }
  return false;
}

bool gpu_possible() {
  static const bool possible = [] {
    // Loaders configured by a list of libraries are not second-guessed.
    if (std::getenv("OCL_ICD_FILENAMES")) return true;
    for (const char* name : {"OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH"}) {
      if (const char* v = std::getenv(name); v && *v) {
        return icds_allow_gpu(v, true, std::filesystem::exists("/dev/nvidiactl"));
      }
    }
    return icds_allow_gpu("/etc/OpenCL/vendors", false, std::filesystem::exists("/dev/nvidiactl"));
  }();
  return possible;
}

std::vector<DeviceInfo> list_devices(std::string& why) {
  const Api* cl = load_api(why);
  if (!cl) return {};
  return enumerate(*cl, nullptr, why);
}

int choose_device(const std::vector<DeviceInfo>& devices, const std::string& choice) {
  if (devices.empty()) return -1;
  if (choice.empty()) {
    for (const DeviceInfo& d : devices) {
      if (d.is_gpu) return d.index;
    }
    return 0;
  }
  char* end = nullptr;
  const long number = std::strtol(choice.c_str(), &end, 10);
  if (end != choice.c_str() && *end == '\0') {
    return number >= 0 && number < long(devices.size()) ? int(number) : -1;
  }
  const std::string want = lower(choice);
  for (const DeviceInfo& d : devices) {
    if (lower(d.name).find(want) != std::string::npos ||
        lower(d.platform).find(want) != std::string::npos) {
      return d.index;
    }
  }
  return -1;
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    this->~Buffer();
    owner_ = o.owner_;
    mem_ = o.mem_;
    bytes_ = o.bytes_;
    o.mem_ = nullptr;
  }
  return *this;
}

Buffer::~Buffer() {
  if (mem_) owner_->give_back(mem_, bytes_);
}

bool Runtime::start(std::string& why) {
  api_ = load_api(why);
  if (!api_) return false;
  // While the platforms and the context start, a helper faults in the staging's memory.
  Staging::prepare();
  std::vector<cl_device_id> ids;
  const std::vector<DeviceInfo> devices = enumerate(*api_, &ids, why);
  if (devices.empty()) return false;
  const std::string& choice = config().opencl_device;
  const int chosen = choose_device(devices, choice);
  if (chosen < 0) {
    why = "SWITCHYARD_OPENCL_DEVICE='" + choice + "' names no OpenCL device";
    return false;
  }
  return open(devices[chosen], ids[chosen], why);
}

bool Runtime::open(const DeviceInfo& info, cl_device_id device, std::string& why) {
  info_ = info;
  device_ = device;
  cl_int r = CL_SUCCESS;
  context_ = api_->CreateContext(nullptr, 1, &device_, nullptr, nullptr, &r);
  if (r != CL_SUCCESS) {
    why = "clCreateContext failed on " + info_.name + ": " + error_name(r);
    return false;
  }
  queue_ = api_->CreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &r);
  if (r != CL_SUCCESS) {
    why = "clCreateCommandQueue failed on " + info_.name + ": " + error_name(r);
    return false;
  }
  return true;
}

Buffer Runtime::acquire(std::size_t bytes, std::string& error) {
  bytes = std::max<std::size_t>(bytes, 64);
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    // The smallest free buffer that fits without wasting more than half of it.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->bytes >= bytes && it->bytes <= 2 * bytes &&
          (best == free_.end() || it->bytes < best->bytes)) {
        best = it;
      }
    }
    if (best != free_.end()) {
      Buffer b(this, best->mem, best->bytes);
      free_bytes_ -= best->bytes;
      free_.erase(best);
      return b;
    }
  }
  cl_int r = CL_SUCCESS;
  cl_mem mem = api_->CreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &r);
  if (r != CL_SUCCESS) {
    // Room held by free pooled buffers is given back to the device, then one more try.
    std::vector<Free> spare;
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      spare.swap(free_);
      free_bytes_ = 0;
    }
    for (const Free& f : spare) api_->ReleaseMemObject(f.mem);
    mem = api_->CreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &r);
  }
  if (r != CL_SUCCESS) {
    error = "clCreateBuffer of " + std::to_string(bytes) + " bytes failed: " + error_name(r);
    return Buffer();
  }
  return Buffer(this, mem, bytes);
}

void Runtime::give_back(cl_mem mem, std::size_t bytes) {
  std::vector<Free> released;
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    free_.push_back({mem, bytes});
    free_bytes_ += bytes;
    while (free_bytes_ > kPoolKeepBytes && !free_.empty()) {
      released.push_back(free_.front());
      free_bytes_ -= free_.front().bytes;
      free_.erase(free_.begin());
    }
  }
  for (const Free& f : released) api_->ReleaseMemObject(f.mem);
}

cl_program Runtime::build(const std::string& source, const std::string& options,
                          std::string& error) {
  const auto began = std::chrono::steady_clock::now();
  const auto took = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  };
  const std::string key = program_cache::key(info_, source, options);
  const std::string cache = cache_directory();
  cl_int r = CL_SUCCESS;
  std::vector<unsigned char> binary;
  if (program_cache::load(cache, key, binary)) {
    const unsigned char* bytes = binary.data();
    const std::size_t size = binary.size();
    cl_int status = CL_SUCCESS;
    cl_program p =
        api_->CreateProgramWithBinary(context_, 1, &device_, &size, &bytes, &status, &r);
    if (r == CL_SUCCESS && status == CL_SUCCESS &&
        api_->BuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
      device::add_phase(device::Family::opencl, "program from the cache", took());
      return p;
    }
    if (p) api_->ReleaseProgram(p);  // a stale or corrupt entry: built again from source
  }
  const char* text = source.c_str();
  cl_program p = api_->CreateProgramWithSource(context_, 1, &text, nullptr, &r);
  if (r != CL_SUCCESS) {
    error = "clCreateProgramWithSource failed: " + error_name(r);
    return nullptr;
  }
  r = api_->BuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr);
  if (r != CL_SUCCESS) {
    std::size_t size = 0;
    api_->GetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    api_->GetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    error = "the OpenCL compiler failed (" + error_name(r) + "): " + log.substr(0, 2000);
    api_->ReleaseProgram(p);
    return nullptr;
  }
  std::size_t size = 0;
  if (api_->GetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) ==
          CL_SUCCESS &&
      size > 0) {
    binary.assign(size, 0);
    unsigned char* out = binary.data();
    if (api_->GetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof out, &out, nullptr) == CL_SUCCESS) {
      program_cache::store(cache, key, binary);
    }
  }
  device::add_phase(device::Family::opencl, "program compiled", took());
  return p;
}

Runtime* runtime(const char** why) {
  static std::string& failure = *new std::string;  // never destroyed, as the runtime
  static Runtime* started = [] {
    device::begin_start(device::Family::opencl);
    Runtime* r = new Runtime();  // kept until exit: device objects outlive static destructors
    bool ok;
    {
      const device::Phase timed(device::Family::opencl, "driver and context");
      ok = r->start(failure);
    }
    // A context alone does not end the start: a first call waits for its program too, which
    // opencl_route::kernels makes, and ends the start there.
    if (!ok) {
      device::end_start(device::Family::opencl, false);
      delete r;
      return static_cast<Runtime*>(nullptr);
    }
    context_up.store(r, std::memory_order_release);
    return r;
  }();
  if (!started) *why = failure.c_str();
  return started;
}

Runtime* started_runtime() { return context_up.load(std::memory_order_acquire); }

std::vector<Runtime*> split_runtimes(std::string& why) {
  static std::string& failure = *new std::string;  // never destroyed, as the runtime
  // Never destroyed, as the runtimes it holds are not: they are used until exit.
  static const std::vector<Runtime*>& made = *new std::vector<Runtime*>([]() -> std::vector<Runtime*> {
    const char* unstarted = nullptr;
    Runtime* main = runtime(&unstarted);
    if (!main) {
      failure = unstarted;
      return {};
    }
    std::vector<cl_device_id> ids;
    const std::vector<DeviceInfo> all = enumerate(main->cl(), &ids, failure);
    std::vector<std::size_t> alike;  // positions in `all` of the devices like main's
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].platform == main->device().platform && all[i].name == main->device().name) {
        alike.push_back(i);
      }
    }
    std::vector<int> ordinals = config().devices;
    if (config().all_devices) {
      for (std::size_t d = 0; d < alike.size(); ++d) ordinals.push_back(int(d));
    }
    if (ordinals.size() < 2 || alike.empty()) {
      failure = "SWITCHYARD_DEVICES names fewer than two devices";
      return {};
    }
    std::vector<Runtime*> runtimes;
    bool main_taken = false;
    for (int ordinal : ordinals) {
      const std::size_t at = alike[std::size_t(ordinal) % alike.size()];
      if (!main_taken && ids[at] == main->device_id()) {
        main_taken = true;
        runtimes.push_back(main);
        continue;
      }
      Runtime* r = new Runtime();  // kept until exit, as runtime() is
      r->api_ = &main->cl();
      if (!r->open(all[at], ids[at], failure)) return {};
      runtimes.push_back(r);
    }
    return runtimes;
  }());
  why = failure;
  return made;
}

}  // namespace switchyard::opencl
