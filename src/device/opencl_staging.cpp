#include "device/opencl_staging.hpp"

#include <map>

#include "device/staging_memory.hpp"
#include "device/startup.hpp"

namespace switchyard::opencl {

void Staging::prepare() { device::prepare_staging(device::Family::opencl, kBytes); }

bool Staging::start(Runtime& rt, std::string& error) {
  const Api& cl = rt.cl();
  cl_int r = CL_SUCCESS;
  upload = cl.CreateCommandQueue(rt.context(), rt.device_id(), 0, &r);
  if (r == CL_SUCCESS) download = cl.CreateCommandQueue(rt.context(), rt.device_id(), 0, &r);
  if (r != CL_SUCCESS) {
    error = "clCreateCommandQueue for transfers failed: " + error_name(r);
    return false;
  }
  device::StagingMemory memory = device::take_staging(device::Family::opencl, kBytes);
  if (!memory.get()) {
    error = "no host memory for " + std::to_string(kBytes) + " bytes of staging";
    return false;
  }
  pinned_ = cl.CreateBuffer(rt.context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, kBytes,
                            memory.get(), &r);
  if (r != CL_SUCCESS) {
    error = "pinned staging of " + std::to_string(kBytes) + " bytes failed: " + error_name(r);
    return false;
  }
  memory.release();  // the buffer uses it until exit
  void* host = cl.EnqueueMapBuffer(rt.queue(), pinned_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                   kBytes, 0, nullptr, nullptr, &r);
  if (r != CL_SUCCESS) {
    error = "mapping the pinned staging failed: " + error_name(r);
    return false;
  }
  for (std::vector<PinnedSlot>* slots : {&up, &down}) {
    const int count = slots == &up ? kUploadSlots : kDownloadSlots;
    for (int i = 0; i < count; ++i) {
      const std::size_t at = (up.size() + down.size()) * kSlotBytes;
      slots->push_back({static_cast<char*>(host) + at, nullptr});
    }
  }
  return true;
}

Staging* staging(Runtime& rt, std::string& error) {
  static std::mutex mutex;
  // Never destroyed, as the stagings it holds are not: they are used until exit.
  static auto& made = *new std::map<const Runtime*, Staging*>;
  std::lock_guard<std::mutex> lock(mutex);
  const auto found = made.find(&rt);
  if (found != made.end()) return found->second;
  // Kept until exit, as the runtime is; a failed start keeps what it made
  // (the context owns it) and the next call tries again.
  Staging* s = new Staging();
  const device::Phase timed(device::Family::opencl, "pinned staging");
  if (!s->start(rt, error)) return nullptr;
  made.emplace(&rt, s);
  return s;
}

void hold(const Api& cl, PinnedSlot& slot, cl_event event) {
  if (slot.last) cl.ReleaseEvent(slot.last);
  slot.last = event;
}

}  // namespace switchyard::opencl
