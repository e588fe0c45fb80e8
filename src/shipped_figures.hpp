// The figures the router uses where `switchyard calibrate` has not run (calibration.hpp): each
// set is one run of it, its file's fields in the order below (docs/router.md, "Calibration").
#pragma once

#include "calibration.hpp"

namespace switchyard::shipped {

// The CPU TSQR's rates below, but the 2-core AVX2 host's at the end, are those of its AVX-512
// kernels (tsqr::kernel_level() 4): the first 2-core host's CPU has AVX-512, and the H200 host's
// Xeon is taken to have it too (its level was not recorded), so that a CPU without it is never
// given the faster figures. On a 2-core AVX2 host (AMD EPYC, Zen 3), `switchyard calibrate`
// with reference LAPACK measured the CPU TSQR's 16 rates (two precisions, two sizes, four
// widths) at 0.33 to 0.56 of the 2-core AVX-512 host's below, 0.42 their median: a rate is
// scaled by 0.4 for each level below 4, where no set of that level is shipped.
inline constexpr int kShippedKernelLevel = 4;
inline constexpr double kAvx2KernelShare = 0.4;

// The CPU TSQR's rates on short blocks (kShortQrRows rows, calibration.hpp) are from runs
// of `switchyard calibrate` of 2026-12-03: the H200 host's as measured there with each fallback,
// in the evening, after a short matrix came to run on fewer threads; the 2-core set's are its
// small-size rates times the ratio of the two that a run measured on the 2-core AVX-512 development
// machine (Intel Xeon, reference LAPACK), whose rates ran at about half the set's: 0.33, 0.59, 0.73
// and 0.86 at 8 to 256 columns in double, 0.22, 0.35, 0.69 and 0.74 in single. A set without them
// (`{}`) keeps the host's routes at kCpuTsqrSizedRows.

// The H200 test machine's host (16 cores, Intel Xeon): OpenBLAS 0.3.26 with 16 threads, and
// Debian's reference BLAS/LAPACK 3.11 (one thread, whatever the count; the CPU TSQR on 16).
// Each set is a run of 2026-11-25 but for its xGEQP3 rates, which are from a run of
// 2026-12-02, and the CPU TSQR's figures and xGEQRF's rates on short matrices, from runs of the
// night of 2026-12-03, after the CPU TSQR's one-pass panels, its shortest leaves and its narrow
// leaves' Q formed in place (the short rates from the later run, the rest from the one before):
// a later run of the whole set would have changed every fallback rate by its run to run spread
// (15-40% for OpenBLAS) for no better estimate.
inline constexpr int kShippedThreads = 16;
// Fields in FallbackRates' order, [double, single]: gemm square, Gram, wide Gram, narrow side,
// rank-32 update; syrk, wide syrk; geqrf, orgqr and ormqr at the small then the large size, at
// 8, 32, 128 and 256 columns each, and geqp3 likewise where measured (else {}: weighed as
// geqrf), and geqrf on kShortQrRows rows at the same widths where measured (else {}: weighed at
// the small size's rate); then the CPU TSQR at the small then the large size, at the
// same widths, its cost of a call and of a first call; then the CUDA and OpenCL start-ups.
inline constexpr HostFigures kOpenBlas16{
    {{539.0, 961.0},
     {98.8, 119.0},
     {335.0, 547.0},
     {343.0, 495.0},
     {286.0, 406.0},
     {22.0, 33.6},
     {234.0, 366.0},
     {{{4.3, 8.94}, {16.9, 35.4}, {40.3, 103.0}, {81.2, 133.0}},
      {{2.61, 6.91}, {8.35, 24.9}, {33.7, 64.5}, {54.8, 126.0}}},
     {{{4.96, 9.26}, {15.1, 31.3}, {37.0, 73.0}, {56.5, 115.0}},
      {{3.68, 9.51}, {12.0, 22.2}, {27.1, 46.7}, {53.9, 90.6}}},
     {{{23.5, 68.5}, {34.9, 85.2}, {44.3, 61.4}, {42.1, 48.8}},
      {{12.6, 25.1}, {24.3, 61.0}, {39.6, 54.5}, {32.7, 77.5}}},
     {{{2.24, 4.19}, {8.26, 21.6}, {26.2, 61.8}, {37.7, 78.7}},
      {{1.57, 3.78}, {5.24, 16.5}, {22.5, 42.7}, {40.3, 72.4}}},
     {{4.44, 9.27}, {14.4, 23.3}, {39.4, 64.1}, {58.1, 77.0}}},
    {{{{22.1, 28.2}, {32.1, 51.6}, {36.3, 59.7}, {16.1, 35.6}},
      {{39.0, 66.9}, {68.1, 124.0}, {49.2, 90.2}, {36.7, 81.9}}},
     0.000425,
     0.00351,
     {{4.71, 8.81}, {8.98, 12.7}, {9.73, 16.1}, {6.94, 12.4}}},
    0.23,
    0.27};
inline constexpr HostFigures kReference{
    {{3.36, 4.03},
     {1.6, 2.81},
     {2.71, 2.86},
     {2.82, 3.78},
     {3.2, 4.58},
     {2.36, 2.54},
     {2.74, 2.55},
     {{{2.51, 2.72}, {2.37, 2.98}, {2.85, 2.4}, {7.34, 8.87}},
      {{1.17, 2.2}, {1.65, 2.68}, {1.57, 2.31}, {4.34, 6.06}}},
     {{{2.96, 3.25}, {2.71, 3.25}, {2.92, 2.25}, {6.12, 7.94}},
      {{1.6, 2.71}, {1.53, 2.55}, {1.73, 2.12}, {4.31, 6.46}}},
     {{{1.83, 2.74}, {2.94, 3.31}, {2.46, 7.52}, {6.64, 8.94}},
      {{1.61, 2.48}, {1.56, 2.37}, {6.03, 8.55}, {6.83, 9.07}}},
     {{{1.04, 2.11}, {1.48, 2.85}, {2.46, 2.76}, {2.91, 4.18}},
      {{0.827, 1.64}, {1.51, 2.18}, {1.5, 1.92}, {2.37, 3.05}}},
     {{1.9, 2.21}, {2.17, 2.55}, {2.2, 2.8}, {7.36, 8.87}}},
    {{{{12.1, 30.6}, {34.6, 65.1}, {29.9, 69.2}, {14.5, 29.1}},
      {{38.5, 61.6}, {63.5, 130.0}, {51.5, 117.0}, {37.6, 73.6}}},
     0.00057,
     0.00255,
     {{1.97, 2.17}, {7.99, 10.3}, {9.53, 15.8}, {5.75, 9.5}}},
    0.23,
    0.28};

// A 2-core host (AMD EPYC), with Debian's reference BLAS/LAPACK 3.11 and the CPU TSQR on 2
// threads, which anchor the CPU TSQR's rate on few threads. Its OpenCL device was PoCL on the
// CPU, so its start-ups are the H200 host's.
inline constexpr int kSmallHostThreads = 2;
inline constexpr HostFigures kReferenceSmallHost{
    {{7.88, 7.83},
     {3.83, 4.03},
     {3.24, 3.9},
     {3.74, 7.94},
     {7.51, 8.13},
     {3.92, 4.03},
     {3.56, 4.04},
     {{{4.38, 4.75}, {4.67, 5.16}, {4.11, 5.39}, {4.47, 5.1}},
      {{3.6, 4.44}, {4.48, 5.01}, {4.46, 4.9}, {4.2, 4.91}}},
     {{{5.44, 5.82}, {4.97, 5.47}, {4.16, 5.34}, {4.46, 5.17}},
      {{4.19, 5.21}, {4.69, 5.3}, {4.57, 4.97}, {4.25, 4.87}}},
     {{{4.45, 5.26}, {4.37, 5.02}, {3.92, 4.04}, {3.97, 4.06}},
      {{4.66, 5.47}, {4.65, 5.3}, {3.57, 4.02}, {3.59, 4.1}}},
     {},   // xGEQP3 not measured
     {}},  // xGEQRF on short matrices not measured
    {{{{11.3, 22.9}, {22.0, 43.8}, {22.3, 42.9}, {12.1, 30.1}},
      {{12.4, 24.4}, {23.4, 46.4}, {27.1, 50.5}, {20.1, 54.0}}},
     0.00035,
     0.0011,
     {{3.7, 4.99}, {13.0, 15.1}, {16.2, 29.7}, {10.4, 22.4}}},
    0.23,
    0.28};

// The same 2-core host with Debian's OpenBLAS 0.3.21 on 2 threads.
inline constexpr HostFigures kOpenBlasSmallHost{
    {{120.0, 250.0},
     {81.2, 184.0},
     {111.0, 234.0},
     {69.4, 165.0},
     {75.2, 136.0},
     {33.4, 73.9},
     {84.1, 188.0},
     {{{10.5, 28.4}, {17.4, 51.9}, {22.7, 63.5}, {50.7, 110.0}},
      {{5.26, 13.9}, {7.78, 18.1}, {9.35, 22.2}, {27.1, 69.2}}},
     {{{14.5, 42.3}, {21.4, 56.6}, {26.6, 64.5}, {52.1, 110.0}},
      {{6.68, 16.1}, {8.8, 20.8}, {9.98, 21.7}, {28.1, 68.1}}},
     {{{9.85, 25.6}, {16.8, 62.3}, {47.5, 103.0}, {46.9, 104.0}},
      {{8.09, 17.1}, {8.77, 19.8}, {17.6, 71.3}, {39.2, 95.4}}},
     {},   // xGEQP3 not measured
     {}},  // xGEQRF on short matrices not measured
    {{{{11.3, 23.6}, {20.5, 32.2}, {22.5, 41.6}, {12.1, 29.1}},
      {{12.1, 24.6}, {23.0, 45.0}, {27.7, 51.8}, {17.9, 51.3}}},
     0.00031,
     0.0011,
     {}},  // short rates not measured
    0.23,
    0.27};

// A 2-core AVX2 host (AMD EPYC, no AVX-512), about half as fast as the one above in reference
// BLAS, with Debian's reference BLAS/LAPACK 3.11 (2026-11-28). Its CPU TSQR's rates are of the
// AVX2 kernels, kSmallAvx2HostKernelLevel, and reference LAPACK on 2 threads on a CPU running
// them takes this set in place of the one above scaled by kAvx2KernelShare: that scaled set put
// the CPU TSQR at 2^18 x 32 at 1.9 times reference dgeqrf's speed on such a host, short of the
// twice an uncertain set needs, where it ran 4.6 to 5.3 times as fast. Its OpenCL device was
// PoCL on the CPU, so its start-ups are the H200 host's.
inline constexpr int kSmallAvx2HostKernelLevel = 3;
inline constexpr HostFigures kReferenceSmallAvx2Host{
    {{3.96, 4.78},
     {1.92, 2.07},
     {1.96, 2.07},
     {2.5, 3.83},
     {4.87, 5.22},
     {1.82, 1.62},
     {1.9, 1.47},
     {{{1.54, 1.84}, {2.05, 2.6}, {1.73, 2.33}, {1.53, 2.31}},
      {{1.59, 2.01}, {1.62, 2.57}, {1.74, 2.4}, {1.76, 2.36}}},
     {{{2.11, 3.15}, {2.05, 2.61}, {1.76, 2.42}, {1.95, 2.51}},
      {{1.57, 2.58}, {1.65, 2.66}, {1.89, 2.54}, {1.79, 2.36}}},
     {{{1.64, 2.47}, {1.76, 2.63}, {1.34, 2.0}, {1.57, 1.9}},
      {{1.69, 2.41}, {1.85, 2.39}, {1.19, 1.87}, {1.38, 1.92}}},
     {{{1.08, 1.99}, {1.89, 2.21}, {1.54, 2.26}, {1.84, 2.34}},
      {{1.48, 1.34}, {1.64, 2.04}, {1.69, 2.52}, {1.69, 2.31}}},
     {}},  // xGEQRF on short matrices not measured
    {{{{4.45, 8.61}, {10.1, 21.2}, {10.8, 22.6}, {6.27, 15.0}},
      {{4.95, 10.4}, {10.3, 22.1}, {12.5, 29.7}, {9.57, 19.6}}},
     0.000843,
     0.00148,
     {}},  // short rates not measured
    0.23,
    0.28};

// The same AVX2 host with Debian's OpenBLAS 0.3.21 on 2 threads (2026-11-28). OpenBLAS on 2
// threads on a CPU running the AVX2 kernels takes it, with the CPU routes weighed as uncertain
// (a route must be twice as fast): taken as certain, these figures sent calls to the CPU TSQR
// where the two run within a third of each other, and three of them lost by 10-20 ms, since
// OpenBLAS's own time there moves by that much from run to run (its xGEQRF 131072 x 32 at 4.6
// and 7.1 GFLOP/s in two calibrations). The scaled AVX-512 set it had before forwent gains of
// up to 4.3 times (docs/routing.md).
inline constexpr HostFigures kOpenBlasSmallAvx2Host{
    {{70.8, 182.0},
     {60.3, 71.0},
     {78.0, 126.0},
     {51.2, 72.0},
     {34.6, 66.9},
     {20.5, 35.9},
     {47.7, 121.0},
     {{{4.39, 11.9}, {4.64, 23.0}, {11.9, 28.7}, {24.2, 54.4}},
      {{2.85, 5.93}, {4.7, 11.4}, {6.53, 13.5}, {13.9, 38.4}}},
     {{{3.74, 6.56}, {6.77, 26.5}, {12.6, 29.1}, {25.9, 55.7}},
      {{3.53, 6.75}, {5.45, 12.1}, {6.27, 13.0}, {16.4, 40.7}}},
     {{{4.78, 10.4}, {6.09, 23.7}, {17.8, 30.2}, {26.4, 51.1}},
      {{4.97, 9.76}, {5.64, 15.1}, {22.6, 42.9}, {24.2, 54.1}}},
     {{{2.55, 6.05}, {4.8, 21.2}, {10.1, 23.3}, {15.2, 39.5}},
      {{2.18, 4.63}, {4.34, 10.7}, {5.62, 9.99}, {9.44, 19.8}}},
     {}},  // xGEQRF on short matrices not measured
    {{{{4.48, 8.46}, {8.37, 15.6}, {11.3, 19.0}, {6.22, 15.1}},
      {{4.74, 11.0}, {11.8, 21.3}, {15.6, 27.7}, {9.51, 25.3}}},
     0.000803,
     0.0141,
     {}},  // short rates not measured
    0.23,
    0.28};

}  // namespace switchyard::shipped
