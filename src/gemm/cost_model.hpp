// When a gemm pays on the OpenCL device. The route streams its operands
// (streamed_gemm.hpp): A goes up before any kernel runs, then the panels of
// op(B) and C go up while the kernels run on earlier panels and their
// results come down, and the last panel of C comes down after the last
// kernel. Its time is modelled as
//   launch + mk e / link + max((kn + mn) e / link, 2mnk / kernel rate) + mn e / (8 link)
// (e the element size; C is counted as uploaded, as it is when beta != 0;
// 8 panels), against 2mnk / host rate for the fallback. The device's
// constants come from its tuning entry (kernel rate) and the table in
// cost_model.cpp (staged link rate, launch); the host rate is
// SWITCHYARD_GEMM_HOST_GFLOPS.
#pragma once

#include <cstddef>

#include "routine.hpp"

namespace switchyard::gemm {

struct CostModel {
  double kernel_gflops;  // the TN kernel's rate on this device
  double link_gbs;       // host <-> device through the pinned slots, each way
  double launch_s;       // fixed cost of one call: launches, synchronisation
};

// The constants for a device (by name, and whether it is a GPU).
CostModel cost_model(const char* device_name, double kernel_gflops);

// Modelled seconds of one call on the device and in the fallback.
double device_seconds(const CostModel& model, std::size_t element_size, const Shape& s);
double host_seconds(double host_gflops, const Shape& s);

// True when the device is modelled faster; else false and why in `why`.
bool device_pays(const CostModel& model, double host_gflops, std::size_t element_size,
                 const Shape& s, char* why, std::size_t size);

}  // namespace switchyard::gemm
