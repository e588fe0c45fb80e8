// The router: the one place that decides, for each call, which backend runs
// it and why. Entry points describe the call (routine and shape); routes
// describe themselves (registered or not, usable now or not); decide() puts
// the two together with the configuration.
#pragma once

#include <cstddef>

#include "config.hpp"
#include "routine.hpp"

namespace switchyard {

enum class Backend { fallback, cpu, gpu };
inline constexpr int backend_count = 3;
const char* backend_name(Backend b);

struct Decision {
  Backend backend = Backend::fallback;
  char reason[120] = "";
};

// What the router knows of one backend's implementation of a routine.
struct Candidate {
  bool registered = false;  // the route exists in this build
  // Why it cannot run now (no device...), or null. Asked only when the
  // router would otherwise pick it, since the answer may start a device.
  const char* (*unusable)() = nullptr;
  const char* forced_only = nullptr;  // why auto routing does not pick it, or null
  // The route's cost model, asked in auto routing once the route is usable:
  // false (and why in `why`) when the call would be faster in the fallback.
  // Null: every shape past the thresholds pays.
  bool (*pays)(const Shape& s, char* why, std::size_t size) = nullptr;
};

// Decides the backend for one call. `quick` is set by the entry point when
// the call is a quick return or a workspace query, which the fallback answers.
Decision decide(const Config& cfg, Routine r, const Shape& s, const char* quick,
                const Candidate& cpu, const Candidate& gpu);

}  // namespace switchyard
