// What one CG run is asked to do and what it reports, shared by the host
// and device implementations.
#pragma once

namespace switchyard::cg {

// The quantity compared with the tolerance after each iteration.
enum class Criterion {
  residual,                 // ||r|| / ||b||             (SLAP ITOL = 1)
  preconditioned_residual,  // ||M^-1 r|| / ||M^-1 b||   (SLAP ITOL = 2, needs Jacobi)
  error,                    // ||x - s|| / ||s||, s given (SLAP ITOL = 11)
};

struct CgParams {
  double tolerance = 1e-12;
  int max_iterations = 10000;
  bool jacobi = true;
  bool use_initial_guess = false;
  Criterion criterion = Criterion::residual;
  const double* solution = nullptr;  // Criterion::error only
};

struct CgOutcome {
  int status = 0;                  // SWITCHYARD_CG_CONVERGED ... SWITCHYARD_CG_NAN
  int iterations = 0;
  double error = 0.0;              // the criterion's last value
  double relative_residual = 0.0;  // ||b - A x|| / ||b|| of the x returned, recomputed
};

}  // namespace switchyard::cg
