// How the GPU QR routes' runs end: a driver that failed leaves the call to the fallback, with a
// line on stderr; a whole LAPACK driver (xGELS, xGELSD, xGESDD, xGESVD) may also find that the
// reference would scale its operands first, which it leaves to the fallback too.
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

// The routine of precision T.
template <class T>
constexpr Routine of_precision(Routine single, Routine double_precision) {
  return sizeof(T) == sizeof(float) ? single : double_precision;
}

// True when the GPU ran the call (`done`); otherwise a line on stderr says why, and the call runs
// in the fallback.
inline bool ran(bool done, Routine routine, const std::string& error) {
  if (!done) {
    std::fprintf(stderr, "switchyard: %s on the GPU failed (%s); running it in the fallback\n",
                 routine_name(routine), error.c_str());
  }
  return done;
}

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
      return ran(false, routine, error);
  }
  return false;
}

}  // namespace switchyard::qr::gpu
