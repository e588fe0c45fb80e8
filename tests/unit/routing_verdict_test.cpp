// The rule `switchyard bench routing` judges routes by (tools/bench/routing_verdict.hpp).
#include "routing_verdict.hpp"

#include <gtest/gtest.h>

namespace switchyard::bench {
namespace {

TEST(RoutingVerdict, WrongOnlyWhenTenPercentAndFiveMillisecondsSlower) {
  EXPECT_TRUE(slower(111.0, 100.0));
  EXPECT_FALSE(slower(109.0, 100.0));  // 9% slower
  EXPECT_TRUE(slower(10.0, 5.0));
  EXPECT_FALSE(slower(9.9, 5.0));  // twice as slow, but 4.9 ms
  EXPECT_FALSE(slower(100.0, 110.0));
}

TEST(RoutingVerdict, CloseSidesTakeMoreProcesses) {
  EXPECT_TRUE(needs_more_samples(100.0, 100.0));
  EXPECT_TRUE(needs_more_samples(130.0, 100.0));
  EXPECT_TRUE(needs_more_samples(100.0, 130.0));
  EXPECT_FALSE(needs_more_samples(100.0, 140.0));  // ours clearly faster: one process says so
}

TEST(RoutingVerdict, AWrongVerdictRestsOnMoreThanOneProcess) {
  EXPECT_TRUE(needs_more_samples(30.6, 5.2));  // the outlier that once failed a run
  EXPECT_TRUE(needs_more_samples(1000.0, 100.0));
  EXPECT_FALSE(needs_more_samples(6.0, 2.0));  // far apart, but within 5 ms: never wrong
}

TEST(RoutingVerdict, CallsToPayForAStartComeFromTheTraceReason) {
  EXPECT_EQ(calls_to_pay_for_start("auto: cpu route 0.0381 s, fallback 0.486 s; gpu route cold "
                                   "device: start-up 0.23 s > gain 0.0094 s at a 10% margin"),
            25);
  EXPECT_EQ(calls_to_pay_for_start("gpu route cold device: start-up 0.2 s > gain 0.05 s at a "
                                   "10% margin"),
            4);
  // What the call forwent as run, where the trace says it, rather than the model's gain.
  EXPECT_EQ(calls_to_pay_for_start("gpu route cold device: start-up 0.2 s > gain 0.05 s at a "
                                   "10% margin; forwent 0.1 s, 0.2 s in all: starting the device "
                                   "in the background"),
            2);
  EXPECT_EQ(calls_to_pay_for_start("auto: cpu route 0.0202 s, fallback 0.206 s"), 0);
  EXPECT_EQ(calls_to_pay_for_start("gpu route cold device: start-up 0.2 s > gain -0.01 s"), 0);
}

// A warm call at the ski rental's horizon is run again for as long as the calls still to forgo
// the start-up take at the pace of those made, and the start itself.
TEST(RoutingVerdict, TheHorizonsWarmUpCoversTheCallsStillToForgoAndTheStart) {
  // 7 calls in 2 s forwent 0.31 s of a 4.8 s start each: 16 pay, 9 more at 2/7 s, then the start.
  EXPECT_NEAR(horizon_warm_up_s("gpu route cold device: start-up 4.8 s > gain 0.23 s at a 10% "
                                "margin; forwent 0.31 s, 2.1 s in all",
                                7, 2.0),
              2.0 + 9 * 2.0 / 7 + 2 * 4.8 + 0.5, 1e-12);
  // A start under way: only the start's time is still ahead, but the warm-up is at least four
  // times the first.
  EXPECT_NEAR(horizon_warm_up_s("auto: cpu route 0.0421 s, fallback 0.562 s; gpu route cold "
                                "device: start-up 0.17 s > gain 0.013 s at a 10% margin; forwent "
                                "0.016 s, 0.26 s in all: starting the device in the background",
                                19, 2.0),
              8.0, 1e-12);
  EXPECT_NEAR(horizon_warm_up_s("gpu route cold device: start-up 0.17 s > gain 0.013 s; forwent "
                                "0.016 s, 0.26 s in all: starting the device in the background",
                                19, 0.1),
              0.1 + 2 * 0.17 + 0.5, 1e-12);
  // Not kept off a cold device: no horizon.
  EXPECT_EQ(horizon_warm_up_s("auto: cpu route 0.0202 s, fallback 0.206 s", 20, 2.0), 0.0);
  EXPECT_EQ(horizon_warm_up_s("gpu route does not pay: device 0.03 s, fallback 0.02 s", 20, 2.0),
            0.0);
}

}  // namespace
}  // namespace switchyard::bench
