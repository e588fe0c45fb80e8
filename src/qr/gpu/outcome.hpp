// How a whole LAPACK driver's GPU route (xGELS, xGELSD, xGESDD, xGESVD) ends.
#pragma once

#include <cstdio>
#include <string>

#include "dispatch.hpp"
#include "routine.hpp"

namespace switchyard::qr::gpu {

enum class Outcome {
  kSolved,        // the outputs written
  kNeedsScaling,  // nothing written: the driver would scale its operands first, or A is zero
  kFailed,        // nothing written (host data): `error` says why
};

// True when the GPU solved the call; false, the call then left to the fallback, when the
// driver would first scale its operands (`scaling`, which the trace gives as the route's reason
// to decline) or when the GPU failed (a line on stderr).
inline bool solved(Outcome outcome, Routine routine, const char* scaling,
                   const std::string& error) {
  switch (outcome) {
    case Outcome::kSolved:
      return true;
    case Outcome::kNeedsScaling:
      declined_while_running = scaling;
      return false;
    case Outcome::kFailed:
      std::fprintf(stderr, "switchyard: %s on the GPU failed (%s); running it in the fallback\n",
                   routine_name(routine), error.c_str());
      return false;
  }
  return false;
}

}  // namespace switchyard::qr::gpu
