// The seam between the CG driver and its device implementation. A build
// with CUDA links kernels/cuda/cg_*.cu and src/cg/gpu_*.cpp, which set
// gpu_backend from a static initialiser (touching no device); without
// CUDA it stays null and every solve runs on the host.
#pragma once

#include <cstddef>

#include "cg/cg_params.hpp"
#include "cg/matrix.hpp"

namespace switchyard::cg {

// Each solve returns true when it ran to an outcome (converged or not); false
// when the device failed (no memory, lost device), with `why` filled and x
// as the caller gave it, so the host can solve instead.
struct GpuBackend {
  const char* (*unusable)();  // why no device can run a solve now, or null
  bool (*solve_dia_double)(const DiaHalf<double>&, const double* b, double* x, const CgParams&,
                           CgOutcome&, const char** why);
  bool (*solve_dia_float)(const DiaHalf<float>&, const double* b, double* x, const CgParams&,
                          CgOutcome&, const char** why);
};

inline const GpuBackend* gpu_backend = nullptr;

}  // namespace switchyard::cg
