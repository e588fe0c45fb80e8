#include "route.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <optional>

#include "device/start_extras.hpp"

namespace switchyard {
namespace {

Decision make(Backend b, const char* format, ...) {
  Decision d;
  d.backend = b;
  va_list args;
  va_start(args, format);
  std::vsnprintf(d.reason, sizeof d.reason, format, args);
  va_end(args);
  return d;
}

// Writes the reasons of a decision, or nothing when no one will read them: formatting a call's
// figures took about half of the 0.6 us that weighing a call past the thresholds cost (a
// 16 x 16 x 16 dgemm weighed on the 2-core development machine), and only the trace shows them.
class Reasons {
 public:
  explicit Reasons(bool wanted) : wanted_(wanted) {}

  __attribute__((format(printf, 3, 4))) Decision make(Backend b, const char* format, ...) const {
    Decision d;
    d.backend = b;
    if (!wanted_) return d;
    va_list args;
    va_start(args, format);
    std::vsnprintf(d.reason, sizeof d.reason, format, args);
    va_end(args);
    return d;
  }

  __attribute__((format(printf, 4, 5))) void write(char* to, std::size_t size, const char* format,
                                                   ...) const {
    if (!wanted_) return;
    va_list args;
    va_start(args, format);
    std::vsnprintf(to, size, format, args);
    va_end(args);
  }

  // Adds "; more" to d's reason, as far as it fits.
  void append(Decision& d, const char* more) const {
    if (!wanted_) return;
    const std::size_t used = std::strlen(d.reason);
    std::snprintf(d.reason + used, sizeof d.reason - used, "; %s", more);
  }

  bool wanted() const { return wanted_; }

 private:
  bool wanted_;
};

// The rule of the tall-skinny QR family: m rows and n columns (reflectors). Why a call fails it
// goes to `why_not` when that is not null: a small call that no trace shows is not described.
bool tall_skinny(const Thresholds& t, std::int64_t m, std::int64_t n, Decision* why_not) {
  if (m < t.tsqr_min_rows) {
    if (why_not) {
      *why_not = make(Backend::fallback, "too small: m %lld < %lld", (long long)m,
                      (long long)t.tsqr_min_rows);
    }
    return false;
  }
  if (double(m) < t.tsqr_min_aspect * double(n)) {
    if (why_not) {
      *why_not = make(Backend::fallback, "not tall-skinny: m/n %.3g < %.3g", double(m) / double(n),
                      t.tsqr_min_aspect);
    }
    return false;
  }
  return true;
}

// The rows of Q in a call of the tall-skinny QR family (xORMQR's Q is m x m with SIDE = 'L', else
// n x n); 0 for any other routine.
std::int64_t qr_rows(Routine r, const Shape& s) {
  switch (r) {
    case Routine::sgemm:
    case Routine::dgemm:
    case Routine::ssyrk:
    case Routine::dsyrk:
      return 0;
    case Routine::sormqr:
    case Routine::dormqr:
      return s.transa == 'L' ? s.m : s.n;
    default:
      return s.m;
  }
}

// The fewest rows of Q on which backend b's route of the QR family is weighed (the host's own
// without figures: as without its short-block rates).
std::int64_t route_min_rows(const Thresholds& t, Backend b, Routine r, const HostView* host) {
  if (b != Backend::cpu) return t.tsqr_min_rows;
  return host_route_min_rows(t, host ? host->figures->cpu_tsqr : CpuRouteRates{},
                             single_precision(r) ? 1 : 0);
}

// Whether a call of this shape passes its routine family's threshold from the config; if not,
// why not goes to `why_not` when that is not null.
bool past_thresholds(const Thresholds& t, Routine r, const Shape& s, Decision* why_not) {
  switch (r) {
    case Routine::sgemm:
    case Routine::dgemm:
    case Routine::ssyrk:
    case Routine::dsyrk: {
      const double flops = routine_flops(r, s);
      if (flops < t.gemm_min_flops) {
        if (why_not) {
          *why_not =
              make(Backend::fallback, "too small: %.3g flops < %.3g", flops, t.gemm_min_flops);
        }
        return false;
      }
      break;
    }
    case Routine::sgeqrf:
    case Routine::dgeqrf:
    case Routine::psgeqrf:
    case Routine::pdgeqrf:
    case Routine::sorgqr:
    case Routine::dorgqr:
    case Routine::sgeqp3:
    case Routine::dgeqp3:
    case Routine::sgels:
    case Routine::dgels:
    case Routine::sgelsd:
    case Routine::dgelsd:
    case Routine::sgesdd:
    case Routine::dgesdd:
    case Routine::sgesvd:
    case Routine::dgesvd:
      return tall_skinny(t, s.m, s.n, why_not);
    case Routine::sormqr:
    case Routine::dormqr:
      // Q's rows, made of k reflectors.
      return tall_skinny(t, qr_rows(r, s), s.k, why_not);
  }
  return true;
}

// A cold device is started for a call only when the model puts the call there, start-up
// included, at least this much faster than the fallback: the start-up itself varies from process
// to process (on the H200, CUDA's from about 0.23 to 0.32 s and OpenCL's from 0.24 to 0.35 s
// in back-to-back processes), so a call the model puts a few percent ahead can lose by more
// than a tenth. Such a call runs in the fallback, which takes the time it always took.
constexpr double kColdMargin = 1.1;

// What a call would take if a weighed route did not run it: in the fallback, or in a route on
// the host's cores that the model puts ahead of the fallback.
struct Alternative {
  double seconds;
  const char* name;  // "fallback", "cpu route"
};

// A route's modelled seconds for a call, its device started, scaled by its time as run on the
// calls of the class so far. A route on the host's cores pays its first call's extra in full:
// it is too short to be worth a ski rental.
double modelled_seconds(const RouteCost& cost, const HostView& host, const Shape& s) {
  const Backend b = cost.family ? Backend::gpu : Backend::cpu;
  const double seconds = cost.seconds(s, *host.figures) * host.as_run[int(b)];
  return cost.first_call_s ? seconds + cost.first_call_s(*host.figures) : seconds;
}

// The start-up a call on `cost`'s device would wait for now: the whole start, the calibrated
// figure and what this process adds (for OpenCL, a compile when no program is built yet), less
// what a start under way has run; none for a route on the host or a started device. What this
// process adds counts while the start runs: a start in the background that had outrun the
// calibrated figure still had its compile ahead, and a call sent to wait for it lost 1 s.
double startup_of(const RouteCost& cost, const HostView& host) {
  if (!cost.family) return 0.0;
  const int f = int(*cost.family);
  const double estimate = host.startup_s[f];
  if (estimate <= 0.0) return 0.0;
  // What this process saves (the driver another family started) never takes more than half of
  // a start: the context is still to make, 100-140 ms of the H200's 230-330.
  const double whole = host.start_extra_s
                           ? std::max(estimate / 2, estimate + host.start_extra_s(*cost.family))
                           : estimate;
  return std::max(0.0, whole - host.starting_s[f]);
}

// Whether a route's modelled time, plus the start-up of the device it would wait for, beats
// `other`; if not, why not goes to `why`, and for a call kept off a cold device that alone would
// pay, what it forwent goes to `cold`. With uncertain figures the route must be twice as fast; a
// cold device must also be kColdMargin faster.
bool weigh(const RouteCost& cost, const HostView& host, bool with_startup, const Alternative& other,
           const Shape& s, const Reasons& say, char* why, std::size_t size,
           std::optional<ColdDecline>& cold) {
  const double route = modelled_seconds(cost, host, s);
  const bool certain = host.certain && (cost.family || host.host_routes_certain);
  const double factor = certain ? 1.0 : 2.0;
  const char* uncertain = certain ? "" : " (uncalibrated: the route must be twice as fast)";
  const char* where = cost.family ? "device" : "cpu route";
  if (route * factor >= other.seconds) {
    say.write(why, size, "does not pay: %s %.3g s, %s %.3g s%s", where, route, other.name,
              other.seconds, uncertain);
    return false;
  }
  // Asked only of a call that would pay on a started device: reading the process's size (and,
  // for OpenCL, the cache directory) costs a small call more than its own time.
  const double startup = with_startup ? startup_of(cost, host) : 0.0;
  if (cost.family && startup > 0.0 && (route + startup) * factor * kColdMargin >= other.seconds) {
    // Ski rental: once the calls kept off the device would together have paid for its start,
    // it starts in the background, so that the calls after it stop forgoing their gain, and no
    // call waits for it. What each forwent is counted once it has run (count_forgone()).
    const ColdDecline decline{*cost.family, route, factor * kColdMargin, other.seconds, startup};
    if (!host.nested) cold = decline;
    say.write(why, size, "cold device: start-up %.2g s > gain %.2g s at a %.0f%% margin%s", startup,
              decline.modelled_gain(), 100 * (kColdMargin - 1), uncertain);
    return false;
  }
  return true;
}

Decision forced(Backend b, const Candidate& c, const char* routine, const Reasons& say) {
  if (!c.registered) {
    return say.make(Backend::fallback, "forced %s: %s has no %s route in this build",
                    backend_name(b), routine, backend_name(b));
  }
  if (const char* why = c.unusable()) {
    return say.make(Backend::fallback, "forced %s: %s", backend_name(b), why);
  }
  return say.make(b, "forced");
}

}  // namespace

std::int64_t host_route_min_rows(const Thresholds& t, const CpuRouteRates& rates, int precision) {
  return cpu_tsqr_short_measured(rates, precision)
             ? t.tsqr_min_rows
             : std::max<std::int64_t>(t.tsqr_min_rows, kCpuTsqrSizedRows);
}

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::fallback:
      return "fallback";
    case Backend::cpu:
      return "cpu";
    case Backend::gpu:
      return "gpu";
  }
  return "?";
}

HostView current_host_view(const Calibration& c) {
  HostView v;
  v.figures = &c.figures;
  v.certain = c.certain;
  v.host_routes_certain = c.cpu_tsqr_certain;
  v.start_extra_s = device::start_extra_s;
  for (device::Family f : {device::Family::cuda, device::Family::opencl}) {
    const double estimate =
        f == device::Family::cuda ? c.figures.cuda_start_s : c.figures.opencl_start_s;
    const device::State state = device::state(f);
    const bool to_pay = state == device::State::cold || state == device::State::starting;
    v.startup_s[int(f)] = to_pay ? estimate : 0.0;
    v.starting_s[int(f)] = device::seconds_starting(f);
    v.inherited[int(f)] = device::inherited_by_fork(f);
  }
  return v;
}

void count_forgone(const ColdDecline& c, double gain_s, char* reason, std::size_t size) {
  device::forgo(c.family, gain_s);
  const double forgone = device::forgone_seconds(c.family);
  // Never the first call alone, whatever it took: a program that makes one call does not wait
  // at its exit for a start under way (cold-start.md, "Starting in the background").
  const bool start = forgone >= c.startup_s && forgone > gain_s;
  if (start) device::start_in_background(c.family);
  if (!reason) return;
  const std::size_t used = strnlen(reason, size);
  if (used + 1 >= size) return;
  std::snprintf(reason + used, size - used, "; forwent %.2g s, %.2g s in all%s", gain_s, forgone,
                start ? ": starting the device in the background" : "");
}

bool fallback_on_sight(const Config& cfg, Routine r, const Shape& s, const char* quick) {
  if (cfg.disabled || quick) return true;
  return cfg.route[int(r)] == RouteChoice::automatic && !s.on_device &&
         !past_thresholds(cfg.thresholds, r, s, nullptr);
}

Decision decide(const Config& cfg, Routine r, const Shape& s, const char* quick,
                const Candidate& cpu, const Candidate& gpu, const HostView* host, bool described) {
  const char* name = routine_name(r);
  const Reasons say(described);
  if (cfg.disabled) return say.make(Backend::fallback, "disabled");
  if (quick) return say.make(Backend::fallback, "%s", quick);
  switch (cfg.route[int(r)]) {
    case RouteChoice::fallback:
      return say.make(Backend::fallback, "forced");
    case RouteChoice::gpu:
      return forced(Backend::gpu, gpu, name, say);
    case RouteChoice::cpu:
      return forced(Backend::cpu, cpu, name, say);
    case RouteChoice::automatic:
      break;
  }
  Decision why_not;
  if (!s.on_device && !past_thresholds(cfg.thresholds, r, s, say.wanted() ? &why_not : nullptr)) {
    return why_not;
  }
  // Why no accelerated route runs the call, for the trace: a route that can not run now (or
  // only when forced), and a route whose cost model said no; each backend's own, the device's
  // shown first.
  const char* why_not_accelerated = nullptr;
  std::optional<Decision> not_paying[backend_count];
  std::optional<ColdDecline> cold;  // what a cold device's route forwent
  const Alternative fallback{host && !s.on_device ? fallback_seconds(host->figures->rates, r, s) *
                                                        host->as_run[int(Backend::fallback)]
                                                  : 0.0,
                             "fallback"};
  // Whether backend b takes the call rather than `other`.
  const auto takes = [&](Backend b, const Alternative& other) {
    const Candidate& c = b == Backend::gpu ? gpu : cpu;
    if (!c.registered) return false;
    if (const std::int64_t rows = qr_rows(r, s); rows > 0 && !s.on_device) {
      if (const std::int64_t least = route_min_rows(cfg.thresholds, b, r, host); rows < least) {
        not_paying[int(b)] = say.make(Backend::fallback, "%s route too small: m %lld < %lld",
                                      backend_name(b), (long long)rows, (long long)least);
        return false;
      }
    }
    if (const char* why = c.forced_only ? c.forced_only() : nullptr) {
      if (!why_not_accelerated) why_not_accelerated = why;
      return false;
    }
    char costly[sizeof Decision::reason];
    const auto declined = [&] {
      not_paying[int(b)] = say.make(Backend::fallback, "%s route %s", backend_name(b), costly);
      return false;
    };
    const bool weighed = c.cost && host && !s.on_device;
    if (c.cost && c.cost->family && host && host->inherited[int(*c.cost->family)]) {
      if (!why_not_accelerated) {
        why_not_accelerated = "the device was started before fork(): not usable in this process";
      }
      return false;
    }
    // Before anything starts: a cold device is started only for a call that pays for it.
    if (weighed && !weigh(*c.cost, *host, true, other, s, say, costly, sizeof costly, cold)) {
      return declined();
    }
    if (const char* why = c.unusable()) {
      if (!why_not_accelerated) why_not_accelerated = why;
      return false;
    }
    // Started now: the device's own figures (its tuning entry) may differ from the shipped ones.
    std::optional<ColdDecline> started;  // never set: no start-up is weighed here
    if (weighed && c.cost->family &&
        !weigh(*c.cost, *host, false, other, s, say, costly, sizeof costly, started)) {
      return declined();
    }
    if (!c.pays || c.pays(s, costly, sizeof costly)) return true;
    return declined();
  };
  // A route taken on its cost, and for the trace what the model expected of it and of what it
  // beat, so that a call's time_ms can be held against them: "auto: device 0.0061 s (start-up
  // 0.27 s), fallback 0.0548 s". A route without a cost model is taken on the thresholds alone.
  const auto chosen = [&](Backend b, const Candidate& c, const Alternative& other) {
    if (!c.cost || !host || !say.wanted()) return say.make(b, "auto");
    const double startup = startup_of(*c.cost, *host);
    char paid[48] = "";
    if (startup > 0.0) std::snprintf(paid, sizeof paid, " (start-up %.2g s)", startup);
    return say.make(b, "auto: %s %.3g s%s, %s %.3g s", c.cost->family ? "device" : "cpu route",
                    modelled_seconds(*c.cost, *host, s), paid, other.name, other.seconds);
  };
  // Operands in device or managed memory go to the device, never to the host's cores.
  if (s.on_device) {
    if (takes(Backend::gpu, fallback)) return say.make(Backend::gpu, "operands in device memory");
  } else {
    // The host's own route first, since it starts nothing: a device must then beat it, not
    // only the fallback.
    const bool on_cpu = takes(Backend::cpu, fallback);
    const Alternative best = on_cpu && cpu.cost && host
                                 ? Alternative{modelled_seconds(*cpu.cost, *host, s), "cpu route"}
                                 : fallback;
    if (takes(Backend::gpu, best)) return chosen(Backend::gpu, gpu, best);
    if (on_cpu) {
      Decision d = chosen(Backend::cpu, cpu, fallback);
      d.cold = cold;
      // Why the device did not take it, for the trace: cold (and whether its start is now under
      // way), or slower than this route.
      if (const std::optional<Decision>& device = not_paying[int(Backend::gpu)]) {
        say.append(d, device->reason);
      }
      return d;
    }
  }
  // Each route's reason, the device's first.
  std::optional<Decision>& device = not_paying[int(Backend::gpu)];
  std::optional<Decision>& host_route = not_paying[int(Backend::cpu)];
  if (device && host_route) {
    char more[sizeof Decision::reason];
    std::memcpy(more, host_route->reason, sizeof more);
    say.append(*device, more);
  }
  for (std::optional<Decision>* d : {&device, &host_route}) {
    if (*d) {
      (*d)->cold = cold;
      return **d;
    }
  }
  if (why_not_accelerated) return say.make(Backend::fallback, "%s", why_not_accelerated);
  return say.make(Backend::fallback, "no accelerated %s route in this build", name);
}

}  // namespace switchyard
