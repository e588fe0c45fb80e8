// What the router knows of this host: how fast the fallback library runs
// each class of routed call, and how long each device takes to start. The
// router weighs a call's modelled device time, plus the start-up when the
// device is cold, against the fallback's time from these figures.
//
// Where they come from, first match wins:
//   1. `switchyard calibrate`, which times the fallback and the devices'
//      start here and stores them in the cache directory, one file per
//      fallback library and thread count;
//   2. shipped figures, measured on the H200 test machine's host (16 cores)
//      with OpenBLAS 0.3.26 and with reference BLAS/LAPACK, taken when the
//      fallback is the same kind of library and the thread count matches;
//   3. the shipped figures of the nearest kind, scaled to this host's
//      threads, marked uncertain: the router then sends a call to a device
//      only when the model gives it at least twice the fallback's speed.
#pragma once

#include <string>

#include "routine.hpp"

namespace switchyard {

// GFLOP/s of the fallback by class of call; [0] double, [1] single.
struct FallbackRates {
  double gemm_square[2];  // large square gemm (1024)
  double gemm_gram[2];    // gemm with a 64 x 64 C and a long k (a Gram product)
  double gemm_wide[2];    // the same with a 256 x 256 C
  double syrk[2];         // syrk with n = 64 and a long k
  double syrk_wide[2];    // the same with n = 256
  double geqrf[2];        // tall-skinny QR, 2^17 x 32
  double orgqr[2];        // its Q, 2^17 x 32
  double ormqr[2];        // its Q^T (32 reflectors) applied to 2^17 x 32
  // The same at 256 columns (reflectors), 2^14 rows: a blocked QR's updates are gemms as deep
  // as it is wide, so its rate grows with the width (OpenBLAS: 5 times from 32 to 256).
  double geqrf_wide[2];
  double orgqr_wide[2];
  double ormqr_wide[2];
};

struct HostFigures {
  FallbackRates rates{};
  double cuda_start_s = 0.0;    // first routed CUDA call's start-up: driver, context, staging
  double opencl_start_s = 0.0;  // the same for OpenCL: driver, context, programs, staging
};

struct Calibration {
  HostFigures figures;
  bool certain = false;  // measured here, or shipped for this kind of library and thread count
  std::string source;    // for the trace and switchyard info
};

// This process's figures, found on first use (reading the calibration file).
const Calibration& calibration();

// The fallback's modelled seconds for one call.
double fallback_seconds(const FallbackRates& rates, Routine r, const Shape& s);

// The thread count the fallback runs with: OPENBLAS_NUM_THREADS, else
// OMP_NUM_THREADS, else the hardware's.
int fallback_threads();

// The calibration file of a fallback library and thread count, in the cache
// directory ("" when there is no cache directory).
std::string calibration_path(const std::string& library, int threads);

// The file's text for `figures`, and back. parse_figures is strict: every
// field present once with a positive value, nothing else, or false.
std::string format_figures(const std::string& library, int threads, const HostFigures& figures);
bool parse_figures(const std::string& text, const std::string& library, int threads,
                   HostFigures& figures);

// Writes the file for the current fallback (a new file renamed into place);
// false with the reason in `error`.
bool store_calibration(const HostFigures& figures, std::string& error);

}  // namespace switchyard
