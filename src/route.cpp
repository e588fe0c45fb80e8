#include "route.hpp"

#include <cstdarg>
#include <cstdio>
#include <optional>

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

// The rule of the tall-skinny QR family: m rows and n columns (reflectors).
bool tall_skinny(const Thresholds& t, std::int64_t m, std::int64_t n, Decision& why_not) {
  if (m < t.tsqr_min_rows) {
    why_not = make(Backend::fallback, "too small: m %lld < %lld", (long long)m,
                   (long long)t.tsqr_min_rows);
    return false;
  }
  if (double(m) < t.tsqr_min_aspect * double(n)) {
    why_not = make(Backend::fallback, "not tall-skinny: m/n %.3g < %.3g", double(m) / double(n),
                   t.tsqr_min_aspect);
    return false;
  }
  return true;
}

// Whether a call of this shape pays for an accelerated route; if not, why
// not goes to `why_not`. Each routine family has its rule here, with its
// threshold from the config.
bool pays(const Thresholds& t, Routine r, const Shape& s, Decision& why_not) {
  switch (r) {
    case Routine::sgemm:
    case Routine::dgemm:
    case Routine::ssyrk:
    case Routine::dsyrk: {
      const double flops = routine_flops(r, s);
      if (flops < t.gemm_min_flops) {
        why_not = make(Backend::fallback, "too small: %.3g flops < %.3g", flops,
                       t.gemm_min_flops);
        return false;
      }
      break;
    }
    case Routine::sgeqrf:
    case Routine::dgeqrf:
    case Routine::sorgqr:
    case Routine::dorgqr:
      return tall_skinny(t, s.m, s.n, why_not);
    case Routine::sormqr:
    case Routine::dormqr:
      // Q is m x m (SIDE = 'L') or n x n, made of k reflectors.
      return tall_skinny(t, s.transa == 'L' ? s.m : s.n, s.k, why_not);
  }
  return true;
}

// A cold device is started for a call only when the model puts the call there, start-up
// included, at least this much faster than the fallback: the start-up itself varies from process
// to process (on the H200, CUDA's from about 0.23 to 0.32 s and OpenCL's from 0.24 to 0.35 s
// in back-to-back processes), so a call the model puts a few percent ahead can lose by more
// than a tenth. Such a call runs in the fallback, which takes the time it always took.
constexpr double kColdMargin = 1.1;

// Whether a device route's modelled time, plus the start-up it would wait for, beats the
// fallback's on this host; if not, why not goes to `why`, and for a call kept off a cold device
// that alone would pay, what it forwent goes to `cold`. With uncertain figures the device must
// be twice as fast; a cold one must also be kColdMargin faster.
bool weigh(const DeviceCost& cost, const HostView& host, double startup, Routine r,
           const Shape& s, char* why, std::size_t size, std::optional<ColdDecline>& cold) {
  const double fallback = fallback_seconds(*host.rates, r, s);
  const double device = cost.seconds(s);
  const double factor = host.certain ? 1.0 : 2.0;
  const char* uncertain = host.certain ? "" : " (uncalibrated: the device must be twice as fast)";
  if (device * factor >= fallback) {
    std::snprintf(why, size, "does not pay: device %.3g s, fallback %.3g s%s", device, fallback,
                  uncertain);
    return false;
  }
  if (startup > 0.0 && (device + startup) * factor * kColdMargin >= fallback) {
    // Ski rental: once the calls kept off the device would together have paid for its start,
    // it starts in the background, so that the calls after it stop forgoing their gain, and no
    // call waits for it. The gain counted is the fallback's time over the margin, less the
    // device's.
    const double gain = fallback / (factor * kColdMargin) - device;
    const double forgone = host.forgone_s[int(cost.family)] + gain;
    if (!host.nested) cold = ColdDecline{cost.family, gain, forgone >= startup};
    std::snprintf(why, size, "cold device: start-up %.2g s > gain %.2g s at a %.0f%% margin%s%s",
                  startup, gain, 100 * (kColdMargin - 1), uncertain,
                  cold && cold->start ? "; starting it in the background for the calls to come"
                                      : "");
    return false;
  }
  return true;
}

Decision forced(Backend b, const Candidate& c, const char* routine) {
  if (!c.registered) {
    return make(Backend::fallback, "forced %s: %s has no %s route in this build",
                backend_name(b), routine, backend_name(b));
  }
  if (const char* why = c.unusable()) {
    return make(Backend::fallback, "forced %s: %s", backend_name(b), why);
  }
  return make(b, "forced");
}

}  // namespace

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::fallback: return "fallback";
    case Backend::cpu: return "cpu";
    case Backend::gpu: return "gpu";
  }
  return "?";
}

double startup_to_pay(device::State state, double elapsed, double estimate) {
  switch (state) {
    case device::State::cold: return estimate;
    case device::State::starting: return estimate > elapsed ? estimate - elapsed : 0.0;
    case device::State::started:
    case device::State::failed: return 0.0;
  }
  return estimate;
}

HostView current_host_view() {
  const Calibration& c = calibration();
  HostView v;
  v.rates = &c.figures.rates;
  v.certain = c.certain;
  for (device::Family f : {device::Family::cuda, device::Family::opencl}) {
    const double estimate =
        f == device::Family::cuda ? c.figures.cuda_start_s : c.figures.opencl_start_s;
    v.startup_s[int(f)] = startup_to_pay(device::state(f), device::seconds_starting(f), estimate);
    v.forgone_s[int(f)] = device::forgone_seconds(f);
    v.inherited[int(f)] = device::inherited_by_fork(f);
  }
  return v;
}

Decision decide(const Config& cfg, Routine r, const Shape& s, const char* quick,
                const Candidate& cpu, const Candidate& gpu, const HostView* host) {
  const char* name = routine_name(r);
  if (cfg.disabled) return make(Backend::fallback, "disabled");
  if (quick) return make(Backend::fallback, "%s", quick);
  switch (cfg.route[int(r)]) {
    case RouteChoice::fallback: return make(Backend::fallback, "forced");
    case RouteChoice::gpu: return forced(Backend::gpu, gpu, name);
    case RouteChoice::cpu: return forced(Backend::cpu, cpu, name);
    case RouteChoice::automatic: break;
  }
  Decision why_not;
  if (!s.on_device && !pays(cfg.thresholds, r, s, why_not)) return why_not;
  const char* why_not_accelerated = nullptr;
  std::optional<Decision> not_paying;  // a route whose cost model said no
  std::optional<ColdDecline> cold;     // and what a cold device's route forwent
  const auto declined = [&](Backend b, const char* costly) {
    if (!not_paying) not_paying = make(Backend::fallback, "%s route %s", backend_name(b), costly);
  };
  for (Backend b : {Backend::gpu, Backend::cpu}) {
    const Candidate& c = b == Backend::gpu ? gpu : cpu;
    if (!c.registered) continue;
    if (c.forced_only) {
      if (!why_not_accelerated) why_not_accelerated = c.forced_only;
      continue;
    }
    char costly[sizeof Decision::reason];
    const bool weighed = c.cost && host && !s.on_device;
    if (c.cost && host && host->inherited[int(c.cost->family)]) {
      if (!why_not_accelerated) {
        why_not_accelerated = "the device was started before fork(): not usable in this process";
      }
      continue;
    }
    // Before anything starts: a cold device is started only for a call that pays for it.
    if (weighed && !weigh(*c.cost, *host, host->startup_s[int(c.cost->family)], r, s, costly,
                          sizeof costly, cold)) {
      declined(b, costly);
      continue;
    }
    if (const char* why = c.unusable()) {
      if (!why_not_accelerated) why_not_accelerated = why;
      continue;
    }
    // Started now: the device's own figures (its tuning entry) may differ from the shipped ones.
    std::optional<ColdDecline> started;  // never set: no start-up is weighed here
    if (weighed && !weigh(*c.cost, *host, 0.0, r, s, costly, sizeof costly, started)) {
      declined(b, costly);
      continue;
    }
    if (s.on_device) return make(b, "operands in device memory");
    if (!c.pays || c.pays(s, costly, sizeof costly)) return make(b, "auto");
    declined(b, costly);
  }
  if (not_paying) {
    not_paying->cold = cold;
    return *not_paying;
  }
  if (why_not_accelerated) return make(Backend::fallback, "%s", why_not_accelerated);
  return make(Backend::fallback, "no accelerated %s route in this build", name);
}

}  // namespace switchyard
