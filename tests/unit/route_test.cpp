#include <gtest/gtest.h>

#include <cstdio>

#include <string>

#include "route.hpp"

namespace switchyard {
namespace {

Config defaults() {
  std::vector<std::string> warnings;
  return parse_config([](const char*) -> const char* { return nullptr; }, warnings);
}

const char* ready() { return nullptr; }
const char* without_device() { return "no CUDA device"; }
int probes = 0;
const char* counted_probe() {
  ++probes;
  return nullptr;
}

const Candidate absent{};
const Candidate usable{true, ready};
const Candidate no_device{true, without_device};

const Shape big_gemm{4096, 4096, 4096, 'N', 'N'};
const Shape small_gemm{8, 8, 8, 'N', 'T'};
const Shape tall{1 << 22, 64};

TEST(Route, WithoutRoutesEverythingFallsBackAndSaysWhy) {
  const Config c = defaults();
  Decision d = decide(c, Routine::dgemm, big_gemm, nullptr, absent, absent);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "no accelerated dgemm route in this build");
  d = decide(c, Routine::dgemm, small_gemm, nullptr, absent, absent);
  EXPECT_EQ(std::string(d.reason).rfind("too small", 0), 0u) << d.reason;
}

TEST(Route, AutoPrefersGpuThenCpu) {
  const Config c = defaults();
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, usable, usable).backend, Backend::gpu);
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, usable, no_device).backend, Backend::cpu);
  const Decision d = decide(c, Routine::dgeqrf, tall, nullptr, absent, no_device);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "no CUDA device");
}

const char* only_when_forced() { return "only when forced"; }

TEST(Route, ForcedOnlyRoutesAreLeftToTheFallbackUnlessForced) {
  Config c = defaults();
  const Candidate manual{true, ready, only_when_forced};
  Decision d = decide(c, Routine::dgeqrf, tall, nullptr, manual, absent);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "only when forced");
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, manual, usable).backend, Backend::gpu);
  c.route[int(Routine::dgeqrf)] = RouteChoice::cpu;
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, manual, absent).backend, Backend::cpu);
}

bool costs_more(const Shape&, char* why, std::size_t size) {
  std::snprintf(why, size, "does not pay: modelled");
  return false;
}

TEST(Route, ACostModelThatSaysNoSendsAutoCallsToTheNextRouteOrTheFallback) {
  Config c = defaults();
  const Candidate costly{true, ready, nullptr, costs_more};
  Decision d = decide(c, Routine::dgemm, big_gemm, nullptr, absent, costly);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "gpu route does not pay: modelled");
  EXPECT_EQ(decide(c, Routine::dgemm, big_gemm, nullptr, usable, costly).backend, Backend::cpu);
  // Forced, the cost model is not asked.
  c.route[int(Routine::dgemm)] = RouteChoice::gpu;
  EXPECT_EQ(decide(c, Routine::dgemm, big_gemm, nullptr, absent, costly).backend, Backend::gpu);
}

TEST(Route, DevicesAreProbedOnlyForCallsThatCouldUseThem) {
  Config c = defaults();
  const Candidate gpu{true, counted_probe};
  probes = 0;
  decide(c, Routine::dgemm, small_gemm, nullptr, absent, gpu);
  decide(c, Routine::dgemm, big_gemm, "quick return: empty C", absent, gpu);
  c.route[int(Routine::dgemm)] = RouteChoice::fallback;
  decide(c, Routine::dgemm, big_gemm, nullptr, absent, gpu);
  EXPECT_EQ(probes, 0);
  c.route[int(Routine::dgemm)] = RouteChoice::automatic;
  EXPECT_EQ(decide(c, Routine::dgemm, big_gemm, nullptr, absent, gpu).backend, Backend::gpu);
  EXPECT_EQ(probes, 1);
}

TEST(Route, ShapeRulesUseTheThresholds) {
  Config c = defaults();
  c.thresholds.tsqr_min_rows = 1000;
  c.thresholds.tsqr_min_aspect = 10;
  EXPECT_EQ(decide(c, Routine::sgeqrf, {999, 8}, nullptr, usable, usable).backend,
            Backend::fallback);
  EXPECT_EQ(decide(c, Routine::sgeqrf, {1000, 100}, nullptr, usable, usable).backend, Backend::gpu);
  const Decision wide = decide(c, Routine::sgeqrf, {1000, 101}, nullptr, usable, usable);
  EXPECT_EQ(wide.backend, Backend::fallback);
  EXPECT_EQ(std::string(wide.reason).rfind("not tall-skinny", 0), 0u) << wide.reason;
  c.thresholds.gemm_min_flops = 1000;
  EXPECT_EQ(decide(c, Routine::sgemm, small_gemm, nullptr, usable, usable).backend, Backend::gpu);
}

TEST(Route, ForcedRoutes) {
  Config c = defaults();
  c.route[int(Routine::dgemm)] = RouteChoice::gpu;
  EXPECT_EQ(decide(c, Routine::dgemm, small_gemm, nullptr, absent, usable).backend, Backend::gpu);
  Decision d = decide(c, Routine::dgemm, small_gemm, nullptr, absent, no_device);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "forced gpu: no CUDA device");
  d = decide(c, Routine::dgemm, small_gemm, nullptr, absent, absent);
  EXPECT_STREQ(d.reason, "forced gpu: dgemm has no gpu route in this build");
  c.route[int(Routine::dgemm)] = RouteChoice::fallback;
  d = decide(c, Routine::dgemm, big_gemm, nullptr, usable, usable);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "forced");
  c.route[int(Routine::dgemm)] = RouteChoice::cpu;
  EXPECT_EQ(decide(c, Routine::dgemm, small_gemm, nullptr, usable, usable).backend, Backend::cpu);
}

TEST(Route, DisabledAndQuickReturnsBeatEverything) {
  Config c = defaults();
  c.route[int(Routine::dgeqrf)] = RouteChoice::gpu;
  Decision d = decide(c, Routine::dgeqrf, tall, "workspace query", usable, usable);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "workspace query");
  c.disabled = true;
  d = decide(c, Routine::dgeqrf, tall, nullptr, usable, usable);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "disabled");
}

}  // namespace
}  // namespace switchyard

namespace switchyard {
namespace {

// fallback_on_sight lets a call skip decide(): it must never say so of a call decide() would
// send elsewhere, whatever the routes.
TEST(Route, OnSightOnlyWhatDecideSendsToTheFallback) {
  Config c = defaults();
  const Shape device_small{8, 8, 8, 'N', 'N', true};
  for (Routine r : {Routine::dgemm, Routine::dsyrk, Routine::dgeqrf, Routine::dormqr}) {
    for (const Shape& s : {small_gemm, big_gemm, tall, device_small}) {
      for (RouteChoice choice : {RouteChoice::automatic, RouteChoice::gpu, RouteChoice::cpu,
                                 RouteChoice::fallback}) {
        c.route[int(r)] = choice;
        if (!fallback_on_sight(c, r, s, nullptr)) continue;
        EXPECT_EQ(decide(c, r, s, nullptr, usable, usable).backend, Backend::fallback)
            << routine_name(r) << " " << s.m << " x " << s.n;
      }
    }
  }
}

TEST(Route, OnSightTakesSmallCallsQuickReturnsAndTheDisabledLibrary) {
  Config c = defaults();
  EXPECT_TRUE(fallback_on_sight(c, Routine::dgemm, small_gemm, nullptr));
  EXPECT_TRUE(fallback_on_sight(c, Routine::dgeqrf, Shape{100, 10}, nullptr));
  EXPECT_TRUE(fallback_on_sight(c, Routine::dgemm, big_gemm, "workspace query"));
  EXPECT_FALSE(fallback_on_sight(c, Routine::dgemm, big_gemm, nullptr));
  EXPECT_FALSE(fallback_on_sight(c, Routine::dgeqrf, tall, nullptr));
  // A small call on device memory is the device's; a forced route is weighed by decide().
  Shape on_device = small_gemm;
  on_device.on_device = true;
  EXPECT_FALSE(fallback_on_sight(c, Routine::dgemm, on_device, nullptr));
  c.route[int(Routine::dgemm)] = RouteChoice::gpu;
  EXPECT_FALSE(fallback_on_sight(c, Routine::dgemm, small_gemm, nullptr));
  c.disabled = true;
  EXPECT_TRUE(fallback_on_sight(c, Routine::dgemm, big_gemm, nullptr));
}

}  // namespace
}  // namespace switchyard
