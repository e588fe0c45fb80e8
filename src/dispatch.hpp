// Runs one checked call on the backend the router picks. A route plugs in by
// setting Implementations<Call>::cpu or ::gpu from its own source file; the
// entry points never change. A route that fails (out of device memory, lost
// device) returns false, having left the caller's data as it found it, and
// the call runs in the fallback instead.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>

#include "as_run.hpp"
#include "config.hpp"
#include "route.hpp"
#include "trace.hpp"

namespace switchyard {

template <class Call>
struct Implementation {
  const char* (*unusable)();                  // why it cannot run now, or null
  const char* (*declines)(const Call& call);  // why it cannot take this call, or null
  bool (*run)(const Call& call);              // false: failed, data untouched
  const char* (*forced_only)() = nullptr;     // why auto routing does not pick it, or null
  bool (*pays)(const Shape& s, char* why, std::size_t size) = nullptr;  // a last say, or null
  const RouteCost* cost = nullptr;  // the route's cost, weighed against the fallback's
  // Whether the call's operands are in device or managed memory, found without starting a
  // device; null: the route takes host memory only.
  bool (*resident)(const Call& call) = nullptr;
  // How the fallback runs a call whose operands are resident (the route declined or failed, or
  // the fallback is forced): on host copies of those in device memory, which the host cannot
  // read. Null: the fallback is handed the call as it is.
  void (*fallback_on_host)(const Call& call,
                           const std::function<void(const Call&)>& fallback) = nullptr;
};

// Why a route's run, once under way, found the call not its to take (xGELS's scaling, seen
// only from the operands on the device): set before the run returns false with the data
// untouched, so that the trace says "declines" rather than "failed".
inline thread_local const char* declined_while_running = nullptr;

// What a route's run adds to the trace of a call it ran and to the report (the devices it split
// the work over), or null: set by the run, kept for the life of the process.
inline thread_local const char* ran_as = nullptr;

template <class Call>
struct Implementations {
  static inline const Implementation<Call>* cpu = nullptr;
  static inline const Implementation<Call>* gpu = nullptr;
};

template <class Call>
Candidate candidate(const Implementation<Call>* impl) {
  if (!impl) return {};
  return {true, impl->unusable, impl->forced_only, impl->pays, impl->cost};
}

// The decision for a call an accelerated backend declined or failed:
// "cpu route declines: TSQR needs m >= n".
inline Decision fell_back(Backend b, const char* what, const char* why) {
  Decision d;
  std::snprintf(d.reason, sizeof d.reason, "%s route %s: %s", backend_name(b), what, why);
  return d;
}

// The model's seconds for a call of `r` on backend b, before as_run's scaling: the fallback's,
// or the route's own cost; 0 where the route has none.
template <class Call>
double unscaled_seconds(Backend b, Routine r, const Shape& s, const HostView& host,
                        const Implementation<Call>* cpu, const Implementation<Call>* gpu) {
  if (b == Backend::fallback) return fallback_seconds(host.figures->rates, r, s);
  const Implementation<Call>* impl = b == Backend::gpu ? gpu : cpu;
  return impl && impl->cost ? impl->cost->seconds(s, *host.figures) : 0.0;
}

// A route that has run well over its model's time on the class casts doubt on the fallback's
// figures too, which the calls it takes never measure: while the fallback's own time on the class
// is not yet known and its model's is within twice the route's as run, the call runs in the
// fallback, and so, through the first call that is not counted, the next two, after which the
// model weighs both by their times as run. Such a call costs the program nothing against the
// same program without Switchyard. Says so in `d`'s reason where it is written.
inline constexpr double kDoubtfulRatio = 1.25;
template <class Call>
void measure_the_fallback_where_in_doubt(Routine r, const Shape& s, const HostView& host,
                                         const Implementation<Call>* cpu,
                                         const Implementation<Call>* gpu, bool traced,
                                         Decision& d) {
  if (d.backend == Backend::fallback) return;
  const double ratio = host.as_run[int(d.backend)];
  if (ratio < kDoubtfulRatio || as_run::counted(r, int(Backend::fallback), s) >= 2) return;
  const double route_s = unscaled_seconds(d.backend, r, s, host, cpu, gpu) * ratio;
  if (!(fallback_seconds(host.figures->rates, r, s) <= 2 * route_s)) return;
  const Backend was = d.backend;
  d.backend = Backend::fallback;
  d.cold.reset();
  if (!traced) return;
  const std::size_t used = std::strlen(d.reason);
  std::snprintf(d.reason + used, sizeof d.reason - used,
                "; in the fallback to measure it: the %s route ran at %.2g times its model",
                backend_name(was), ratio);
}

// `figures` gives those of the library `run_fallback` hands the call to (calibration.hpp), read
// only for a call the router weighs: finding them resolves the fallback's LAPACK and reads the
// calibration, which a program's small calls never need.
template <class Call, class Fallback>
void dispatch(Routine r, Shape s, const char* quick, const Calibration& (*figures)(),
              const Call& call, Fallback&& run_fallback) {
  const Implementation<Call>* cpu = Implementations<Call>::cpu;
  const Implementation<Call>* gpu = Implementations<Call>::gpu;
  if (!quick && gpu && gpu->resident) s.on_device = gpu->resident(call);
  const Config& cfg = config();
  device::start_in_background_once(cfg.start == StartMode::background);
  // A call that goes to the fallback on sight is neither weighed nor described (unless the trace
  // wants its reason): it costs its checks and its count, and its time only where the report is
  // asked for (docs/router.md, "Small calls").
  const bool on_sight = !trace_enabled() && fallback_on_sight(cfg, r, s, quick);
  CallRecord record(r, s, !on_sight || cfg.report);
  const auto fall_back = [&] {
    if (s.on_device && gpu->fallback_on_host) {
      gpu->fallback_on_host(call, [&](const Call& on_host) { run_fallback(on_host); });
    } else {
      run_fallback(call);
    }
  };
  if (on_sight) {
    fall_back();
    return;
  }
  const bool weighed = (cpu && cpu->cost) || (gpu && gpu->cost);
  HostView host = weighed ? current_host_view(figures()) : HostView{};
  host.nested = record.depth() > 0;
  // A program's own call in host memory is timed as run, so that the calls after it of its class
  // are weighed by what it took (as_run.hpp); the calls a routed call makes are part of its time.
  const bool timed = weighed && !host.nested && !s.on_device;
  if (timed) {
    for (int b = 0; b < backend_count; ++b) host.as_run[b] = as_run::ratio(r, b, s);
  }
  Decision d = decide(cfg, r, s, quick, candidate(cpu), candidate(gpu),
                      weighed ? &host : nullptr, record.traced());
  if (timed && cfg.route[int(r)] == RouteChoice::automatic) {
    measure_the_fallback_where_in_doubt(r, s, host, cpu, gpu, record.traced(), d);
  }
  // What a call kept off a cold device forwent is counted once it has run, from the time its
  // alternative took (route.hpp's ColdDecline), and said in its trace line.
  const std::optional<ColdDecline> cold = d.cold;
  const auto began =
      timed || cold ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  const auto finish = [&] {
    if (timed || cold) {
      const std::chrono::duration<double> ran = std::chrono::steady_clock::now() - began;
      if (cold) {
        count_forgone(*cold, cold->gain(ran.count()), record.traced() ? d.reason : nullptr,
                      sizeof d.reason);
      }
      if (timed) {
        as_run::record(r, int(d.backend), s, unscaled_seconds(d.backend, r, s, host, cpu, gpu),
                       ran.count());
      }
    }
    record.set_decision(d);
  };
  if (d.backend != Backend::fallback) {
    const Implementation<Call>* impl = d.backend == Backend::gpu ? gpu : cpu;
    declined_while_running = nullptr;
    ran_as = nullptr;
    if (const char* why_not = impl->declines(call)) {
      d = fell_back(d.backend, "declines", why_not);
    } else if (impl->run(call)) {
      if (ran_as) {
        const std::size_t used = std::strlen(d.reason);
        std::snprintf(d.reason + used, sizeof d.reason - used, "; %s", ran_as);
        record.set_split_over(ran_as);
      }
      finish();
      return;
    } else if (declined_while_running) {
      d = fell_back(d.backend, "declines", declined_while_running);
    } else {
      d = fell_back(d.backend, "failed", "ran in the fallback");
    }
  }
  fall_back();
  finish();
}

}  // namespace switchyard
