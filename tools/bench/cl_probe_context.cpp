#include "cl_probe_context.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace switchyard::bench {
namespace {

// cl_nv_device_attribute_query
constexpr cl_device_info kComputeCapabilityMajorNv = 0x4000;
constexpr cl_device_info kComputeCapabilityMinorNv = 0x4001;

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  clGetPlatformInfo(p, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  clGetDeviceInfo(d, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

}  // namespace

void cl_check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + std::to_string(err));
}

ClContext::ClContext(const std::string& platform_hint) {
  cl_uint count = 0;
  cl_check(clGetPlatformIDs(0, nullptr, &count), "clGetPlatformIDs");
  if (count == 0) throw std::runtime_error("no OpenCL platform");
  std::vector<cl_platform_id> platforms(count);
  cl_check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
  cl_platform_id chosen = platforms[0];
  for (cl_platform_id p : platforms)
    if (!platform_hint.empty() &&
        platform_string(p, CL_PLATFORM_NAME).find(platform_hint) != std::string::npos) {
      chosen = p;
      break;
    }
  platform_name = platform_string(chosen, CL_PLATFORM_NAME);
  cl_check(clGetDeviceIDs(chosen, CL_DEVICE_TYPE_ALL, 1, &device_, nullptr), "clGetDeviceIDs");
  device_name = device_string(device_, CL_DEVICE_NAME);
  driver_version = device_string(device_, CL_DRIVER_VERSION);
  cl_ulong local = 0;
  clGetDeviceInfo(device_, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
  local_memory = local;
  nvidia = device_string(device_, CL_DEVICE_EXTENSIONS).find("cl_nv_device_attribute_query") !=
           std::string::npos;
  if (nvidia) {
    cl_uint major = 0, minor = 0;
    clGetDeviceInfo(device_, kComputeCapabilityMajorNv, sizeof major, &major, nullptr);
    clGetDeviceInfo(device_, kComputeCapabilityMinorNv, sizeof minor, &minor, nullptr);
    compute_capability = int(major * 10 + minor);
  }
  cl_int err = CL_SUCCESS;
  context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  cl_check(err, "clCreateContext");
  queue_ = clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &err);
  cl_check(err, "clCreateCommandQueue");
}

ClContext::~ClContext() {
  if (queue_) clReleaseCommandQueue(queue_);
  if (context_) clReleaseContext(context_);
}

cl_kernel ClContext::build(const std::string& source, const std::string& name,
                           const std::string& options, std::string& log) {
  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &err);
  cl_check(err, "clCreateProgramWithSource");
  const cl_int built = clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
  std::size_t n = 0;
  clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  log.assign(n, '\0');
  clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  cl_kernel kernel = nullptr;
  if (built == CL_SUCCESS) {
    kernel = clCreateKernel(program, name.c_str(), &err);
    if (err != CL_SUCCESS) log += "\nclCreateKernel failed: " + std::to_string(err);
  } else {
    log += "\nclBuildProgram failed: " + std::to_string(built);
  }
  clReleaseProgram(program);  // the kernel keeps it alive
  return kernel;
}

cl_mem ClContext::buffer(std::size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem b = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  cl_check(err, "clCreateBuffer");
  return b;
}

void ClContext::write(cl_mem b, const void* host, std::size_t bytes) {
  cl_check(clEnqueueWriteBuffer(queue_, b, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
           "clEnqueueWriteBuffer");
}

void ClContext::read(cl_mem b, void* host, std::size_t bytes) {
  cl_check(clEnqueueReadBuffer(queue_, b, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
           "clEnqueueReadBuffer");
}

double ClContext::launch(cl_kernel kernel, const std::array<std::size_t, 2>& global,
                         const std::array<std::size_t, 2>& local) {
  cl_event done = nullptr;
  cl_check(clEnqueueNDRangeKernel(queue_, kernel, 2, nullptr, global.data(), local.data(), 0,
                                  nullptr, &done),
           "clEnqueueNDRangeKernel");
  cl_check(clWaitForEvents(1, &done), "clWaitForEvents");
  cl_ulong start = 0, end = 0;
  clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
  clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
  clReleaseEvent(done);
  return double(end - start) * 1e-6;
}

}  // namespace switchyard::bench
