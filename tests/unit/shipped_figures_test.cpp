// The shipped figures the router falls back on without a calibration file: the set measured
// with the fallback's kind and thread count where there is one, else the two hosts' sets
// interpolated and marked uncertain; the CPU TSQR's scaled to the kernels' level here.
#include "shipped_figures.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "calibration.hpp"

namespace switchyard {
namespace {

// The figures on a CPU whose TSQR kernels run at the shipped sets' level.
Calibration figures_of(const std::string& library, int threads) {
  return shipped_calibration(library, threads, shipped::kShippedKernelLevel);
}

TEST(ShippedFigures, OpenBlasOnAShippedThreadCountIsCertain) {
  const Calibration two = figures_of("/opt/a/libopenblas.so.0", 2);
  EXPECT_TRUE(two.certain);
  EXPECT_TRUE(two.cpu_tsqr_certain);
  EXPECT_EQ(two.figures.rates.geqrf[0][1][0], shipped::kOpenBlasSmallHost.rates.geqrf[0][1][0]);
  const Calibration sixteen = figures_of("/opt/b/libopenblas.so.0", 16);
  EXPECT_TRUE(sixteen.certain);
  EXPECT_EQ(sixteen.figures.cpu_tsqr.geqrf[1][1][0], shipped::kOpenBlas16.cpu_tsqr.geqrf[1][1][0]);
}

TEST(ShippedFigures, OtherThreadCountsLieBetweenTheHostsAndAreUncertain) {
  const Calibration four = figures_of("/opt/c/libopenblas.so.0", 4);
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
  const Calibration four = figures_of("/opt/d/lapack/liblapack.so.3", 4);
  EXPECT_TRUE(four.certain);
  EXPECT_FALSE(four.cpu_tsqr_certain);
  EXPECT_EQ(four.figures.rates.geqrf[1][2][1], shipped::kReference.rates.geqrf[1][2][1]);
}

TEST(ShippedFigures, AnUnknownLibraryIsTakenAsFastAsOpenBlasOnSixteenThreads) {
  const Calibration two = figures_of("/opt/e/libmystery.so", 2);
  EXPECT_FALSE(two.certain);
  EXPECT_EQ(two.figures.rates.gemm_square[0], shipped::kOpenBlas16.rates.gemm_square[0]);
}

// Without AVX-512 the CPU TSQR's rates are scaled down by the measured share per level, and
// uncertain, where no set of that level is shipped; the fallback's are not touched.
TEST(ShippedFigures, LowerKernelLevelsScaleTheCpuTsqrDown) {
  const Calibration avx512 = figures_of("/opt/f/libopenblas.so.0", 16);
  const Calibration avx2 = shipped_calibration("/opt/f/libopenblas.so.0", 16, 3);
  const Calibration baseline = shipped_calibration("/opt/f/libopenblas.so.0", 16, 1);
  const double share = shipped::kAvx2KernelShare;
  ASSERT_LT(share, 1.0);
  EXPECT_DOUBLE_EQ(avx2.figures.cpu_tsqr.geqrf[1][2][0],
                   share * avx512.figures.cpu_tsqr.geqrf[1][2][0]);
  EXPECT_DOUBLE_EQ(baseline.figures.cpu_tsqr.geqrf[0][1][1],
                   share * share * avx512.figures.cpu_tsqr.geqrf[0][1][1]);
  EXPECT_EQ(avx2.figures.cpu_tsqr.call_s, avx512.figures.cpu_tsqr.call_s);
  EXPECT_EQ(avx2.figures.rates.geqrf[1][1][0], avx512.figures.rates.geqrf[1][1][0]);
  EXPECT_TRUE(avx512.cpu_tsqr_certain);
  EXPECT_FALSE(avx2.cpu_tsqr_certain);
  EXPECT_TRUE(avx2.certain);  // the fallback's own figures stay as measured
  EXPECT_NE(avx2.source.find("AVX2 kernels (uncalibrated)"), std::string::npos) << avx2.source;
}

// Reference LAPACK and OpenBLAS on 2 threads, on a CPU running the AVX2 kernels, take the 2-core
// AVX2 host's sets, their CPU TSQR's rates as measured there (reference LAPACK's certain,
// OpenBLAS's not); other libraries, levels and thread counts do not.
TEST(ShippedFigures, TwoThreadsOnAnAvx2CpuTakeTheAvx2HostsSet) {
  const int avx2 = shipped::kSmallAvx2HostKernelLevel;
  const Calibration reference = shipped_calibration("/opt/g/lapack/liblapack.so.3", 2, avx2);
  EXPECT_TRUE(reference.certain);
  EXPECT_TRUE(reference.cpu_tsqr_certain);
  EXPECT_EQ(reference.figures.rates.geqrf[0][1][0],
            shipped::kReferenceSmallAvx2Host.rates.geqrf[0][1][0]);
  EXPECT_EQ(reference.figures.cpu_tsqr.geqrf[1][1][0],
            shipped::kReferenceSmallAvx2Host.cpu_tsqr.geqrf[1][1][0]);
  EXPECT_TRUE(geqp3_measured(reference.figures.rates, 0));
  EXPECT_NE(reference.source.find("2-core AVX2 host"), std::string::npos) << reference.source;
  // OpenBLAS takes its own figures on such a host, with the CPU routes uncertain.
  const Calibration openblas = shipped_calibration("/opt/g/libopenblas.so.0", 2, avx2);
  EXPECT_TRUE(openblas.certain);
  EXPECT_FALSE(openblas.cpu_tsqr_certain);
  EXPECT_EQ(openblas.figures.rates.gemm_square[0],
            shipped::kOpenBlasSmallAvx2Host.rates.gemm_square[0]);
  EXPECT_EQ(openblas.figures.cpu_tsqr.geqrf[1][1][0],
            shipped::kOpenBlasSmallAvx2Host.cpu_tsqr.geqrf[1][1][0]);
  EXPECT_TRUE(geqp3_measured(openblas.figures.rates, 0));
  EXPECT_NE(openblas.source.find("2-core AVX2 host"), std::string::npos) << openblas.source;
  EXPECT_EQ(shipped_calibration("/opt/g/libopenblas.so.0", 2, 4).figures.rates.gemm_square[0],
            shipped::kOpenBlasSmallHost.rates.gemm_square[0]);
  EXPECT_FALSE(shipped_calibration("/opt/g/lapack/liblapack.so.3", 4, avx2).cpu_tsqr_certain);
  EXPECT_EQ(shipped_calibration("/opt/g/lapack/liblapack.so.3", 2, 4).figures.rates.gemm_square[0],
            shipped::kReferenceSmallHost.rates.gemm_square[0]);
}

// The CPU TSQR's rates on short blocks, which let the router weigh it under 16384 rows: shipped
// for OpenBLAS on 16 threads and for reference LAPACK, on other thread counts the lower of the
// two sets' and scaled to lower kernel levels with the rest, but not on a 2-core AVX2 host; nor
// for OpenBLAS on other thread counts, whose 2-core set lacks them.
TEST(ShippedFigures, ShortBlockRatesWhereMeasured) {
  const auto measured = [](const Calibration& c) {
    return cpu_tsqr_short_measured(c.figures.cpu_tsqr, 0) &&
           cpu_tsqr_short_measured(c.figures.cpu_tsqr, 1);
  };
  EXPECT_TRUE(measured(figures_of("/opt/h/libopenblas.so.0", 16)));
  EXPECT_FALSE(measured(figures_of("/opt/h/libopenblas.so.0", 2)));
  EXPECT_FALSE(measured(figures_of("/opt/h/libopenblas.so.0", 4)));
  EXPECT_TRUE(measured(figures_of("/opt/h/lapack/liblapack.so.3", 16)));
  EXPECT_TRUE(measured(figures_of("/opt/h/lapack/liblapack.so.3", 2)));
  const Calibration four = figures_of("/opt/h/lapack/liblapack.so.3", 4);
  EXPECT_TRUE(measured(four));
  const double few = shipped::kReferenceSmallHost.cpu_tsqr.short_geqrf[2][0];
  const double many = shipped::kReference.cpu_tsqr.short_geqrf[2][0];
  EXPECT_EQ(four.figures.cpu_tsqr.short_geqrf[2][0], std::min(few, many));
  const Calibration avx2 = shipped_calibration("/opt/h/lapack/liblapack.so.3", 8, 3);
  EXPECT_NEAR(avx2.figures.cpu_tsqr.short_geqrf[2][0],
              shipped::kAvx2KernelShare *
                  figures_of("/opt/h/lapack/liblapack.so.3", 8).figures.cpu_tsqr.short_geqrf[2][0],
              1e-12);
  EXPECT_FALSE(measured(
      shipped_calibration("/opt/h/lapack/liblapack.so.3", 2, shipped::kSmallAvx2HostKernelLevel)));
}

}  // namespace
}  // namespace switchyard
