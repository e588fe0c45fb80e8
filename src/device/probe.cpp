#include "device/probe.hpp"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

namespace switchyard {
namespace {

// The few CUDA driver API entry points the probe needs (cuda.h values).
using CuResult = int;
using CuInit = CuResult(unsigned);
using CuDriverGetVersion = CuResult(int*);
using CuDeviceGetCount = CuResult(int*);
using CuDeviceGet = CuResult(int*, int);
using CuDeviceGetName = CuResult(char*, int, int);
using CuDeviceTotalMem = CuResult(std::size_t*, int);
using CuDeviceGetAttribute = CuResult(int*, int, int);
using CuGetErrorName = CuResult(CuResult, const char**);
constexpr int cu_attribute_cc_major = 75, cu_attribute_cc_minor = 76;

// The OpenCL entry points the probe needs (cl.h values).
using ClInt = std::int32_t;
using ClGetPlatformIDs = ClInt(std::uint32_t, void**, std::uint32_t*);
using ClGetPlatformInfo = ClInt(void*, std::uint32_t, std::size_t, void*, std::size_t*);
using ClGetDeviceIDs = ClInt(void*, std::uint64_t, std::uint32_t, void**, std::uint32_t*);
using ClGetDeviceInfo = ClInt(void*, std::uint32_t, std::size_t, void*, std::size_t*);
constexpr std::uint32_t cl_platform_name = 0x0902, cl_device_name = 0x102B;
constexpr std::uint64_t cl_device_type_all = 0xFFFFFFFF;
constexpr ClInt cl_platform_not_found = -1001;

template <class Fn>
Fn* symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn*>(dlsym(lib, name));
}

std::string cuda_error(void* lib, CuResult code) {
  const char* name = nullptr;
  if (auto* get_name = symbol<CuGetErrorName>(lib, "cuGetErrorName")) get_name(code, &name);
  return name ? name : "CUDA error " + std::to_string(code);
}

void probe_cuda(DeviceProbe& p) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    p.cuda_absent = "no CUDA driver (libcuda.so.1 not found)";
    return;
  }
  auto* init = symbol<CuInit>(lib, "cuInit");
  auto* version = symbol<CuDriverGetVersion>(lib, "cuDriverGetVersion");
  auto* count = symbol<CuDeviceGetCount>(lib, "cuDeviceGetCount");
  auto* get = symbol<CuDeviceGet>(lib, "cuDeviceGet");
  auto* get_name = symbol<CuDeviceGetName>(lib, "cuDeviceGetName");
  auto* total_mem = symbol<CuDeviceTotalMem>(lib, "cuDeviceTotalMem_v2");
  auto* attribute = symbol<CuDeviceGetAttribute>(lib, "cuDeviceGetAttribute");
  if (!init || !version || !count || !get || !get_name || !total_mem || !attribute) {
    p.cuda_absent = "the CUDA driver lacks the entry points of the driver API";
    return;
  }
  if (CuResult r = init(0)) {
    p.cuda_absent = "cuInit failed: " + cuda_error(lib, r);
    return;
  }
  version(&p.cuda_driver_version);
  int n = 0;
  if (CuResult r = count(&n)) {
    p.cuda_absent = "cuDeviceGetCount failed: " + cuda_error(lib, r);
    return;
  }
  for (int i = 0; i < n; ++i) {
    int dev = 0;
    char name[256] = "";
    std::size_t bytes = 0;
    CudaDevice d{i, "", 0.0, 0, 0};
    if (get(&dev, i) != 0) continue;
    get_name(name, sizeof name, dev);
    total_mem(&bytes, dev);
    attribute(&d.major, cu_attribute_cc_major, dev);
    attribute(&d.minor, cu_attribute_cc_minor, dev);
    d.name = name;
    d.memory_gib = double(bytes) / double(1ull << 30);
    p.cuda.push_back(d);
  }
  if (p.cuda.empty()) p.cuda_absent = "the CUDA driver sees no device";
}

std::string cl_string(ClGetPlatformInfo* info, void* platform, std::uint32_t what) {
  char text[256] = "";
  info(platform, what, sizeof text - 1, text, nullptr);
  return text;
}

void probe_opencl(DeviceProbe& p) {
  void* lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    p.opencl_absent = "no OpenCL ICD loader (libOpenCL.so.1 not found)";
    return;
  }
  auto* platforms = symbol<ClGetPlatformIDs>(lib, "clGetPlatformIDs");
  auto* platform_info = symbol<ClGetPlatformInfo>(lib, "clGetPlatformInfo");
  auto* device_ids = symbol<ClGetDeviceIDs>(lib, "clGetDeviceIDs");
  auto* device_info = symbol<ClGetDeviceInfo>(lib, "clGetDeviceInfo");
  if (!platforms || !platform_info || !device_ids || !device_info) {
    p.opencl_absent = "the OpenCL loader lacks the platform and device queries";
    return;
  }
  std::uint32_t n = 0;
  ClInt r = platforms(0, nullptr, &n);
  if (r == cl_platform_not_found || (r == 0 && n == 0)) {
    p.opencl_absent = "no OpenCL platform installed (no ICD in /etc/OpenCL/vendors)";
    return;
  }
  if (r != 0) {
    p.opencl_absent = "clGetPlatformIDs failed with " + std::to_string(r);
    return;
  }
  void* ids[16];
  n = n > 16 ? 16 : n;
  platforms(n, ids, nullptr);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::string platform = cl_string(platform_info, ids[i], cl_platform_name);
    void* devices[64];
    std::uint32_t count = 0;
    if (device_ids(ids[i], cl_device_type_all, 64, devices, &count) != 0) count = 0;
    if (count == 0) p.opencl.push_back({platform, "(no devices)"});
    for (std::uint32_t d = 0; d < count && d < 64; ++d) {
      char name[256] = "";
      device_info(devices[d], cl_device_name, sizeof name - 1, name, nullptr);
      p.opencl.push_back({platform, name});
    }
  }
}

// cuPointerGetAttribute and its cuda.h values.
using CuPointerGetAttribute = CuResult(void* data, int attribute, std::uintptr_t pointer);
constexpr int cu_pointer_memory_type = 2, cu_pointer_is_managed = 8;
constexpr unsigned cu_memory_type_device = 2;

// The path of the CUDA driver where the process has loaded it, else "". It reads the list of
// loaded objects, with no system call: dlopen with RTLD_NOLOAD searches the library path,
// opening ld.so.cache and the directories, each time it finds nothing, which cost every call
// of a program without CUDA about 10 system calls.
std::string loaded_cuda_driver() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        const char* slash = std::strrchr(info->dlpi_name, '/');
        const char* base = slash ? slash + 1 : info->dlpi_name;
        if (std::strncmp(base, "libcuda.so", 10) != 0) return 0;
        *static_cast<std::string*>(out) = info->dlpi_name;
        return 1;
      },
      &path);
  return path;
}

// How many objects the process has loaded so far (dlopen included): reading it costs about 7 ns,
// where a scan of the loaded objects for the driver costs a small call's own time again.
unsigned long long objects_loaded() {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        *static_cast<unsigned long long*>(out) = info->dlpi_adds;
        return 1;
      },
      &adds);
  return adds;
}

}  // namespace

bool cuda_device_pointer(const void* p) {
  static std::atomic<CuPointerGetAttribute*> found{nullptr};
  // The count of loaded objects when a scan last found no driver: until it changes, none is.
  static std::atomic<unsigned long long> no_driver_at{0};
  CuPointerGetAttribute* get = found.load(std::memory_order_acquire);
  if (!get) {
    const unsigned long long loaded = objects_loaded();
    if (loaded == no_driver_at.load(std::memory_order_relaxed)) return false;
    const std::string driver = loaded_cuda_driver();
    if (driver.empty()) {
      no_driver_at.store(loaded, std::memory_order_relaxed);
      return false;
    }
    void* lib = dlopen(driver.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!lib) return false;
    get = symbol<CuPointerGetAttribute>(lib, "cuPointerGetAttribute");
    if (!get) return false;
    found.store(get, std::memory_order_release);  // the driver stays loaded: lib is never closed
  }
  unsigned type = 0;
  int managed = 0;
  const auto pointer = reinterpret_cast<std::uintptr_t>(p);
  if (get(&managed, cu_pointer_is_managed, pointer) == 0 && managed) return true;
  return get(&type, cu_pointer_memory_type, pointer) == 0 && type == cu_memory_type_device;
}

// Never destroyed: a start in the background reads them on a helper thread, which may still be
// running while the process exits.
const DeviceProbe& probe_cuda_devices() {
  static const DeviceProbe& probe = *new DeviceProbe([] {
    DeviceProbe p;
    probe_cuda(p);
    return p;
  }());
  return probe;
}

const DeviceProbe& probe_devices() {
  static const DeviceProbe& probe = *new DeviceProbe([] {
    DeviceProbe p = probe_cuda_devices();
    probe_opencl(p);
    return p;
  }());
  return probe;
}

}  // namespace switchyard
