// How the run of a whole LAPACK driver's GPU route (xGELS, xGELSD, xGESDD, xGESVD) ends: true
// when the GPU solved the call; false, the call then left to the fallback, when the driver would
// first scale its operands (`scaling`, which the trace gives as the route's reason to decline) or
// when the GPU failed (a line on stderr).
#pragma once

#include <cstdio>
#include <string>

#include "dispatch.hpp"
#include "qr/gpu_gels.hpp"
#include "routine.hpp"

namespace switchyard::qr {

inline bool solved(GelsOutcome outcome, Routine routine, const char* scaling,
                   const std::string& error) {
  switch (outcome) {
    case GelsOutcome::kSolved:
      return true;
    case GelsOutcome::kNeedsScaling:
      declined_while_running = scaling;
      return false;
    case GelsOutcome::kFailed:
      std::fprintf(stderr, "switchyard: %s on the GPU failed (%s); running it in the fallback\n",
                   routine_name(routine), error.c_str());
      return false;
  }
  return false;
}

}  // namespace switchyard::qr
