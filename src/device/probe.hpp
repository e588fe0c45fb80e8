// What accelerators this process can see, found by loading the CUDA driver
// and the OpenCL ICD loader at run time: the library itself links neither,
// so it loads on machines that have none. Probing starts the driver, so it
// is only done on demand (switchyard info, or the first call routed to a
// device), never while the library loads.
#pragma once

#include <string>
#include <vector>

namespace switchyard {

struct CudaDevice {
  int ordinal;
  std::string name;
  double memory_gib;
  int major, minor;  // compute capability
};

struct OpenClDevice {
  std::string platform;
  std::string name;
};

struct DeviceProbe {
  std::vector<CudaDevice> cuda;
  std::string cuda_absent;  // why there are no CUDA devices, when there are none
  int cuda_driver_version = 0;
  std::vector<OpenClDevice> opencl;
  std::string opencl_absent;
};

// Probed once per process; later calls return the same answer.
const DeviceProbe& probe_devices();

// Whether p is CUDA device or managed memory, asked of the driver only where the process has
// already loaded it (no device memory exists otherwise): never starts a device.
bool cuda_device_pointer(const void* p);

// The CUDA part alone (the OpenCL fields empty): what the CUDA routes need,
// without loading an OpenCL driver, which can take longer than CUDA's own
// start.
const DeviceProbe& probe_cuda_devices();

}  // namespace switchyard
