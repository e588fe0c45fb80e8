// The CG driver behind every entry point (C, Fortran 77, DSDCG): checks
// the request, reads and converts the matrix, picks host or device, runs,
// and writes the trace line.
#pragma once

#include "cg/cg_params.hpp"
#include "switchyard.h"

namespace switchyard::cg {

struct SolveRequest {
  const char* caller = "cg";  // the name the trace shows: "cg" or "dsdcg"
  int backend = SWITCHYARD_CG_AUTO;
  int kernel = SWITCHYARD_CG_KERNEL_AUTO;
  CgParams params;
};

struct SolveReport {
  switchyard_cg_result result{};
  double error = 0.0;  // the stopping criterion's last value (DSDCG's ERR)
};

// Never throws. On a rejected input (status < 0) x is untouched.
SolveReport solve(const switchyard_cg_matrix& a, const double* b, double* x,
                  const SolveRequest& request);

}  // namespace switchyard::cg
