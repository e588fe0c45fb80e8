// What a device's start costs in this process beyond the calibrated figure, which
// `switchyard calibrate` measures in a small process on a machine where the gemm route's
// programs are already built. Two things add to it, both measured on nvidia-h200's host
// (docs/cold-start.md):
//
// - The process's size. Three fresh processes per size, each having touched one buffer before
//   starting a device: CUDA's driver and context took 214-236 ms with 1 or 2 GiB resident and
//   287-327 ms with 3 to 32 GiB; OpenCL's 258-277 against 319-376 ms. Memory reserved but
//   never touched (4 to 32 GiB) cost nothing.
// - OpenCL programs not yet in the program cache (program_cache.hpp): the first process on a
//   machine compiles them, 0.90 s for sgemm's and 1.77 s for dgemm's there.
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

// Both extras for a start of `f` in this process now (the cache directory's, for OpenCL).
double start_extra_s(Family f);

}  // namespace switchyard::device
