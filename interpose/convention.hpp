// What differs between a routine's 32-bit (int) and 64-bit (std::int64_t)
// entry points: the next library's table they hand calls on to, and whether
// the integers of a checked call fit the int the routes take.
#pragma once

#include <climits>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "fallback.hpp"
#include "routine.hpp"
#include "trace.hpp"

namespace switchyard {

template <class I>
const FallbackTable<I>& next_library() {
  if constexpr (std::is_same_v<I, int>) {
    return fallback();
  } else {
    return fallback64();
  }
}

// Whether every integer argument of a call fits an int; always so for a 32-bit call.
template <class I, class... V>
bool fits_int(V... v) {
  if constexpr (std::is_same_v<I, int>) {
    return true;
  } else {
    return ((v >= INT_MIN && v <= INT_MAX) && ...);
  }
}

// A 64-bit call with an integer past the int range: no route can take it, so
// `run` hands it to the 64-bit fallback as the caller made it. Traced as
// every call is.
template <class Run>
void run_too_wide(Routine r, const Shape& s, Run&& run) {
  CallRecord record(r, s);
  Decision d;
  std::snprintf(d.reason, sizeof d.reason,
                "sizes past 2^31: the routes take 32-bit integers, the 64-bit fallback runs it");
  record.set_decision(d);
  run();
}

}  // namespace switchyard
