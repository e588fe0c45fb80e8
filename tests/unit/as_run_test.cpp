// The times as run that the router scales its model by (as_run.hpp), and through dispatch(): a
// route on the host's cores that runs far below its figures gives the calls after it back to
// the fallback. Each test runs in its own process (gtest_discover_tests), since the times seen
// are the process's.
#include "as_run.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "dispatch.hpp"

namespace switchyard {
namespace {

constexpr int kFallback = int(Backend::fallback), kCpu = int(Backend::cpu);

TEST(AsRun, TheFirstCallOfAClassIsNotCountedAndTwoMakeARatio) {
  const Shape s{1 << 16, 8};
  EXPECT_EQ(as_run::ratio(Routine::dgeqrf, kCpu, s), 1.0);
  as_run::record(Routine::dgeqrf, kCpu, s, 0.001, 0.010);  // a first call: its own costs
  as_run::record(Routine::dgeqrf, kCpu, s, 0.001, 0.002);
  EXPECT_EQ(as_run::ratio(Routine::dgeqrf, kCpu, s), 1.0) << "one counted call is not enough";
  as_run::record(Routine::dgeqrf, kCpu, s, 0.001, 0.003);
  EXPECT_DOUBLE_EQ(as_run::ratio(Routine::dgeqrf, kCpu, s), 2.5);
  // The median of the last three: one call slowed by something else does not move it.
  as_run::record(Routine::dgeqrf, kCpu, s, 0.001, 0.030);
  EXPECT_DOUBLE_EQ(as_run::ratio(Routine::dgeqrf, kCpu, s), 3.0);
  as_run::record(Routine::dgeqrf, kCpu, s, 0.001, 0.002);
  as_run::record(Routine::dgeqrf, kCpu, s, 0.001, 0.002);
  EXPECT_DOUBLE_EQ(as_run::ratio(Routine::dgeqrf, kCpu, s), 2.0);
  // Within [1/4, 4].
  for (int i = 0; i < 3; ++i) as_run::record(Routine::dgeqrf, kCpu, s, 0.001, 1.0);
  EXPECT_EQ(as_run::ratio(Routine::dgeqrf, kCpu, s), 4.0);
  for (int i = 0; i < 3; ++i) as_run::record(Routine::dgeqrf, kCpu, s, 1.0, 0.001);
  EXPECT_EQ(as_run::ratio(Routine::dgeqrf, kCpu, s), 0.25);
}

TEST(AsRun, AClassIsARoutineARouteAndEachDimensionsBinaryOrder) {
  const Shape s{100000, 8};
  for (int i = 0; i < 3; ++i) as_run::record(Routine::dgeqrf, kCpu, s, 0.001, 0.002);
  EXPECT_EQ(as_run::ratio(Routine::dgeqrf, kCpu, Shape{70000, 15}), 2.0) << "2^16 <= m < 2^17";
  EXPECT_EQ(as_run::ratio(Routine::dgeqrf, kCpu, Shape{140000, 8}), 1.0);
  EXPECT_EQ(as_run::ratio(Routine::dgeqrf, kCpu, Shape{100000, 16}), 1.0);
  EXPECT_EQ(as_run::ratio(Routine::dgeqrf, kFallback, s), 1.0);
  EXPECT_EQ(as_run::ratio(Routine::sgeqrf, kCpu, s), 1.0);
  Shape transposed{4096, 4096, 4096};
  transposed.transa = 'T';
  for (int i = 0; i < 3; ++i) as_run::record(Routine::dgemm, kFallback, transposed, 0.1, 0.3);
  EXPECT_DOUBLE_EQ(as_run::ratio(Routine::dgemm, kFallback, transposed), 3.0);
  EXPECT_EQ(as_run::ratio(Routine::dgemm, kFallback, Shape{4096, 4096, 4096}), 1.0);
  // Nothing is learned from a time or a model that is not one.
  as_run::record(Routine::dorgqr, kCpu, s, 0.0, 0.1);
  as_run::record(Routine::dorgqr, kCpu, s, 0.0, 0.1);
  as_run::record(Routine::dorgqr, kCpu, s, 0.0, 0.1);
  EXPECT_EQ(as_run::ratio(Routine::dorgqr, kCpu, s), 1.0);
}

// Through dispatch(): a route on the host's cores whose figures give it 2 ms of a call the
// fallback's give 5 ms, but which runs in 20 ms (10 times its figure, counted as 4: 8 ms).
struct FakeCall {};
double two_ms(const Shape&, const HostFigures&) { return 0.002; }
const RouteCost host_cost{std::nullopt, two_ms};
const char* usable() { return nullptr; }
const char* takes_any(const FakeCall&) { return nullptr; }
std::atomic<int> cpu_runs{0};
bool run_slowly(const FakeCall&) {
  ++cpu_runs;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return true;
}
const Implementation<FakeCall> slow_cpu{usable, takes_any, run_slowly, nullptr, nullptr,
                                        &host_cost};

// dgeqrf of 2^17 x 32 (0.268 GFLOP) at 5 ms.
const Calibration& figures() {
  static const Calibration c = [] {
    Calibration k;
    k.certain = k.cpu_tsqr_certain = true;
    for (auto& size : k.figures.rates.geqrf) {
      for (auto& width : size) width[0] = width[1] = 0.268 / 0.005;
    }
    k.figures.rates.gemm_square[0] = k.figures.rates.gemm_square[1] = 1000.0;
    return k;
  }();
  return c;
}

TEST(AsRun, AHostRouteFarSlowerThanItsFiguresGivesTheCallsBackToTheFallback) {
  Implementations<FakeCall>::cpu = &slow_cpu;
  int fallback_runs = 0;
  for (int call = 0; call < 6; ++call) {
    dispatch(Routine::dgeqrf, Shape{1 << 17, 32}, nullptr, figures, FakeCall{},
             [&](const FakeCall&) {
               ++fallback_runs;
               std::this_thread::sleep_for(std::chrono::milliseconds(5));
             });
  }
  // The first call is not counted; after the second and third the route's ratio is 4.
  EXPECT_EQ(cpu_runs.load(), 3);
  EXPECT_EQ(fallback_runs, 3);
  EXPECT_GE(as_run::ratio(Routine::dgeqrf, kCpu, Shape{1 << 17, 32}), 4.0);
}

// A host route that runs half again its figure, while the fallback runs far below its own: the
// fallback is measured on the class, and takes the calls from then on.
double four_ms(const Shape&, const HostFigures&) { return 0.004; }
const RouteCost doubtful_cost{std::nullopt, four_ms};
bool run_in_6_ms(const FakeCall&) {
  ++cpu_runs;
  std::this_thread::sleep_for(std::chrono::milliseconds(6));
  return true;
}
const Implementation<FakeCall> doubtful_cpu{usable, takes_any, run_in_6_ms, nullptr, nullptr,
                                            &doubtful_cost};

// dgeqrf of 2^17 x 32 at 10 ms.
const Calibration& ten_ms_figures() {
  static const Calibration c = [] {
    Calibration k = figures();
    for (auto& size : k.figures.rates.geqrf) {
      for (auto& width : size) width[0] = width[1] = 0.268 / 0.010;
    }
    return k;
  }();
  return c;
}

TEST(AsRun, ARouteInDoubtHasTheFallbackMeasuredOnTheClass) {
  Implementations<FakeCall>::cpu = &doubtful_cpu;
  int fallback_runs = 0;
  std::vector<char> routes;
  for (int call = 0; call < 8; ++call) {
    const int before = cpu_runs.load();
    dispatch(Routine::dgeqrf, Shape{1 << 17, 32}, nullptr, ten_ms_figures, FakeCall{},
             [&](const FakeCall&) {
               ++fallback_runs;
               std::this_thread::sleep_for(std::chrono::milliseconds(1));
             });
    routes.push_back(cpu_runs.load() > before ? 'c' : 'f');
  }
  // Three calls on the route make its ratio 1.5 (6 ms against 10 in the fallback's figures);
  // then three in the fallback measure it, at the floor of a quarter (2.5 ms): it keeps them.
  EXPECT_EQ(std::string(routes.begin(), routes.end()), "cccfffff");
  EXPECT_EQ(as_run::counted(Routine::dgeqrf, kFallback, Shape{1 << 17, 32}), 3);
}

}  // namespace
}  // namespace switchyard
