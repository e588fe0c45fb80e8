// Whether the device selected on the calling thread can run this build's kernels.
#pragma once

#include <cuda_runtime_api.h>

namespace switchyard::kernels {

// cudaSuccess, or cudaErrorNoKernelImageForDevice (among others) when the build has neither
// machine code nor PTX the device can take.
cudaError_t kernel_image_status();

}  // namespace switchyard::kernels
