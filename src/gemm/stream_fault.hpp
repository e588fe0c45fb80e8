// A failure planted in one step of a streamed call (streamed_gemm.hpp), so
// that tests can run what a call that fails part-way leaves in C: the chosen
// enqueue returns `code` in place of calling OpenCL, as a failed enqueue
// would, and the call goes on from there as it does after a real failure.
// The library never plants one: its calls pass none, and a call with none
// costs one pointer test per step.
#pragma once

#include "device/opencl_runtime.hpp"

namespace switchyard::gemm {

struct StreamFault {
  enum class Step {
    upload,    // the transfer of one piece to the device
    kernels,   // the first kernel of one panel of C
    download,  // the transfer of one piece of C back to the host
  };
  Step step;
  // upload, download: the piece, counted from 0 over the whole call in the
  // order the pieces are transferred; kernels: the panel.
  int index;
  cl_int code = CL_OUT_OF_RESOURCES;
};

// What the enqueue of `index` in `step` returns instead of running:
// fault->code where the fault is planted, CL_SUCCESS everywhere else.
inline cl_int planted(const StreamFault* fault, StreamFault::Step step, int index) {
  return fault && fault->step == step && fault->index == index ? fault->code : CL_SUCCESS;
}

}  // namespace switchyard::gemm
