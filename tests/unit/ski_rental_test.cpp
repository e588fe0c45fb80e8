// The ski rental through dispatch(): a call kept off a cold device counts what it forwent from
// the time its alternative took as run, so that a fallback slower than its figures starts the
// device sooner than the model alone would, and one faster than them does not start it. Each
// test runs in its own process (gtest_discover_tests), since a device starts once a process.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "dispatch.hpp"

namespace switchyard {
namespace {

struct FakeCall {
  std::chrono::milliseconds fallback_time;
};

// A device that runs the call in 10 ms once started, and starts in 0.1 s.
double ten_ms(const Shape&, const HostFigures&) { return 0.010; }
const RouteCost cold_cuda{device::Family::cuda, ten_ms};
const char* usable() { return nullptr; }
const char* takes_any(const FakeCall&) { return nullptr; }
std::atomic<int> device_runs{0};
bool run_on_device(const FakeCall&) {
  ++device_runs;
  return true;
}
const Implementation<FakeCall> fake_gpu{usable, takes_any, run_on_device, nullptr, nullptr,
                                        &cold_cuda};

// A fallback whose figures put dgeqrf of 2^17 x 32 (0.268 GFLOP) at 12 ms: on the started device
// the call would gain 12 / 1.1 - 10 = 0.9 ms, so the model alone starts it after 111 calls.
const Calibration& figures() {
  static const Calibration c = [] {
    Calibration k;
    k.certain = k.cpu_tsqr_certain = true;
    for (auto& size : k.figures.rates.geqrf) {
      for (auto& width : size) width[0] = width[1] = 0.268 / 0.012;
    }
    k.figures.rates.gemm_square[0] = k.figures.rates.gemm_square[1] = 1000.0;
    k.figures.cuda_start_s = 0.1;
    return k;
  }();
  return c;
}

std::atomic<int> starts{0};
void start_in_test() { ++starts; }

// How many calls of 2^17 x 32 whose fallback takes `fallback_time` are made before the device
// starts in the background; 0 if it has not after 20.
int calls_before_the_device_starts(std::chrono::milliseconds fallback_time) {
  Implementations<FakeCall>::gpu = &fake_gpu;
  device::register_starter(device::Family::cuda, start_in_test);
  for (int call = 1; call <= 20; ++call) {
    dispatch(Routine::dgeqrf, Shape{1 << 17, 32}, nullptr, figures, FakeCall{fallback_time},
             [](const FakeCall& c) { std::this_thread::sleep_for(c.fallback_time); });
    if (device::forgone_seconds(device::Family::cuda) < figures().figures.cuda_start_s) continue;
    // The start runs on a thread of its own.
    for (int waited = 0; waited < 5000 && starts.load() == 0; ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (starts.load() > 0) return call;
  }
  return 0;
}

TEST(SkiRental, AFallbackSlowerThanItsFiguresStartsTheDeviceSooner) {
  // 30 ms as run gains 30 / 1.1 - 10 = 17 ms a call: the sixth covers the 0.1 s start.
  const int calls = calls_before_the_device_starts(std::chrono::milliseconds(30));
  EXPECT_GE(calls, 2) << "never the first call alone";
  EXPECT_LE(calls, 6);
  EXPECT_EQ(device_runs.load(), 0) << "the calls kept off the device never wait for it";
}

TEST(SkiRental, AFallbackFasterThanItsFiguresDoesNotStartTheDevice) {
  // Within the margin of the device's 10 ms as run: nothing forgone.
  EXPECT_EQ(calls_before_the_device_starts(std::chrono::milliseconds(0)), 0);
  EXPECT_EQ(device::forgone_seconds(device::Family::cuda), 0.0);
}

}  // namespace
}  // namespace switchyard
