#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "trace.hpp"

namespace switchyard {
namespace {

TEST(TraceFormat, OneLineWithEveryField) {
  TraceEvent e;
  e.id = 7;
  e.parent = 6;
  e.depth = 1;
  e.routine = Routine::dgemm;
  e.shape = {100, 200, 300, 'N', 'T'};
  e.decision.backend = Backend::fallback;
  std::strcpy(e.decision.reason, "too small");
  e.seconds = 0.0015;
  EXPECT_EQ(format_trace_line(e),
            "switchyard: call=7 parent=6 depth=1 dgemm transa=N transb=T m=100 n=200 k=300 "
            "route=fallback reason=\"too small\" time_ms=1.500\n");
}

TEST(TraceFormat, RoutinesWithoutTransposesShowNoneOfThem) {
  TraceEvent e;
  e.id = 1;
  e.routine = Routine::sgeqrf;
  e.shape = {4096, 16};
  e.decision.backend = Backend::gpu;
  std::strcpy(e.decision.reason, "auto");
  EXPECT_EQ(format_trace_line(e),
            "switchyard: call=1 parent=0 depth=0 sgeqrf m=4096 n=16 route=gpu reason=\"auto\" "
            "time_ms=0.000\n");
}

TEST(ReportFormat, OneRowPerCalledRoutine) {
  Totals t{};
  t[int(Routine::dgemm)].calls = {3, 0, 2};
  t[int(Routine::dgemm)].seconds = 2.0;
  t[int(Routine::dgemm)].flops = 8e9;
  const std::string r = format_report(t);
  EXPECT_NE(r.find("dgemm             5         3         0         2      2.0000      4.00\n"),
            std::string::npos)
      << r;
  EXPECT_EQ(r.find("sgemm"), std::string::npos);
  EXPECT_EQ(r.find("no routed"), std::string::npos);
}

TEST(ReportFormat, SaysWhichCallsWereNotTimed) {
  Totals t{};
  t[int(Routine::dgemm)].calls = {7, 0, 1};
  t[int(Routine::dgemm)].untimed = 6;
  t[int(Routine::dgeqrf)].calls = {2, 0, 0};
  const std::string r = format_report(t);
  EXPECT_NE(r.find("dgemm: 6 calls sent to the fallback by the thresholds were counted, not timed"),
            std::string::npos)
      << r;
  EXPECT_EQ(r.find("dgeqrf: "), std::string::npos) << r;
}

TEST(ReportFormat, NamesTheDevicesOfSplitCalls) {
  Totals t{};
  t[int(Routine::dgeqrf)].calls = {0, 0, 5};
  t[int(Routine::dgeqrf)].split = 4;
  t[int(Routine::dgeqrf)].split_over = "split over CUDA devices 0,1";
  t[int(Routine::dgemm)].calls = {0, 0, 2};
  const std::string r = format_report(t);
  EXPECT_NE(r.find("dgeqrf: 4 gpu calls split over CUDA devices 0,1\n"), std::string::npos) << r;
  EXPECT_EQ(r.find("dgemm:"), std::string::npos) << r;
  EXPECT_EQ(format_report(Totals{}).find("split over"), std::string::npos);
}

TEST(ReportFormat, SaysWhenNothingWasCalled) {
  EXPECT_NE(format_report(Totals{}).find("(no routed BLAS/LAPACK calls were seen)"),
            std::string::npos);
}

}  // namespace
}  // namespace switchyard
