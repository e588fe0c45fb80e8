#include "device/opencl_shared_staging.hpp"

#include <map>

#include "device/staging_memory.hpp"

namespace switchyard::opencl {

bool SharedStaging::start(const std::vector<Runtime*>& runtimes, std::string& error) {
  const std::size_t bytes = kSlots * kSlotBytes;
  device::StagingMemory memory(bytes);
  if (!memory.get()) {
    error = "no host memory for " + std::to_string(bytes) + " bytes of shared staging";
    return false;
  }
  // A context that took the memory keeps it whatever happens next: it is never unmapped.
  char* const base = static_cast<char*>(memory.release());
  for (Runtime* rt : runtimes) {
    const Api& cl = rt->cl();
    cl_int r = CL_SUCCESS;
    // Never released: the context keeps the memory pinned until exit, and the memory with it.
    cl_mem pinned =
        cl.CreateBuffer(rt->context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, base, &r);
    void* host = r == CL_SUCCESS
                     ? cl.EnqueueMapBuffer(rt->queue(), pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                           0, bytes, 0, nullptr, nullptr, &r)
                     : nullptr;
    if (r != CL_SUCCESS) {
      error = "shared staging in OpenCL device " + std::to_string(rt->device().index) +
              "'s context failed: " + error_name(r);
      return false;
    }
    // A transfer from the slots is pinned only where the mapping is the memory itself.
    if (host != base) {
      error =
          "OpenCL device " + std::to_string(rt->device().index) + " maps shared staging elsewhere";
      return false;
    }
  }
  for (int i = 0; i < kSlots; ++i) slots.push_back(base + i * kSlotBytes);
  return true;
}

SharedStaging* shared_staging(const std::vector<Runtime*>& runtimes, std::string& error) {
  static std::mutex mutex;
  // Never destroyed, as the stagings it holds are not: they are used until exit.
  static auto& made = *new std::map<std::vector<Runtime*>, SharedStaging*>;
  std::lock_guard<std::mutex> lock(mutex);
  const auto found = made.find(runtimes);
  if (found != made.end()) return found->second;
  // A failure is for good: every try would pin (and keep) memory of its own.
  SharedStaging* s = new SharedStaging();
  if (!s->start(runtimes, error)) {
    delete s;
    s = nullptr;
  }
  made.emplace(runtimes, s);
  return s;
}

}  // namespace switchyard::opencl
