// The router's cost rules: a device route is weighed against the fallback on this host, a cold
// device's start-up is counted, uncertain figures ask for twice the speed, and operands in
// device memory always go to the device.
#include <gtest/gtest.h>

#include <string>

#include "calibration.hpp"
#include "route.hpp"

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
double ten_ms(const Shape&) { return 0.010; }
const DeviceCost cuda_cost{device::Family::cuda, ten_ms};
const Candidate costed_gpu{true, starting_device, nullptr, nullptr, &cuda_cost};

// A fallback that runs dgeqrf at 1 GFLOP/s.
FallbackRates one_gflops() {
  FallbackRates r{};
  for (double* pair : {r.gemm_square, r.gemm_gram, r.syrk, r.geqrf, r.orgqr, r.ormqr}) {
    pair[0] = pair[1] = 1.0;
  }
  return r;
}
const FallbackRates rates = one_gflops();

HostView view(double cuda_startup, bool certain = true) {
  HostView v;
  v.rates = &rates;
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
  EXPECT_NE(std::string(d.reason).find("cold device: start-up 0.4 s > gain 0.26 s"),
            std::string::npos)
      << d.reason;
  EXPECT_EQ(starts, 0) << "a call that does not pay must not start the device";
  const HostView warm = view(0.0);
  EXPECT_EQ(decide(c, Routine::dgeqrf, tall, nullptr, Candidate{}, costed_gpu, &warm).backend,
            Backend::gpu);
  EXPECT_EQ(starts, 1);
  // A call four times larger pays for the same start-up.
  const Shape taller{1 << 19, 32};
  EXPECT_EQ(decide(c, Routine::dgeqrf, taller, nullptr, Candidate{}, costed_gpu, &cold).backend,
            Backend::gpu);
}

TEST(ColdRoute, AStartUnderWayCountsOnlyWhatIsLeft) {
  EXPECT_DOUBLE_EQ(startup_to_pay(device::State::cold, 0.0, 0.4), 0.4);
  EXPECT_DOUBLE_EQ(startup_to_pay(device::State::starting, 0.3, 0.4), 0.4 - 0.3);
  EXPECT_DOUBLE_EQ(startup_to_pay(device::State::starting, 0.5, 0.4), 0.0);
  EXPECT_DOUBLE_EQ(startup_to_pay(device::State::started, 0.0, 0.4), 0.0);
  EXPECT_DOUBLE_EQ(startup_to_pay(device::State::failed, 0.0, 0.4), 0.0);
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

TEST(FallbackSpeed, GemmRunsAtTheSquareRateAndSlowerWhenSkinny) {
  FallbackRates r = one_gflops();
  r.gemm_square[0] = 100.0;
  r.gemm_gram[0] = 40.0;
  const Shape square{8192, 8192, 8192, 'N', 'N'};
  const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  EXPECT_NEAR(fallback_seconds(r, Routine::dgemm, square) * 100e9 / flops, 1.0, 0.02);
  const Shape gram{64, 64, 1 << 22, 'T', 'N'};
  EXPECT_NEAR(fallback_seconds(r, Routine::dgemm, gram) * 40e9 / (2.0 * 64 * 64 * (1 << 22)),
              1.0, 1e-9);
}

TEST(CalibrationFile, RoundTripsAndRejectsAnythingElse) {
  HostFigures f;
  f.rates = one_gflops();
  f.rates.geqrf[0] = 7.25;
  f.cuda_start_s = 0.41;
  f.opencl_start_s = 1.9;
  const std::string text = format_figures("/usr/lib/liblapack.so.3", 16, f);
  HostFigures back;
  ASSERT_TRUE(parse_figures(text, "/usr/lib/liblapack.so.3", 16, back));
  EXPECT_DOUBLE_EQ(back.rates.geqrf[0], 7.25);
  EXPECT_DOUBLE_EQ(back.cuda_start_s, 0.41);
  EXPECT_DOUBLE_EQ(back.opencl_start_s, 1.9);
  EXPECT_FALSE(parse_figures(text, "/usr/lib/libopenblas.so.0", 16, back)) << "another library";
  EXPECT_FALSE(parse_figures(text, "/usr/lib/liblapack.so.3", 8, back)) << "other threads";
  const auto edited = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_FALSE(parse_figures(edited("dgeqrf_gflops 7.25", "dgeqrf_gflops -1"),
                             "/usr/lib/liblapack.so.3", 16, back));
  EXPECT_FALSE(parse_figures(edited("dgeqrf_gflops 7.25", "dgeqrf_gflops 7x"),
                             "/usr/lib/liblapack.so.3", 16, back));
  EXPECT_FALSE(parse_figures(edited("dgeqrf_gflops 7.25\n", ""), "/usr/lib/liblapack.so.3", 16,
                             back))
      << "a missing field";
  EXPECT_FALSE(parse_figures(text + "dgeqrf_gflops 7\n", "/usr/lib/liblapack.so.3", 16, back))
      << "a repeated field";
  EXPECT_FALSE(parse_figures(text + "gpu_speed 7\n", "/usr/lib/liblapack.so.3", 16, back))
      << "an unknown field";
}

}  // namespace
}  // namespace switchyard
