// A device's start costs more in a process that holds much memory. Measured on nvidia-h200's
// host (docs/cold-start.md), three fresh processes per size, each having touched one buffer
// before starting a device: CUDA's driver and context took 214-236 ms with 1 or 2 GiB resident
// and 287-327 ms with 3 to 32 GiB; OpenCL's 258-277 against 319-376 ms. Memory reserved but
// never touched (4 to 32 GiB) cost nothing. `switchyard calibrate` times the start in a small
// process, so the router adds the difference for a process past 2 GiB.
#pragma once

#include <cstddef>

#include "device/startup.hpp"

namespace switchyard::device {

// This process's resident memory in bytes (/proc/self/statm), or 0 where it can not be read.
std::size_t resident_bytes();

// What starting `f` costs beyond the calibrated start in a process with `resident` bytes
// resident: nothing up to 2 GiB, the measured step past 3 GiB, and in between a share of it in
// proportion (the step's threshold lies somewhere there, and moves from process to process).
double start_extra_for_resident(Family f, std::size_t resident);

}  // namespace switchyard::device
