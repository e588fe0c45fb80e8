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
    case Routine::dgemm: {
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

Decision decide(const Config& cfg, Routine r, const Shape& s, const char* quick,
                const Candidate& cpu, const Candidate& gpu) {
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
  if (!pays(cfg.thresholds, r, s, why_not)) return why_not;
  const char* why_not_accelerated = nullptr;
  std::optional<Decision> not_paying;  // a usable route whose cost model said no
  for (Backend b : {Backend::gpu, Backend::cpu}) {
    const Candidate& c = b == Backend::gpu ? gpu : cpu;
    if (!c.registered) continue;
    const char* why = c.forced_only ? c.forced_only : c.unusable();
    if (!why) {
      char costly[sizeof Decision::reason];
      if (!c.pays || c.pays(s, costly, sizeof costly)) return make(b, "auto");
      if (!not_paying) not_paying = make(Backend::fallback, "%s route %s", backend_name(b), costly);
      continue;
    }
    if (!why_not_accelerated) why_not_accelerated = why;
  }
  if (not_paying) return *not_paying;
  if (why_not_accelerated) return make(Backend::fallback, "%s", why_not_accelerated);
  return make(Backend::fallback, "no accelerated %s route in this build", name);
}

}  // namespace switchyard
