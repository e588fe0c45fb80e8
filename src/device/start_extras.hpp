// What a device's start costs in this process beyond the calibrated figure, which
// `switchyard calibrate` measures in a small process on a machine where the gemm route's
// programs are already built, each family alone. Two things add to it and one takes from it,
// all measured on nvidia-h200's host (docs/cold-start.md):
//
// - The process's size. Three fresh processes per size, each having touched one buffer before
//   starting a device: CUDA's driver and context took 214-236 ms with 1 or 2 GiB resident and
//   287-327 ms with 3 to 32 GiB; OpenCL's 258-277 against 319-376 ms. Memory reserved but
//   never touched (4 to 32 GiB) cost nothing.
// - OpenCL programs not yet in the program cache (program_cache.hpp): the first process on a
//   machine compiles them, 0.90 s for sgemm's and 1.77 s for dgemm's there.
// - The other family already started. Both run on NVIDIA's one driver, whose own start (one
//   ioctl of 88-90 ms inside cuInit) a process pays once: CUDA's driver took 10-14 ms after
//   OpenCL's start against 97-107 ms alone, and OpenCL's driver and context 170 ms after CUDA's
//   against 228-273 ms alone (small processes).
#pragma once

#include <cstddef>
#include <string>

#include "device/startup.hpp"

namespace switchyard::device {

// This process's resident memory in bytes (/proc/self/statm), or 0 where it can not be read.
std::size_t resident_bytes();

// What starting `f` costs beyond the calibrated start in a process with `resident` bytes
// resident: nothing up to 2 GiB, the measured step past 3 GiB, and in between a share of it in
// proportion (the step's threshold lies somewhere there, and moves from process to process).
double start_extra_for_resident(Family f, std::size_t resident);

// What a start of either family saves when the other has started: the driver's own start, the
// lower of the two savings measured above.
inline constexpr double kSharedDriverStartSeconds = 0.08;

// start_extra_for_resident, less the shared driver's start where `other_started` (the other
// family has started in this process). Below zero where that outweighs the process's size: the
// start then costs less than the calibrated figure.
double start_extra_for(Family f, std::size_t resident, bool other_started);

// Whether `directory` holds any program-cache entry: the sign that this machine's programs have
// been built before. Any entry will do, so after a driver or library update the first process
// still compiles once, unforeseen.
bool programs_in_cache(const std::string& directory);

// What a first OpenCL start on a machine adds where the cache holds no program: the programs'
// compile, and the driver's own first start there. On fresh nvidia-h200 machines the compile
// took 0.9 s (sgemm's), 1.8 s and 3.4 s (dgemm's), and in the last of them the context 1.2 s
// against 0.37-0.38 s in the next processes: the first dgemm 8192^3 took 4.7 s, against 2.0 s
// in OpenBLAS (docs/cold-start.md).
inline constexpr double kProgramCompileSeconds = 4.5;

// What a start of `f` in this process now costs beyond the calibrated figure: the process's
// size, the other family's state and, for OpenCL, the cache directory's programs. A host whose
// CUDA runs at all has NVIDIA's driver, and its OpenCL route runs on NVIDIA's OpenCL (or PoCL's
// CUDA device, on the same driver) unless it has another vendor's GPU too and the OpenCL route
// chose that one; there the saving is counted though it is not had, and a cold call may wait
// 0.08 s it did not expect.
double start_extra_s(Family f);

}  // namespace switchyard::device
