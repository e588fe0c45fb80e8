// The router: the one place that decides, for each call, which backend runs
// it and why. Entry points describe the call (routine and shape); routes
// describe themselves (registered or not, usable now or not); decide() puts
// the two together with the configuration.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>

#include "calibration.hpp"
#include "config.hpp"
#include "device/startup.hpp"
#include "routine.hpp"

namespace switchyard {

enum class Backend { fallback, cpu, gpu };
inline constexpr int backend_count = 3;
const char* backend_name(Backend b);

// A call kept off a cold device whose start no single call has paid for: what the model
// weighed it by, so that what it forwent can be counted once it has run (count_forgone()), from
// the time its alternative (the fallback, or a route on the host's cores) took as run rather
// than the model's figure for it. A host slower than its figures (a busier machine, figures
// shipped for another host) then starts the device sooner, and one faster later.
struct ColdDecline {
  device::Family family = device::Family::cuda;
  double device_s = 0.0;       // the route's modelled seconds on the started device
  double margin = 1.0;         // how much faster the device must be: the cold margin, doubled
                               // where the figures are uncertain
  double alternative_s = 0.0;  // the alternative's modelled seconds
  double startup_s = 0.0;      // the start the call would have waited for

  // The gain of the call on the started device, its alternative taking `seconds`: the
  // alternative's time over the margin, less the device's, and none where the device is ahead
  // by less than the margin, so that such a call takes nothing from what the calls before it
  // forwent.
  double gain(double seconds) const { return std::max(0.0, seconds / margin - device_s); }
  double modelled_gain() const { return gain(alternative_s); }
};

// Adds `gain_s`, what one call kept off a cold device forwent, to its family's sum; once the sum
// pays for the start, the device starts in the background for the calls to come (the ski rental
// of docs/router.md). Says both at the end of `reason` where it is not null: "; forwent 0.013 s,
// 0.13 s in all: starting the device in the background".
void count_forgone(const ColdDecline& c, double gain_s, char* reason, std::size_t size);

struct Decision {
  Backend backend = Backend::fallback;
  char reason[224] = "";
  std::optional<ColdDecline> cold;  // set when a call was kept off a cold device
};

// What an accelerated route costs, known without starting anything: for a device route, the
// family whose start-up a cold call would pay (none for a route on the host's own cores), and
// the modelled seconds of a call with its operands in host memory, the device started.
// A cost reads the figures the router weighs the call by (those of the call's fallback): a route
// on the host's cores finds its own rates there; a device's cost does not depend on them.
struct RouteCost {
  std::optional<device::Family> family;
  double (*seconds)(const Shape& s, const HostFigures& figures);
  // A route on the host's cores: what its first call in this process costs beyond a later one's
  // (its threads' first start, its memory's first touch), 0 once it has run; null: nothing.
  double (*first_call_s)(const HostFigures& figures) = nullptr;
};

// What the router knows of one backend's implementation of a routine.
struct Candidate {
  bool registered = false;  // the route exists in this build
  // Why it cannot run now (no device...), or null. Asked only when the
  // router would otherwise pick it, since the answer may start a device.
  const char* (*unusable)() = nullptr;
  // Why auto routing does not pick it, found without starting anything, or null.
  const char* (*forced_only)() = nullptr;
  // The route's cost model, asked in auto routing once the route is usable:
  // false (and why in `why`) when the call would be faster in the fallback.
  // Null: every shape past the thresholds pays.
  bool (*pays)(const Shape& s, char* why, std::size_t size) = nullptr;
  // The route's cost, weighed against the fallback's (calibration.hpp) before a device is
  // started; null for a route taken on the thresholds alone.
  const RouteCost* cost = nullptr;
};

// What the router weighs a route against: the fallback's figures on this host, and whether they
// are certain (else a route must be twice as fast), the same of the routes that run on the
// host's cores, and each device family's start-up as it stands now.
struct HostView {
  const HostFigures* figures = nullptr;
  bool certain = true;
  bool host_routes_certain = true;
  // Each family's calibrated start while it is still to pay (cold, or starting in the
  // background), 0 once started (or failed: then its routes are unusable anyway); and how long a
  // start under way has run.
  double startup_s[device::family_count] = {};
  double starting_s[device::family_count] = {};
  // What this process adds to a start still to pay (device/start_extras.hpp: its size, and for
  // OpenCL programs not yet built on this machine); asked only for a call that would pay on a
  // started device. Null: nothing.
  double (*start_extra_s)(device::Family) = nullptr;
  // What each backend's modelled time for this call is multiplied by: its time as run over its
  // model's on calls of the same class in this process (as_run.hpp), 1 where not yet known.
  double as_run[backend_count] = {1.0, 1.0, 1.0};
  bool inherited[device::family_count] = {};    // device::inherited_by_fork of each family
  // A call the fallback makes while it runs another routed call (a blocked dgeqrf's panel
  // updates): kept off a cold device, it forgoes nothing towards starting one. Its parent was
  // weighed whole, and a start in the background would take cores from the fallback running it
  // (a cold dgeqrf of 131072 x 256 kept in OpenBLAS took 583 ms against 300 for OpenBLAS alone,
  // which a start meanwhile would explain; it was not traced).
  bool nested = false;
};

// Whether decide() would send the call to the fallback on the configuration, `quick` and the
// thresholds alone, before it weighs any route: what lets the many small calls of a program skip
// the weighing and the reason no trace shows (docs/router.md, "Small calls").
bool fallback_on_sight(const Config& cfg, Routine r, const Shape& s, const char* quick);

// Decides the backend for one call. `quick` is set by the entry point when
// the call is a quick return or a workspace query, which the fallback answers.
// `host` is null where no route has a RouteCost (then none is weighed). Without `described`
// the decision's reason is left empty: only the trace reads it.
Decision decide(const Config& cfg, Routine r, const Shape& s, const char* quick,
                const Candidate& cpu, const Candidate& gpu, const HostView* host = nullptr,
                bool described = true);

// The fewest rows of Q on which the host's own QR routes are weighed in precision p ([0] double,
// [1] single): the threshold's, or, where `rates` lack the CPU TSQR's rates on short blocks,
// kCpuTsqrSizedRows, since their model knows its speed only where it was measured.
std::int64_t host_route_min_rows(const Thresholds& t, const CpuRouteRates& rates, int precision);

// The HostView of this process now: a fallback's figures and the devices' states.
HostView current_host_view(const Calibration& figures);

}  // namespace switchyard
