// The small-call table of `switchyard bench routing`: what deciding costs a call that stays in
// the fallback. See small_calls.cpp.
#pragma once

#include <string>

namespace switchyard::bench {

// Runs switchyard-bench-small `rounds` times in each environment (the fallback alone, and
// Switchyard in front of it), alternating, and prints each call's best nanoseconds per call in
// both with the difference.
void print_small_calls(const std::string& alone, const std::string& routed, long calls, int rounds);

}  // namespace switchyard::bench
