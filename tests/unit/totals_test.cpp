#include "totals.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "tick_clock.hpp"

namespace switchyard {
namespace {

// The report sums every thread's own counters: those of threads still running, and of those
// that have exited.
TEST(Totals, CountsTheCallsOfEveryThreadRunningOrExited) {
  const Totals before = current_totals();
  const RoutineTotals& was = before[int(Routine::sorgqr)];
  std::vector<std::thread> exited;
  for (int t = 0; t < 4; ++t) {
    exited.emplace_back([] {
      for (int i = 0; i < 1000; ++i) record_totals(Routine::sorgqr, Backend::cpu, 0, 2.0);
    });
  }
  for (std::thread& t : exited) t.join();
  record_totals(Routine::sorgqr, Backend::gpu, 0, 1.0);  // this thread's, still running
  const Totals after = current_totals();
  const RoutineTotals& now = after[int(Routine::sorgqr)];
  EXPECT_EQ(now.calls[int(Backend::cpu)] - was.calls[int(Backend::cpu)], 4000u);
  EXPECT_EQ(now.calls[int(Backend::gpu)] - was.calls[int(Backend::gpu)], 1u);
  EXPECT_EQ(now.calls[int(Backend::fallback)], was.calls[int(Backend::fallback)]);
  EXPECT_DOUBLE_EQ(now.flops - was.flops, 8001.0);
}

// A gpu call split over several devices counts as a gpu call and as a split one, with the
// devices it ran over.
TEST(Totals, CountsSplitCallsWithTheirDevices) {
  const std::uint64_t was = current_totals()[int(Routine::sgeqrf)].split;
  static const char note[] = "split over CUDA devices 0,1";
  record_totals(Routine::sgeqrf, Backend::gpu, 0, 1.0, note);
  record_totals(Routine::sgeqrf, Backend::gpu, 0, 1.0);
  const RoutineTotals now = current_totals()[int(Routine::sgeqrf)];
  EXPECT_EQ(now.split - was, 1u);
  EXPECT_STREQ(now.split_over, note);
}

// A call counted without being timed adds to its backend's calls and to the untimed count, and
// to neither the time nor the flops.
TEST(Totals, CountsUntimedCallsApart) {
  const RoutineTotals was = current_totals()[int(Routine::ssyrk)];
  record_untimed(Routine::ssyrk, Backend::fallback);
  record_untimed(Routine::ssyrk, Backend::fallback);
  record_totals(Routine::ssyrk, Backend::fallback, 0, 3.0);
  const RoutineTotals now = current_totals()[int(Routine::ssyrk)];
  EXPECT_EQ(now.calls[int(Backend::fallback)] - was.calls[int(Backend::fallback)], 3u);
  EXPECT_EQ(now.untimed - was.untimed, 2u);
  EXPECT_DOUBLE_EQ(now.flops - was.flops, 3.0);
}

// A call's ticks read as the seconds it took: a 50 ms sleep as at least 45 ms and, however
// loaded the machine, not a second.
TEST(TickClock, TicksConvertToTheSecondsTheyTook) {
  const std::uint64_t start = tick_clock::ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double seconds = tick_clock::seconds(tick_clock::ticks() - start);
  EXPECT_GE(seconds, 0.045);
  EXPECT_LT(seconds, 1.0);
}

}  // namespace
}  // namespace switchyard
