// Runs one checked call on the backend the router picks. A route plugs in by
// setting Implementations<Call>::cpu or ::gpu from its own source file; the
// entry points never change. A route that fails (out of device memory, lost
// device) returns false, having left the caller's data as it found it, and
// the call runs in the fallback instead.
#pragma once

#include <cstdio>

#include "config.hpp"
#include "route.hpp"
#include "trace.hpp"

namespace switchyard {

template <class Call>
struct Implementation {
  const char* (*unusable)();     // why it cannot run now, or null
  bool (*run)(const Call& call);  // false: failed, data untouched
};

template <class Call>
struct Implementations {
  static inline const Implementation<Call>* cpu = nullptr;
  static inline const Implementation<Call>* gpu = nullptr;
};

template <class Call>
Candidate candidate(const Implementation<Call>* impl) {
  if (!impl) return {};
  return {true, impl->unusable()};
}

template <class Call, class Fallback>
void dispatch(Routine r, const Shape& s, const char* quick, const Call& call,
              Fallback&& run_fallback) {
  CallRecord record(r, s);
  const Implementation<Call>* cpu = Implementations<Call>::cpu;
  const Implementation<Call>* gpu = Implementations<Call>::gpu;
  Decision d = decide(config(), r, s, quick, candidate(cpu), candidate(gpu));
  if (d.backend != Backend::fallback) {
    const Implementation<Call>* impl = d.backend == Backend::gpu ? gpu : cpu;
    if (impl->run(call)) {
      record.set_decision(d);
      return;
    }
    Decision failed;
    std::snprintf(failed.reason, sizeof failed.reason, "%s route failed; ran in the fallback",
                  backend_name(d.backend));
    d = failed;
  }
  record.set_decision(d);
  run_fallback(call);
}

}  // namespace switchyard
