#pragma once

// OpenCL plumbing for the GEMM kernel probe: one device, one profiling queue, programs built from
// source with their build logs, buffers, and kernel launches timed by events.

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <string>

namespace switchyard::bench {

class ClContext {
 public:
  // The first platform whose name contains `platform_hint` (any platform when empty or none
  // matches), its first device.
  explicit ClContext(const std::string& platform_hint);
  ~ClContext();
  ClContext(const ClContext&) = delete;
  ClContext& operator=(const ClContext&) = delete;

  std::string platform_name, device_name, driver_version;
  bool nvidia = false;
  int compute_capability = 0;  // 90 for sm_90; 0 when the device does not say
  std::size_t local_memory = 0;

  // Builds `source`; on success returns the kernel `name` and fills `log` with the build log,
  // on failure returns nullptr with the log (or the error) in `log`.
  cl_kernel build(const std::string& source, const std::string& name, const std::string& options,
                  std::string& log);
  cl_mem buffer(std::size_t bytes);
  void write(cl_mem b, const void* host, std::size_t bytes);
  void read(cl_mem b, void* host, std::size_t bytes);
  // Runs `kernel` over a 2-D range of `global` work-items in groups of `local`; returns its time
  // in ms.
  double launch(cl_kernel kernel, const std::array<std::size_t, 2>& global,
                const std::array<std::size_t, 2>& local);

 private:
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_device_id device_ = nullptr;
};

// Throws std::runtime_error naming `what` when `err` is not CL_SUCCESS.
void cl_check(cl_int err, const char* what);

}  // namespace switchyard::bench
