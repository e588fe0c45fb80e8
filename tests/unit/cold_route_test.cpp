// The router's cost rules: a device route is weighed against the fallback on this host, a cold
// device's start-up is counted, uncertain figures ask for twice the speed, and operands in
// device memory always go to the device.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "calibration.hpp"
#include "device/start_extras.hpp"
#include "route.hpp"
#include "scratch_dir.hpp"

namespace switchyard {
namespace {

Config defaults() {
  std::vector<std::string> warnings;
  return parse_config([](const char*) -> const char* { return nullptr; }, warnings);
}

int starts = 0;
const char* starting_device() {
  ++starts;
  return nullptr;
}

// A device that runs any call in 10 ms.
double ten_ms(const Shape&, const HostFigures&) { return 0.010; }
const RouteCost cuda_cost{device::Family::cuda, ten_ms};
const Candidate costed_gpu{true, starting_device, nullptr, nullptr, &cuda_cost};

// A fallback that runs dgeqrf at 1 GFLOP/s.
FallbackRates one_gflops() {
  FallbackRates r{};
  for (double* pair :
       {r.gemm_square, r.gemm_gram, r.gemm_wide, r.gemm_narrow, r.gemm_rank, r.syrk, r.syrk_wide}) {
    pair[0] = pair[1] = 1.0;
  }
  for (int z = 0; z < kQrSizeCount; ++z) {
    for (int w = 0; w < kQrWidthCount; ++w) {
      for (double* pair : {r.geqrf[z][w], r.orgqr[z][w], r.ormqr[z][w]}) pair[0] = pair[1] = 1.0;
    }
  }
  return r;
}
const HostFigures one_gflops_host = [] {
  HostFigures f;
  f.rates = one_gflops();
  return f;
}();

// A CPU TSQR that runs dgeqrf at `gflops`, after `call_s` a call and 10 ms more on its first.
CpuRouteRates cpu_tsqr_at(double gflops, double call_s = 0.003) {
  CpuRouteRates r{};
  for (auto& size : r.geqrf) {
    for (auto& width : size) width[0] = width[1] = gflops;
  }
  r.call_s = call_s;
  r.first_call_s = 0.010;
  return r;
}

HostView view(double cuda_startup, bool certain = true) {
  HostView v;
  v.figures = &one_gflops_host;
  v.certain = certain;
  v.startup_s[int(device::Family::cuda)] = cuda_startup;
  return v;
}

// 2 n^2 (m - n/3) flops: 2^17 x 32 is 0.27 GFLOP, 0.27 s in the fallback.
const Shape tall{1 << 17, 32};

TEST(ColdRoute, AColdDeviceStartsOnlyWhenTheGainCoversItsStartUp) {
  const Config c = defaults();
  starts = 0;
  const HostView cold = view(0.4);
  Decision d = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &cold);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("cold device: start-up 0.4 s > gain 0.23 s at a 10% margin"),
            std::string::npos)
      << d.reason;
  EXPECT_EQ(starts, 0) << "a call that does not pay must not start the device";
  const HostView warm = view(0.0);
  d = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &warm);
  EXPECT_EQ(d.backend, Backend::gpu);
  // The trace's reason gives what the model expected, to hold the call's time against.
  EXPECT_STREQ(d.reason, "auto: device 0.01 s, fallback 0.268 s");
  EXPECT_EQ(starts, 1);
  // A call four times larger pays for the same start-up.
  const Shape taller{1 << 19, 32};
  d = decide(c, Routine::dgeqrf, taller, nullptr, Candidate{}, costed_gpu, &cold);
  EXPECT_EQ(d.backend, Backend::gpu);
  EXPECT_STREQ(d.reason, "auto: device 0.01 s (start-up 0.4 s), fallback 1.07 s");
  // Untraced, no reason is written.
  d = decide(c, Routine::dgeqrf, taller, nullptr, Candidate{}, costed_gpu, &cold, false);
  EXPECT_EQ(d.backend, Backend::gpu);
  EXPECT_STREQ(d.reason, "");
}

// The start-up varies from process to process: a call that the model puts on a cold device only
// a few percent ahead of the fallback stays in the fallback.
TEST(ColdRoute, AColdDeviceMustWinByAMargin) {
  const Config c = defaults();
  starts = 0;
  // 0.268 s in the fallback against 0.010 + 0.245 on a cold device: 5% ahead, not 10%.
  const HostView close = view(0.245);
  const Decision d = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &close);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("cold device"), std::string::npos) << d.reason;
  EXPECT_EQ(starts, 0);
  // 0.010 + 0.2: 28% ahead.
  const HostView ahead = view(0.2);
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &ahead).backend,
            Backend::gpu);
  // Warm, the device needs only to be faster: 0.010 against 0.0105 s (20480 x 16).
  const Shape small{20480, 16};
  const HostView warm = view(0.0);
  EXPECT_EQ(decide(c, Routine::dgeqrf, small, nullptr, Candidate{}, costed_gpu, &warm).backend,
            Backend::gpu);
}

// A call kept off a cold device carries what the model weighed it by, so that what it forwent
// can be counted from its alternative's time as run: more where that ran slower than modelled,
// less where faster, none where the device is ahead by less than the margin.
TEST(ColdRoute, ACallKeptOffAColdDeviceCarriesWhatItWasWeighedBy) {
  const Config c = defaults();
  starts = 0;
  const HostView cold = view(0.4);
  const Decision d = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &cold);
  ASSERT_EQ(d.backend, Backend::fallback);
  ASSERT_TRUE(d.cold.has_value()) << d.reason;
  EXPECT_EQ(d.cold->family, device::Family::cuda);
  EXPECT_NEAR(d.cold->alternative_s, 0.268, 0.005);
  EXPECT_EQ(d.cold->device_s, 0.010);
  EXPECT_NEAR(d.cold->startup_s, 0.4, 1e-9);
  EXPECT_NEAR(d.cold->modelled_gain(), 0.268 / 1.1 - 0.010, 0.005);
  EXPECT_NEAR(d.cold->gain(0.55), 0.55 / 1.1 - 0.010, 1e-12);
  EXPECT_NEAR(d.cold->gain(0.05), 0.05 / 1.1 - 0.010, 1e-12);
  EXPECT_EQ(d.cold->gain(0.0105), 0.0);
  EXPECT_EQ(std::string(d.reason).find("background"), std::string::npos) << d.reason;
  EXPECT_EQ(starts, 0) << "the router itself starts nothing";
  // Uncertain figures double the margin.
  const HostView unsure = view(0.4, false);
  const Decision u = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &unsure);
  ASSERT_TRUE(u.cold.has_value()) << u.reason;
  EXPECT_NEAR(u.cold->margin, 2.2, 1e-12);
  // A call that would not gain on a started device forgoes nothing.
  const Decision none =
      decide(c, Routine::dgeqrf, Shape{1 << 14, 16}, nullptr, Candidate{}, costed_gpu, &cold);
  EXPECT_FALSE(none.cold.has_value()) << none.reason;
  // Nor, by the model, does one the device would run faster by less than the margin (0.010
  // against 0.0105 s).
  const Decision within =
      decide(c, Routine::dgeqrf, Shape{20480, 16}, nullptr, Candidate{}, costed_gpu, &cold);
  ASSERT_TRUE(within.cold.has_value()) << within.reason;
  EXPECT_EQ(within.cold->modelled_gain(), 0.0);
  EXPECT_NE(std::string(within.reason).find("gain 0 s"), std::string::npos) << within.reason;
}

std::atomic<int> background_starts{0};
void start_in_test() { ++background_starts; }

// What the calls kept off a device forwent adds up, and the call that brings the sum past the
// start-up starts it in the background; never the first call alone.
TEST(ColdRoute, CallsThatTogetherForgoTheStartUpStartTheDeviceInTheBackground) {
  device::register_starter(device::Family::cuda, start_in_test);
  const ColdDecline c{device::Family::cuda, 0.010, 1.1, 0.1, 0.4};
  char first[224] = "cold device";
  count_forgone(c, c.gain(1.0), first, sizeof first);
  EXPECT_STREQ(first, "cold device; forwent 0.9 s, 0.9 s in all") << "one call never starts it";
  char second[224] = "cold device";
  count_forgone(c, c.gain(0.05), second, sizeof second);
  EXPECT_STREQ(
      second, "cold device; forwent 0.035 s, 0.93 s in all: starting the device in the background");
  for (int waited = 0; background_starts.load() == 0 && waited < 5000; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(background_starts.load(), 1);
  EXPECT_NEAR(device::forgone_seconds(device::Family::cuda), 1.0 / 1.1 - 0.010 + 0.05 / 1.1 - 0.010,
              1e-12);
  count_forgone(c, 0.0, nullptr, 0);  // no reason asked for: none written
}

TEST(ColdRoute, CallsTheFallbackMakesInsideARoutedCallForgoNothing) {
  const Config c = defaults();
  starts = 0;
  HostView inside = view(0.4);
  inside.nested = true;
  const Decision d = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &inside);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("cold device"), std::string::npos) << d.reason;
  EXPECT_FALSE(d.cold.has_value()) << "its parent was weighed whole: " << d.reason;
  EXPECT_EQ(std::string(d.reason).find("background"), std::string::npos) << d.reason;
  EXPECT_EQ(starts, 0);
}

TEST(ColdRoute, ADeviceStartedBeforeForkIsLeftAlone) {
  const Config c = defaults();
  starts = 0;
  HostView forked = view(0.0);
  forked.inherited[int(device::Family::cuda)] = true;
  Shape s{1 << 20, 32};
  const Decision d = decide(c, Routine::dgeqrf, s, nullptr, Candidate{}, costed_gpu, &forked);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("fork()"), std::string::npos) << d.reason;
  EXPECT_EQ(starts, 0);
}

double compile_ahead(device::Family) { return 4.5; }

// A start under way leaves the rest of its whole to pay: the calibrated figure and what this
// process adds, less what it has run. One in the background that has outrun the calibrated
// figure may still have a compile ahead (OpenCL with no program built yet on the machine).
TEST(ColdRoute, AStartUnderWayCountsWhatIsLeftOfItsWhole) {
  const Config c = defaults();
  HostView starting = view(0.4);
  double& ran = starting.starting_s[int(device::Family::cuda)];
  ran = 0.3;
  Decision d = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &starting);
  EXPECT_EQ(d.backend, Backend::gpu);
  EXPECT_STREQ(d.reason, "auto: device 0.01 s (start-up 0.1 s), fallback 0.268 s");
  ran = 0.5;  // past the calibrated figure, nothing added: nothing left to weigh
  d = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &starting);
  EXPECT_EQ(d.backend, Backend::gpu);
  EXPECT_STREQ(d.reason, "auto: device 0.01 s, fallback 0.268 s");
  starting.start_extra_s = compile_ahead;
  ran = 1.9;  // 0.4 + 4.5 - 1.9 s still to come
  d = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &starting);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("cold device: start-up 3 s"), std::string::npos) << d.reason;
}

TEST(ColdRoute, ALargeProcessPaysTheMeasuredStepOfAStart) {
  constexpr std::size_t kGiB = std::size_t(1) << 30;
  for (device::Family f : {device::Family::cuda, device::Family::opencl}) {
    const double step = device::start_extra_for_resident(f, 32 * kGiB);
    EXPECT_GT(step, 0.05);
    EXPECT_LT(step, 0.2);
    EXPECT_DOUBLE_EQ(device::start_extra_for_resident(f, 0), 0.0);
    EXPECT_DOUBLE_EQ(device::start_extra_for_resident(f, 2 * kGiB), 0.0);
    EXPECT_DOUBLE_EQ(device::start_extra_for_resident(f, 5 * kGiB / 2), step / 2);
    EXPECT_DOUBLE_EQ(device::start_extra_for_resident(f, 3 * kGiB), step);
  }
}

// Figures of the same host: a 3 GiB process that has started the other family pays the size's
// step and saves the driver's start.
TEST(ColdRoute, TheOtherFamilyStartedSavesTheDriversStart) {
  constexpr std::size_t kGiB = std::size_t(1) << 30;
  for (device::Family f : {device::Family::cuda, device::Family::opencl}) {
    EXPECT_DOUBLE_EQ(device::start_extra_for(f, kGiB, false), 0.0);
    EXPECT_DOUBLE_EQ(device::start_extra_for(f, kGiB, true), -device::kSharedDriverStartSeconds);
    EXPECT_DOUBLE_EQ(
        device::start_extra_for(f, 3 * kGiB, true),
        device::start_extra_for_resident(f, 3 * kGiB) - device::kSharedDriverStartSeconds);
  }
}

double driver_shared(device::Family) { return -device::kSharedDriverStartSeconds; }

// 2^17 x 32: 0.27 s in the fallback, 0.01 s on the device; a calibrated start of 0.25 s keeps
// it off a cold device, which the same start less the shared driver's does not.
TEST(ColdRoute, ACallPaysForWhatIsLeftOfAStartOnASharedDriver) {
  const Config c = defaults();
  HostView alone = view(0.25);
  const Decision kept = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &alone);
  EXPECT_EQ(kept.backend, Backend::fallback);
  EXPECT_NE(std::string(kept.reason).find("cold device: start-up 0.25 s"), std::string::npos)
      << kept.reason;
  HostView shared = view(0.25);
  shared.start_extra_s = driver_shared;
  const Decision sent = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &shared);
  EXPECT_EQ(sent.backend, Backend::gpu);
  EXPECT_STREQ(sent.reason, "auto: device 0.01 s (start-up 0.17 s), fallback 0.268 s");
  // A calibrated start below the saving still leaves half of itself: the context.
  HostView short_start = view(0.1);
  short_start.start_extra_s = driver_shared;
  const Decision halved =
      decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &short_start);
  EXPECT_EQ(halved.backend, Backend::gpu);
  EXPECT_STREQ(halved.reason, "auto: device 0.01 s (start-up 0.05 s), fallback 0.268 s");
}

int size_reads = 0;
double large_process_extra(device::Family) {
  ++size_reads;
  return 0.2;
}

TEST(ColdRoute, TheProcessSizeIsAskedOnlyOfACallThatWouldPay) {
  const Config c = defaults();
  HostView cold = view(0.1);
  cold.start_extra_s = large_process_extra;
  // 2^14 x 16: 8 ms in the fallback against the device's 10: never the device, never asked.
  size_reads = 0;
  const Shape thin{1 << 14, 16};
  EXPECT_EQ(decide(c, Routine::dgeqrf, thin, nullptr, Candidate{}, costed_gpu, &cold).backend,
            Backend::fallback);
  EXPECT_EQ(size_reads, 0);
  // 2^17 x 32: 0.27 s against 0.01 s and a start of 0.1 s, which pays; with the 0.2 s a large
  // process adds, it does not.
  starts = 0;
  const Decision d = decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &cold);
  EXPECT_EQ(size_reads, 1);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("cold device: start-up 0.3 s"), std::string::npos)
      << d.reason;
  EXPECT_EQ(starts, 0);
  // A started device: nothing to add, nothing asked.
  size_reads = 0;
  HostView started = view(0.0);
  started.start_extra_s = large_process_extra;
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &started).backend,
            Backend::gpu);
  EXPECT_EQ(size_reads, 0);
}

TEST(ColdRoute, ProgramsInTheCacheAreKnownByTheirEntryNames) {
  const test::ScratchDir dir;
  const auto touch = [&](const char* name) {
    std::FILE* f = std::fopen((dir / name).c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  };
  EXPECT_FALSE(device::programs_in_cache(dir.path()));
  touch("gemm-tuning.txt");
  touch("cl-.bin");  // no digest: not an entry
  touch("cl-0123.bin.tmp");
  EXPECT_FALSE(device::programs_in_cache(dir.path()));
  touch("cl-0123abcd.bin");
  EXPECT_TRUE(device::programs_in_cache(dir.path()));
  EXPECT_FALSE(device::programs_in_cache(dir / "missing"));
  EXPECT_FALSE(device::programs_in_cache(""));
}

TEST(ColdRoute, ACudaStartAddsOnlyTheProcessSize) {
  const double extra = device::start_extra_s(device::Family::cuda);
  EXPECT_DOUBLE_EQ(
      extra, device::start_extra_for_resident(device::Family::cuda, device::resident_bytes()));
}

TEST(ColdRoute, ResidentMemoryGrowsWithTouchedPages) {
  const std::size_t before = device::resident_bytes();
  ASSERT_GT(before, 0u);
  constexpr std::size_t kBytes = std::size_t(64) << 20;
  std::vector<char> touched(kBytes, 1);
  EXPECT_GE(device::resident_bytes(), before + kBytes / 2);
  EXPECT_EQ(touched[kBytes / 2], 1);
}

TEST(ColdRoute, UncertainFiguresAskForTwiceTheSpeed) {
  const Config c = defaults();
  // 2^14 x 32: 33 ms in the fallback, 10 ms on the device: 3.3 times faster.
  const Shape s{1 << 14, 32};
  const HostView certain = view(0.0, true), uncertain = view(0.0, false);
  EXPECT_EQ(decide(c, Routine::dgeqrf, s, nullptr, Candidate{}, costed_gpu, &certain).backend,
            Backend::gpu);
  EXPECT_EQ(decide(c, Routine::dgeqrf, s, nullptr, Candidate{}, costed_gpu, &uncertain).backend,
            Backend::gpu);
  // 2^14 x 16: 8 ms in the fallback, less than the device's 10: not even certain figures send it.
  const Shape thin{1 << 14, 16};
  const Decision d = decide(c, Routine::dgeqrf, thin, nullptr, Candidate{}, costed_gpu, &certain);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("does not pay"), std::string::npos) << d.reason;
  // 2^14 x 24: 19 ms against 10: pays with certain figures, not with uncertain ones.
  const Shape mid{1 << 14, 24};
  EXPECT_EQ(decide(c, Routine::dgeqrf, mid, nullptr, Candidate{}, costed_gpu, &certain).backend,
            Backend::gpu);
  const Decision u = decide(c, Routine::dgeqrf, mid, nullptr, Candidate{}, costed_gpu, &uncertain);
  EXPECT_EQ(u.backend, Backend::fallback);
  EXPECT_NE(std::string(u.reason).find("uncalibrated"), std::string::npos) << u.reason;
}

TEST(ColdRoute, OperandsInDeviceMemoryGoToTheDeviceWhatever) {
  const Config c = defaults();
  Shape small{64, 8};
  small.on_device = true;
  const HostView cold = view(10.0);
  const Decision d = decide(c, Routine::dgeqrf, small, nullptr, Candidate{}, costed_gpu, &cold);
  EXPECT_EQ(d.backend, Backend::gpu);
  EXPECT_STREQ(d.reason, "operands in device memory");
}

// gemm's rate goes by the class of its shape and its smallest dimension: near square past 256;
// a small C (a Gram product) through the rates measured at 64 and 256 wide by C's mean side; a
// narrow k or one narrow side of C through their rates at 32 to the square's at 1024.
// A route on the host's cores (the CPU TSQR): weighed against the fallback like a device route,
// with no start-up, and a device route must then beat it, not only the fallback.
double fifty_ms(const Shape&, const HostFigures&) { return 0.050; }
double five_ms(const Shape&, const HostFigures&) { return 0.005; }
const RouteCost host_cost_50{std::nullopt, fifty_ms};
const RouteCost host_cost_5{std::nullopt, five_ms};
const Candidate cpu_50{true, [] { return static_cast<const char*>(nullptr); }, nullptr, nullptr,
                       &host_cost_50};
const Candidate cpu_5{true, [] { return static_cast<const char*>(nullptr); }, nullptr, nullptr,
                      &host_cost_5};

TEST(HostRoute, TakesTheCallWhereTheModelPutsItAheadOfTheFallback) {
  const Config c = defaults();
  const HostView v = view(0.0);
  // 2^17 x 32: 0.27 s in the fallback, 0.05 s on the host route.
  Decision d = decide(c, Routine::dgeqrf, tall, nullptr, cpu_50, Candidate{}, &v);
  EXPECT_EQ(d.backend, Backend::cpu);
  EXPECT_STREQ(d.reason, "auto: cpu route 0.05 s, fallback 0.268 s");
  // 2^14 x 16: 8 ms in the fallback.
  d = decide(c, Routine::dgeqrf, Shape{1 << 14, 16}, nullptr, cpu_50, Candidate{}, &v);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("cpu route does not pay: cpu route 0.05 s, fallback"),
            std::string::npos)
      << d.reason;
}

TEST(HostRoute, UncertainFiguresAskForTwiceTheSpeed) {
  const Config c = defaults();
  HostView v = view(0.0);
  v.host_routes_certain = false;
  // 2^14 x 32: 33 ms in the fallback, 50 ms on the host route even before the doubling.
  EXPECT_EQ(
      decide(c, Routine::dgeqrf, Shape{1 << 14, 32}, nullptr, cpu_50, Candidate{}, &v).backend,
      Backend::fallback);
  // 2^15 x 32: 67 ms in the fallback against 50 ms: ahead, but not twice.
  const Decision d =
      decide(c, Routine::dgeqrf, Shape{1 << 15, 32}, nullptr, cpu_50, Candidate{}, &v);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("uncalibrated"), std::string::npos) << d.reason;
  v.host_routes_certain = true;
  EXPECT_EQ(
      decide(c, Routine::dgeqrf, Shape{1 << 15, 32}, nullptr, cpu_50, Candidate{}, &v).backend,
      Backend::cpu);
}

// Each route's modelled time is scaled by its time as run on the calls of the class so far.
TEST(HostRoute, EachRouteIsWeighedByItsTimeAsRunOnTheClass) {
  const Config c = defaults();
  HostView v = view(0.0);
  // 2^17 x 32: 0.05 s on the host route, 0.268 s in the fallback; the host route ran 6 times its
  // model: 0.3 s.
  v.as_run[int(Backend::cpu)] = 6.0;
  Decision d = decide(c, Routine::dgeqrf, tall, nullptr, cpu_50, Candidate{}, &v);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("cpu route 0.3 s, fallback 0.268 s"), std::string::npos)
      << d.reason;
  // The fallback ran at twice its model's time: 0.537 s.
  v.as_run[int(Backend::fallback)] = 2.0;
  d = decide(c, Routine::dgeqrf, tall, nullptr, cpu_50, Candidate{}, &v);
  EXPECT_EQ(d.backend, Backend::cpu);
  EXPECT_STREQ(d.reason, "auto: cpu route 0.3 s, fallback 0.537 s");
  // The device's 10 ms, run at 40 ms, no longer beats the host route's 5 ms... nor at 0.25 of it.
  v = view(0.0);
  v.as_run[int(Backend::gpu)] = 4.0;
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, cpu_50, costed_gpu, &v).backend,
            Backend::gpu);
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, cpu_5, costed_gpu, &v).backend, Backend::cpu);
}

TEST(HostRoute, ADeviceRouteMustBeatIt) {
  const Config c = defaults();
  const HostView warm = view(0.0);
  // The device's 10 ms beats the host route's 50 ms, and the host route's 5 ms beats the device.
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, cpu_50, costed_gpu, &warm).backend,
            Backend::gpu);
  const Decision d = decide(c, Routine::dgeqrf, tall, nullptr, cpu_5, costed_gpu, &warm);
  EXPECT_EQ(d.backend, Backend::cpu);
  EXPECT_FALSE(d.cold.has_value());
  // The trace says what the device was weighed at.
  EXPECT_STREQ(d.reason,
               "auto: cpu route 0.005 s, fallback 0.268 s; gpu route does not pay: device 0.01 s, "
               "cpu route 0.005 s");
}

TEST(HostRoute, TakesTheCallsAColdDeviceDoesNotPayFor) {
  const Config c = defaults();
  starts = 0;
  // 2^19 x 32 (1.07 s in the fallback) pays for a 0.4 s start against the fallback, but not
  // against the host route's 50 ms: it runs there, and what it forwent is counted from there.
  const HostView cold = view(0.4);
  const Decision d =
      decide(c, Routine::dgeqrf, Shape{1 << 19, 32}, nullptr, cpu_50, costed_gpu, &cold);
  EXPECT_EQ(d.backend, Backend::cpu);
  EXPECT_EQ(starts, 0) << "the device must not start for a call the host route runs";
  ASSERT_TRUE(d.cold.has_value());
  EXPECT_NEAR(d.cold->modelled_gain(), 0.050 / 1.1 - 0.010, 1e-12);
  // The trace of a call on the host's cores says that a started device would take it.
  EXPECT_STREQ(d.reason,
               "auto: cpu route 0.05 s, fallback 1.07 s; gpu route cold device: start-up 0.4 s > "
               "gain 0.035 s at a 10% margin");
}

// Its first call in a process costs more (threads, first-touched memory): a call that would pay
// only once the route has run stays in the fallback until then.
double first_call_20_ms(const HostFigures&) { return 0.020; }
double first_call_none(const HostFigures&) { return 0.0; }
const RouteCost host_cost_first{std::nullopt, fifty_ms, first_call_20_ms};
const RouteCost host_cost_warm{std::nullopt, fifty_ms, first_call_none};

TEST(HostRoute, ItsFirstCallCountsItsStart) {
  const Config c = defaults();
  const HostView v = view(0.0);
  const auto usable = [] { return static_cast<const char*>(nullptr); };
  const Candidate first{true, usable, nullptr, nullptr, &host_cost_first};
  const Candidate warm{true, usable, nullptr, nullptr, &host_cost_warm};
  // 2^15 x 32: 67 ms in the fallback, against 50 ms warm and 70 ms on the first call.
  const Shape s{1 << 15, 32};
  const Decision d = decide(c, Routine::dgeqrf, s, nullptr, first, Candidate{}, &v);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_NE(std::string(d.reason).find("cpu route does not pay: cpu route 0.07 s"),
            std::string::npos)
      << d.reason;
  EXPECT_FALSE(d.cold.has_value()) << "no ski rental for a host route";
  EXPECT_EQ(decide(c, Routine::dgeqrf, s, nullptr, warm, Candidate{}, &v).backend, Backend::cpu);
  // A device then has to beat its first call too: 10 ms on the device against 70 ms.
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, first, costed_gpu, &v).backend, Backend::gpu);
}

TEST(HostRoute, NeverTakesOperandsInDeviceMemory) {
  const Config c = defaults();
  Shape s = tall;
  s.on_device = true;
  const HostView v = view(0.0);
  const Candidate no_device{true, [] { return "no device"; }, nullptr, nullptr, &cuda_cost};
  EXPECT_EQ(decide(c, Routine::dgeqrf, s, nullptr, cpu_5, no_device, &v).backend,
            Backend::fallback);
}

// Under 16384 rows, the fewest on which the CPU TSQR's other rates are measured, the host's routes
// are weighed down to SWITCHYARD_TSQR_MIN_ROWS (4096) only where the figures hold its rates on
// short blocks; the device's route is weighed from there whatever they hold.
TEST(HostRoute, WeighedOnShortBlocksOnlyWhereTheirRatesWereMeasured) {
  const Config c = defaults();
  ASSERT_EQ(c.thresholds.tsqr_min_rows, 4096);
  HostFigures measured = one_gflops_host;
  for (auto& at_width : measured.cpu_tsqr.short_geqrf) at_width[0] = at_width[1] = 1.0;
  HostView v = view(0.0);
  // 8192 x 128: 0.27 s in the fallback, 50 ms on the host route, 10 ms on a started device.
  const Shape s{8192, 128};
  EXPECT_FALSE(fallback_on_sight(c, Routine::dgeqrf, s, nullptr));
  Decision d = decide(c, Routine::dgeqrf, s, nullptr, cpu_50, Candidate{}, &v);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "cpu route too small: m 8192 < 16384");
  EXPECT_EQ(decide(c, Routine::dgeqrf, s, nullptr, cpu_50, costed_gpu, &v).backend, Backend::gpu);
  v.figures = &measured;
  d = decide(c, Routine::dgeqrf, s, nullptr, cpu_50, Candidate{}, &v);
  EXPECT_EQ(d.backend, Backend::cpu);
  EXPECT_STREQ(d.reason, "auto: cpu route 0.05 s, fallback 0.267 s");
  EXPECT_EQ(decide(c, Routine::dgeqrf, s, nullptr, cpu_50, costed_gpu, &v).backend, Backend::gpu);
  // Q's rows for xORMQR: m from the left, n from the right.
  EXPECT_EQ(
      decide(c, Routine::dormqr, Shape{8192, 16, 128, 'L', 'T'}, nullptr, cpu_50, Candidate{}, &v)
          .backend,
      Backend::cpu);
  EXPECT_EQ(
      decide(c, Routine::dormqr, Shape{16, 2048, 128, 'R', 'T'}, nullptr, cpu_50, Candidate{}, &v)
          .backend,
      Backend::fallback);
  // Below the threshold nothing is weighed, and a threshold set higher holds for both routes.
  EXPECT_TRUE(fallback_on_sight(c, Routine::dgeqrf, Shape{4095, 128}, nullptr));
  Config high = c;
  high.thresholds.tsqr_min_rows = 1 << 20;
  d = decide(high, Routine::dgeqrf, Shape{1 << 19, 32}, nullptr, cpu_50, costed_gpu, &v);
  EXPECT_EQ(d.backend, Backend::fallback);
  EXPECT_STREQ(d.reason, "too small: m 524288 < 1048576");
}

// What switchyard info reports, and the router holds to.
TEST(HostRoute, WeighedFromTheThresholdOnlyWithShortBlockRates) {
  Config c = defaults();
  CpuRouteRates rates = cpu_tsqr_at(2.0);
  EXPECT_EQ(host_route_min_rows(c.thresholds, rates, 0), 16384);
  for (auto& at_width : rates.short_geqrf) at_width[0] = 1.0;
  EXPECT_EQ(host_route_min_rows(c.thresholds, rates, 0), 4096);
  EXPECT_EQ(host_route_min_rows(c.thresholds, rates, 1), 16384) << "single: not measured";
  c.thresholds.tsqr_min_rows = 100000;
  EXPECT_EQ(host_route_min_rows(c.thresholds, rates, 0), 100000);
}

TEST(HostRoute, CpuTsqrSecondsFallOnShortBlocksTowardsTheirMeasuredRate) {
  CpuRouteRates r = cpu_tsqr_at(8.0, 0.004);
  const auto seconds = [&](std::int64_t m) {
    return cpu_tsqr_seconds(r, Routine::dgeqrf, Shape{m, 32});
  };
  const auto at = [](std::int64_t m, double gflops) {
    return 0.004 + routine_flops(Routine::dgeqrf, Shape{m, 32}) / (gflops * 1e9);
  };
  EXPECT_NEAR(seconds(4096), at(4096, 8.0), 1e-12) << "not measured: the small size's rate";
  for (auto& at_width : r.short_geqrf) at_width[0] = at_width[1] = 2.0;
  // The small size at 32 columns is 2^22 / 32 = 131072 rows, 32 times the short blocks' 4096:
  // the rate rises as (m / 4096)^0.4 from 2 to 8 GFLOP/s between them.
  EXPECT_NEAR(seconds(4096), at(4096, 2.0), 1e-12);
  EXPECT_NEAR(seconds(16384), at(16384, 2.0 * std::pow(4.0, 0.4)), 1e-12);
  EXPECT_NEAR(seconds(131072), at(131072, 8.0), 1e-12);
  EXPECT_NEAR(seconds(1 << 20), at(1 << 20, 8.0), 1e-12) << "above it as before";
  EXPECT_NEAR(seconds(2048), at(2048, 2.0 * std::pow(0.5, 0.4)), 1e-12) << "and on below";
  // Short blocks measured faster than the small size never make a call faster than it.
  for (auto& at_width : r.short_geqrf) at_width[0] = at_width[1] = 20.0;
  EXPECT_NEAR(seconds(16384), at(16384, 8.0), 1e-12);
}

TEST(HostRoute, CpuTsqrSecondsAreItsCostOfACallAndItsFlopsAtItsRate) {
  // 2^17 x 32 at 2 GFLOP/s: the small size's rate; 0.27 GFLOP of xGEQRF's flops.
  const Shape s{1 << 17, 32};
  EXPECT_NEAR(cpu_tsqr_seconds(cpu_tsqr_at(2.0, 0.004), Routine::dgeqrf, s),
              0.004 + routine_flops(Routine::dgeqrf, s) / 2e9, 1e-12);
  CpuRouteRates r = cpu_tsqr_at(2.0, 0.004);
  r.geqrf[0][1][1] = 8.0;  // single, small size, 32 columns
  EXPECT_NEAR(cpu_tsqr_seconds(r, Routine::sgeqrf, s),
              0.004 + routine_flops(Routine::sgeqrf, s) / 8e9, 1e-12);
}

TEST(FallbackSpeed, GemmRunsAtTheSquareRateAndSlowerWhenSkinny) {
  FallbackRates r = one_gflops();
  r.gemm_square[0] = 100.0;
  r.gemm_wide[0] = 50.0;
  r.gemm_gram[0] = 25.0;
  r.gemm_narrow[0] = 80.0;
  r.gemm_rank[0] = 40.0;
  const auto rate = [&](const Shape& s) {
    return routine_flops(Routine::dgemm, s) / fallback_seconds(r, Routine::dgemm, s) / 1e9;
  };
  EXPECT_NEAR(rate(Shape{8192, 8192, 8192, 'N', 'N'}), 100.0, 1e-9);
  EXPECT_NEAR(rate(Shape{1024, 4096, 2048, 'N', 'N'}), 100.0, 1e-9);
  EXPECT_NEAR(rate(Shape{256, 256, 1 << 20, 'T', 'N'}), 50.0, 1e-9);
  EXPECT_NEAR(rate(Shape{64, 64, 1 << 22, 'T', 'N'}), 25.0, 1e-9);
  EXPECT_NEAR(rate(Shape{128, 128, 1 << 22, 'T', 'N'}), 25.0 * std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(rate(Shape{8192, 512, 8192, 'N', 'N'}), 50.0 * std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(rate(Shape{16, 16, 1 << 22, 'T', 'N'}), 25.0 / 2, 1e-9);
  EXPECT_NEAR(rate(Shape{32, 128, 1 << 22, 'T', 'N'}), 25.0, 1e-9) << "C's mean side 64";
  EXPECT_NEAR(rate(Shape{4096, 32, 4096, 'N', 'N'}), 80.0, 1e-9);
  EXPECT_NEAR(rate(Shape{8192, 32, 8192, 'N', 'N'}), 80.0, 1e-9);
  EXPECT_NEAR(rate(Shape{32, 4096, 1 << 20, 'T', 'N'}), 80.0, 1e-9) << "a narrow m, long k";
  EXPECT_NEAR(rate(Shape{4096, 4096, 32, 'N', 'N'}), 40.0, 1e-9);
  EXPECT_NEAR(rate(Shape{65536, 256, 32, 'N', 'N'}), 40.0, 1e-9) << "k the smallest";
  EXPECT_NEAR(rate(Shape{4096, 4096, 128, 'N', 'N'}),
              40.0 * std::pow(4.0, std::log(2.5) / std::log(32.0)), 1e-9);
  // syrk by its n, through 64 and 256.
  r.syrk[0] = 10.0;
  r.syrk_wide[0] = 40.0;
  const Shape wide_syrk{1024, 1024, 4096, 'U', 'T'};
  EXPECT_NEAR(routine_flops(Routine::dsyrk, wide_syrk) /
                  fallback_seconds(r, Routine::dsyrk, wide_syrk) / 1e9,
              100.0, 1e-9)
      << "160 GFLOP/s by the law, capped at the square gemm's rate";
}

// A tall-skinny QR's rate follows the power law between the two measured widths around it (8,
// 32, 128, 256 columns), that of the nearest two beyond them, and never passes the square gemm's.
TEST(FallbackSpeed, QrRunsFasterWhenWider) {
  FallbackRates r = one_gflops();
  r.gemm_square[0] = 30.0;
  const double at[kQrWidthCount] = {2.0, 5.0, 8.0, 20.0};
  for (int z = 0; z < kQrSizeCount; ++z) {
    for (int w = 0; w < kQrWidthCount; ++w) r.geqrf[z][w][0] = at[w];
  }
  const auto rate = [&](long m, long n) {
    const Shape s{m, n};
    return routine_flops(Routine::dgeqrf, s) / fallback_seconds(r, Routine::dgeqrf, s) / 1e9;
  };
  EXPECT_NEAR(rate(1 << 19, 8), 2.0, 1e-9);
  EXPECT_NEAR(rate(1 << 17, 32), 5.0, 1e-9);
  EXPECT_NEAR(rate(1 << 15, 128), 8.0, 1e-9);
  EXPECT_NEAR(rate(1 << 14, 256), 20.0, 1e-9);
  EXPECT_NEAR(rate(1 << 16, 16), 2.0 * std::pow(2.5, 0.5), 1e-9) << "between 8 and 32";
  EXPECT_NEAR(rate(1 << 16, 64), 5.0 * std::pow(1.6, 0.5), 1e-9) << "between 32 and 128";
  EXPECT_NEAR(rate(1 << 16, 4), 2.0 / std::pow(2.5, 0.5), 1e-9) << "below 8: the 8-32 law";
  EXPECT_NEAR(rate(1 << 20, 1024), 30.0, 1e-9) << "capped at the square gemm's rate";
  // dorgqr and dormqr go by their reflectors.
  for (int z = 0; z < kQrSizeCount; ++z) {
    for (int w = 0; w < kQrWidthCount; ++w) r.ormqr[z][w][0] = 4.0;
  }
  const Shape apply{1 << 16, 32, 128, 'L', 'T'};
  EXPECT_NEAR(routine_flops(Routine::dormqr, apply) / fallback_seconds(r, Routine::dormqr, apply),
              4e9, 1.0);
  // A C narrower than the kOrmqrColumns it is measured with costs as much as that many: its
  // passes over the reflectors set the time, on either side.
  EXPECT_DOUBLE_EQ(fallback_seconds(r, Routine::dormqr, Shape{1 << 16, 1, 128, 'L', 'T'}),
                   fallback_seconds(r, Routine::dormqr, apply));
  EXPECT_DOUBLE_EQ(fallback_seconds(r, Routine::dormqr, Shape{4, 1 << 16, 128, 'R', 'N'}),
                   fallback_seconds(r, Routine::dormqr, Shape{32, 1 << 16, 128, 'R', 'N'}));
  EXPECT_GT(fallback_seconds(r, Routine::dormqr, Shape{1 << 16, 64, 128, 'L', 'T'}),
            1.9 * fallback_seconds(r, Routine::dormqr, apply));
}

// Pivoted QR goes at its own measured rate, never faster than the xGEQRF of its shape; where its
// rates are not all measured, as that xGEQRF.
TEST(FallbackSpeed, PivotedQrAtItsOwnRateNeverBelowTheQrOfItsShape) {
  FallbackRates r = one_gflops();
  r.gemm_square[0] = r.gemm_square[1] = 100.0;
  const Shape s{1 << 16, 32};
  const auto seconds = [&](Routine routine) { return fallback_seconds(r, routine, s); };
  const double qr = seconds(Routine::dgeqrf);
  EXPECT_DOUBLE_EQ(seconds(Routine::dgeqp3), qr) << "not measured";
  const auto set = [&](int p, double gflops) {
    for (auto& at_size : r.geqp3) {
      for (auto& at_width : at_size) at_width[p] = gflops;
    }
  };
  set(0, 0.25);
  EXPECT_NEAR(seconds(Routine::dgeqp3), 4.0 * qr, 1e-12 * qr);
  EXPECT_DOUBLE_EQ(seconds(Routine::sgeqp3), seconds(Routine::sgeqrf)) << "single not measured";
  r.geqp3[1][3][0] = 0.0;
  EXPECT_DOUBLE_EQ(seconds(Routine::dgeqp3), qr) << "one rate missing";
  set(0, 4.0);
  EXPECT_DOUBLE_EQ(seconds(Routine::dgeqp3), qr) << "never faster than dgeqrf";
}

// And it goes by the matrix's size: the rate measured in the caches (2^22 elements) up to it,
// the law through the two sizes up to 2^25, and beyond, that law while it falls.
TEST(FallbackSpeed, QrRunsSlowerOutOfTheCaches) {
  FallbackRates r = one_gflops();
  r.gemm_square[0] = 100.0;
  const auto rate = [&](long m, long n) {
    const Shape s{m, n};
    return routine_flops(Routine::dgeqrf, s) / fallback_seconds(r, Routine::dgeqrf, s) / 1e9;
  };
  for (int w = 0; w < kQrWidthCount; ++w) {
    r.geqrf[0][w][0] = 10.0;
    r.geqrf[1][w][0] = 5.0;
  }
  EXPECT_NEAR(rate(1 << 12, 128), 10.0, 1e-9) << "smaller than the small size";
  EXPECT_NEAR(rate(1 << 15, 128), 10.0, 1e-9);
  EXPECT_NEAR(rate(1 << 18, 128), 5.0, 1e-9);
  EXPECT_NEAR(rate(1L << 16 | 1L << 15, 128), 10.0 * std::pow(3.0, -1.0 / 3), 1e-9);
  EXPECT_NEAR(rate(1 << 21, 128), 5.0 * std::pow(8.0, -1.0 / 3), 1e-9) << "falling on";
  for (int w = 0; w < kQrWidthCount; ++w) r.geqrf[1][w][0] = 1.0;
  EXPECT_NEAR(rate(1 << 21, 128), 1.0 / std::sqrt(8.0), 1e-9) << "no steeper than -0.5";
  for (int w = 0; w < kQrWidthCount; ++w) r.geqrf[1][w][0] = 20.0;
  EXPECT_NEAR(rate(1 << 17, 128), 10.0 * std::pow(4.0, 1.0 / 3), 1e-9) << "rising between";
  EXPECT_NEAR(rate(1 << 21, 128), 20.0, 1e-9) << "but not beyond";
}

// A short matrix goes by the fallback's rate measured on kShortQrRows rows where there is one:
// the law in the rows from there to the small size's rows, and that rate itself on fewer rows.
TEST(FallbackSpeed, QrOnShortMatricesGoesByItsShortRates) {
  FallbackRates r = one_gflops();
  r.gemm_square[0] = r.gemm_square[1] = 100.0;
  const auto rate = [&](long m, long n, Routine routine = Routine::dgeqrf) {
    const Shape s{m, n};
    return routine_flops(routine, s) / fallback_seconds(r, routine, s) / 1e9;
  };
  for (auto& at_size : r.geqrf) {
    for (auto& at_width : at_size) at_width[0] = at_width[1] = 10.0;
  }
  EXPECT_NEAR(rate(kShortQrRows, 128), 10.0, 1e-9) << "not measured: the small size's rate";
  for (auto& at_width : r.short_geqrf) at_width[0] = 5.0;
  // The small size at 128 columns is 2^22 / 128 = 32768 rows, 8 times the short rows.
  EXPECT_NEAR(rate(kShortQrRows, 128), 5.0, 1e-9);
  EXPECT_NEAR(rate(kShortQrRows / 2, 128), 5.0, 1e-9) << "fewer rows than measured";
  EXPECT_NEAR(rate(2 * kShortQrRows, 128), 5.0 * std::pow(2.0, 1.0 / 3), 1e-9);
  EXPECT_NEAR(rate(8 * kShortQrRows, 128), 10.0, 1e-9) << "the small size";
  EXPECT_NEAR(rate(1 << 20, 128), 10.0, 1e-9) << "larger";
  EXPECT_NEAR(rate(kShortQrRows, 128, Routine::sgeqrf), 10.0, 1e-9) << "single not measured";
  r.short_geqrf[3][0] = 0.0;
  EXPECT_NEAR(rate(kShortQrRows, 128), 10.0, 1e-9) << "one width missing";
}

TEST(CalibrationFile, RoundTripsAndRejectsAnythingElse) {
  HostFigures f;
  f.rates = one_gflops();
  f.rates.geqrf[0][1][0] = 7.25;
  f.cpu_tsqr = cpu_tsqr_at(2.0);
  f.cpu_tsqr.geqrf[1][3][1] = 31.5;
  f.cuda_start_s = 0.41;
  f.opencl_start_s = 1.9;
  const std::string text = format_figures("/usr/lib/liblapack.so.3", 16, f);
  HostFigures back;
  ASSERT_TRUE(parse_figures(text, "/usr/lib/liblapack.so.3", 16, back));
  EXPECT_DOUBLE_EQ(back.rates.geqrf[0][1][0], 7.25);
  EXPECT_DOUBLE_EQ(back.cpu_tsqr.geqrf[1][3][1], 31.5);
  EXPECT_NE(text.find("scpu_tsqr_256_large_gflops 31.5\n"), std::string::npos) << text;
  EXPECT_DOUBLE_EQ(back.cpu_tsqr.call_s, 0.003);
  EXPECT_DOUBLE_EQ(back.cuda_start_s, 0.41);
  EXPECT_DOUBLE_EQ(back.opencl_start_s, 1.9);
  EXPECT_FALSE(parse_figures(text, "/usr/lib/libopenblas.so.0", 16, back)) << "another library";
  EXPECT_FALSE(parse_figures(text, "/usr/lib/liblapack.so.3", 8, back)) << "other threads";
  const auto edited = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_FALSE(parse_figures(edited("dgeqrf_32_small_gflops 7.25", "dgeqrf_32_small_gflops -1"),
                             "/usr/lib/liblapack.so.3", 16, back));
  EXPECT_FALSE(parse_figures(edited("dgeqrf_32_small_gflops 7.25", "dgeqrf_32_small_gflops 7x"),
                             "/usr/lib/liblapack.so.3", 16, back));
  EXPECT_FALSE(parse_figures(edited("dgeqrf_32_small_gflops 7.25\n", ""), "/usr/lib/liblapack.so.3",
                             16, back))
      << "a missing field";
  EXPECT_FALSE(
      parse_figures(text + "dgeqrf_32_small_gflops 7\n", "/usr/lib/liblapack.so.3", 16, back))
      << "a repeated field";
  EXPECT_FALSE(parse_figures(text + "gpu_speed 7\n", "/usr/lib/liblapack.so.3", 16, back))
      << "an unknown field";
}

// A group of rates a calibration file may leave out: they go into it when measured, and a file
// may leave them all out (one written before they were measured), not some of them.
struct OptionalRates {
  const char* marker;                    // in the name of each field of the group
  void (*measure)(HostFigures&);         // gives each of them a value, and one of them 0.375
  bool (*measured)(const HostFigures&);  // whether the figures hold all of them
  const char* line;                      // that one's line in the file
  double (*value)(const HostFigures&);   // that one's value
};

void expect_all_or_none(const OptionalRates& group) {
  HostFigures f;
  f.rates = one_gflops();
  f.cpu_tsqr = cpu_tsqr_at(2.0);
  f.cuda_start_s = 0.41;
  f.opencl_start_s = 1.9;
  const std::string library = "/usr/lib/liblapack.so.3";
  const std::string without = format_figures(library, 16, f);
  EXPECT_EQ(without.find(group.marker), std::string::npos) << without;
  HostFigures back;
  ASSERT_TRUE(parse_figures(without, library, 16, back));
  EXPECT_FALSE(group.measured(back));
  group.measure(f);
  const std::string with = format_figures(library, 16, f);
  EXPECT_NE(with.find(group.line), std::string::npos) << with;
  ASSERT_TRUE(parse_figures(with, library, 16, back));
  EXPECT_TRUE(group.measured(back));
  EXPECT_DOUBLE_EQ(group.value(back), 0.375);
  std::string some = with;
  some.erase(some.find(group.line), std::strlen(group.line));
  EXPECT_FALSE(parse_figures(some, library, 16, back)) << "one of them missing";
}

TEST(CalibrationFile, PivotedQrRatesAreAllThereOrNone) {
  expect_all_or_none({"geqp3",
                      [](HostFigures& f) {
                        for (auto& at_size : f.rates.geqp3) {
                          for (auto& at_width : at_size) at_width[0] = 0.5, at_width[1] = 0.75;
                        }
                        f.rates.geqp3[1][1][0] = 0.375;
                      },
                      [](const HostFigures& f) {
                        return geqp3_measured(f.rates, 0) && geqp3_measured(f.rates, 1);
                      },
                      "dgeqp3_32_large_gflops 0.375\n",
                      [](const HostFigures& f) { return f.rates.geqp3[1][1][0]; }});
}

// The CPU TSQR's rates on short blocks: without them the host's routes are not weighed under
// kCpuTsqrSizedRows.
TEST(CalibrationFile, ShortBlockRatesAreAllThereOrNone) {
  expect_all_or_none({"_short_",
                      [](HostFigures& f) {
                        for (auto& at_width : f.cpu_tsqr.short_geqrf) {
                          at_width[0] = 0.5, at_width[1] = 0.75;
                        }
                        f.cpu_tsqr.short_geqrf[2][0] = 0.375;
                      },
                      [](const HostFigures& f) {
                        return cpu_tsqr_short_measured(f.cpu_tsqr, 0) &&
                               cpu_tsqr_short_measured(f.cpu_tsqr, 1);
                      },
                      "dcpu_tsqr_128_short_gflops 0.375\n",
                      [](const HostFigures& f) { return f.cpu_tsqr.short_geqrf[2][0]; }});
}

// The fallback's xGEQRF rates on short matrices: without them a short matrix goes by the
// small size's rate.
TEST(CalibrationFile, FallbackShortRatesAreAllThereOrNone) {
  expect_all_or_none({"dgeqrf_8_short",
                      [](HostFigures& f) {
                        for (auto& at_width : f.rates.short_geqrf) {
                          at_width[0] = 0.5, at_width[1] = 0.75;
                        }
                        f.rates.short_geqrf[3][1] = 0.375;
                      },
                      [](const HostFigures& f) {
                        return short_rates_measured(f.rates.short_geqrf, 0) &&
                               short_rates_measured(f.rates.short_geqrf, 1);
                      },
                      "sgeqrf_256_short_gflops 0.375\n",
                      [](const HostFigures& f) { return f.rates.short_geqrf[3][1]; }});
}

}  // namespace
}  // namespace switchyard
