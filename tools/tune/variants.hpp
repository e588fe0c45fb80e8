// The kernel variants the tuner tries on a device: every parameter set of
// the generator's space that the device can run, in a fixed shuffled order
// (the same on every run, so that a resumed run continues where the last
// one stopped).
#pragma once

#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/kernel_source.hpp"

namespace switchyard::tune {

std::vector<gemm::KernelParams> variants(const opencl::DeviceInfo& device,
                                         gemm::Precision precision);

}  // namespace switchyard::tune
