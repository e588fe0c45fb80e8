// The shipped figures the router falls back on without a calibration file: the set measured
// with the fallback's kind and thread count where there is one, else the two hosts' sets
// interpolated and marked uncertain.
#include "shipped_figures.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "calibration.hpp"

namespace switchyard {
namespace {

// calibration_of keeps one answer per library path: each case names its own, one no calibration
// file is ever made for.
const Calibration& figures_of(const std::string& library, int threads) {
  setenv("OPENBLAS_NUM_THREADS", std::to_string(threads).c_str(), 1);
  const Calibration& c = calibration_of(library);
  unsetenv("OPENBLAS_NUM_THREADS");
  return c;
}

TEST(ShippedFigures, OpenBlasOnAShippedThreadCountIsCertain) {
  const Calibration& two = figures_of("/opt/a/libopenblas.so.0", 2);
  EXPECT_TRUE(two.certain);
  EXPECT_TRUE(two.cpu_tsqr_certain);
  EXPECT_EQ(two.figures.rates.geqrf[0][1][0], shipped::kOpenBlasSmallHost.rates.geqrf[0][1][0]);
  const Calibration& sixteen = figures_of("/opt/b/libopenblas.so.0", 16);
  EXPECT_TRUE(sixteen.certain);
  EXPECT_EQ(sixteen.figures.cpu_tsqr.geqrf[1][1][0], shipped::kOpenBlas16.cpu_tsqr.geqrf[1][1][0]);
}

TEST(ShippedFigures, OtherThreadCountsLieBetweenTheHostsAndAreUncertain) {
  const Calibration& four = figures_of("/opt/c/libopenblas.so.0", 4);
  EXPECT_FALSE(four.certain);
  EXPECT_FALSE(four.cpu_tsqr_certain);
  EXPECT_NE(four.source.find("interpolated to 4 threads"), std::string::npos) << four.source;
  const double few = shipped::kOpenBlasSmallHost.cpu_tsqr.geqrf[1][1][0];
  const double many = shipped::kOpenBlas16.cpu_tsqr.geqrf[1][1][0];
  const double at_four = four.figures.cpu_tsqr.geqrf[1][1][0];
  EXPECT_GT(at_four, std::min(few, many));
  EXPECT_LT(at_four, std::max(few, many));
  // A call's costs are the larger of the two hosts'.
  EXPECT_EQ(four.figures.cpu_tsqr.first_call_s,
            std::max(shipped::kOpenBlasSmallHost.cpu_tsqr.first_call_s,
                     shipped::kOpenBlas16.cpu_tsqr.first_call_s));
}

TEST(ShippedFigures, ReferenceRunsOnOneThreadWhateverTheCount) {
  const Calibration& four = figures_of("/opt/d/lapack/liblapack.so.3", 4);
  EXPECT_TRUE(four.certain);
  EXPECT_FALSE(four.cpu_tsqr_certain);
  EXPECT_EQ(four.figures.rates.geqrf[1][2][1], shipped::kReference.rates.geqrf[1][2][1]);
}

TEST(ShippedFigures, AnUnknownLibraryIsTakenAsFastAsOpenBlasOnSixteenThreads) {
  const Calibration& two = figures_of("/opt/e/libmystery.so", 2);
  EXPECT_FALSE(two.certain);
  EXPECT_EQ(two.figures.rates.gemm_square[0], shipped::kOpenBlas16.rates.gemm_square[0]);
}

}  // namespace
}  // namespace switchyard
