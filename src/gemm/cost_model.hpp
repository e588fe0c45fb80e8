// When a gemm pays on the OpenCL device. The route streams its operands
// (streamed_gemm.hpp): the first row block of op(A) goes up before any kernel
// runs (R blocks, row_blocks.hpp; one for a small op(A) and for the Gram
// product), then the other blocks and the panels of op(B) and C go up while
// the kernels run on what is there and their results come down, and the last
// panel of C comes down after the last kernel. Its time is modelled as
//   launch + mk e / (R link)
//     + max(((R - 1) mk / R + kn + mn) e / link, 2mnk / kernel rate) + mn e / (8 link)
// (e the element size; 8 panels; mn e goes up only when beta != 0, and kn
// e not at all when op(B) is op(A)'s matrix). The kernel rate
// is the tuning entry's, times the share of the device's compute units that
// C's tiles and their split-K slices (split_k.hpp) occupy. The device's constants come from its
// tuning entry (kernel rate, tile) and the table in cost_model.cpp (staged link rate, launch,
// compute units). The router weighs the result against the fallback's time on this host
// (calibration.hpp).
#pragma once

#include <cstddef>

#include "routine.hpp"

namespace switchyard::gemm {

struct CostModel {
  double kernel_gflops;  // the TN kernel's rate on this device, C filling every unit
  int tile_m, tile_n;    // the kernel's tile of C
  int compute_units;     // work-groups the device runs at once, at one per unit
  double link_gbs;       // host <-> device through the pinned slots, each way
  double launch_s;       // fixed cost of one call: launches, synchronisation
};

// The constants for a device (by name) and its kernel (rate and tile).
CostModel cost_model(const char* device_name, double kernel_gflops, int tile_m, int tile_n);

// Modelled seconds of one call on the device.
double device_seconds(const CostModel& model, std::size_t element_size, const Shape& s);

}  // namespace switchyard::gemm
