// What the router knows of this host: how fast the fallback library runs
// each class of routed call, how fast Switchyard's own CPU TSQR runs, and how
// long each device takes to start. The router weighs a call's modelled time on
// a route, plus the start-up when its device is cold, against the fallback's
// time from these figures.
//
// Where they come from, first match wins:
//   1. `switchyard calibrate`, which times the fallback, the CPU TSQR and the
//      devices' start here and stores them in the cache directory, one file
//      per fallback library and thread count;
//   2. shipped figures from `switchyard calibrate` on two hosts: the H200 test
//      machine's (16 cores) with OpenBLAS 0.3.26 and with reference
//      BLAS/LAPACK, and a 2-core host with reference BLAS/LAPACK; taken when
//      the fallback is the same kind of library and the thread count matches;
//   3. the shipped figures of the nearest kind, scaled to this host's threads
//      (the CPU TSQR's along the power law between the two hosts), marked
//      uncertain: the router then sends a call to a route only when the model
//      gives it at least twice the fallback's speed.
//   The shipped CPU TSQR figures are its AVX-512 kernels'; on a CPU without
//   AVX-512 they are scaled down and uncertain.
#pragma once

#include <string>

#include "routine.hpp"

namespace switchyard {

// The widths (columns, or reflectors) at which the QR routines' rates are measured. A blocked
// QR's updates are gemms as deep as it is wide, so its rate grows with the width, and not along
// one power law: OpenBLAS's dgeqrf on the H200 host ran at 2.2, 12.6, 26 and 57 GFLOP/s at 8,
// 32, 128 and 256 columns, where a law through 32 and 256 alone put 4.0 at 8 and 40 at 128.
inline constexpr int kQrWidths[] = {8, 32, 128, 256};
inline constexpr int kQrWidthCount = 4;
// The sizes (elements of the factored matrix) at which they are measured at each width: one the
// host's caches hold (32 MiB of doubles) and one that streams from memory (256 MiB). A QR's
// rate falls as the matrix outgrows the caches: OpenBLAS's dgeqrf at 128 columns ran at 47
// GFLOP/s on 2^14 rows and 25 on 2^18, and at 32 columns at 14.6 on 2^17 rows, 10.5 on 2^20
// and 7.3 on 2^22, where one size alone put 2^18 x 128 at 0.23 s in OpenBLAS against 0.34.
inline constexpr long kQrSizes[] = {1L << 22, 1L << 25};
inline constexpr int kQrSizeCount = 2;
// The columns of C xORMQR's rates are measured with, at every width.
inline constexpr int kOrmqrColumns = 32;

// GFLOP/s of the fallback by class of call; [0] double, [1] single.
struct FallbackRates {
  double gemm_square[2];  // large square gemm (1024)
  double gemm_gram[2];    // gemm with a 64 x 64 C and a long k (a Gram product)
  double gemm_wide[2];    // the same with a 256 x 256 C
  double gemm_narrow[2];  // gemm with a 4096 x 32 C and k = 4096 (one narrow side)
  double gemm_rank[2];    // gemm with a 4096 x 4096 C and k = 32 (a rank-32 update)
  double syrk[2];         // syrk with n = 64 and a long k
  double syrk_wide[2];    // the same with n = 256
  // At each of kQrSizes and kQrWidths: tall-skinny QR, its Q, and its Q^T applied to 32
  // columns.
  double geqrf[kQrSizeCount][kQrWidthCount][2];
  double orgqr[kQrSizeCount][kQrWidthCount][2];
  double ormqr[kQrSizeCount][kQrWidthCount][2];
  // Pivoted QR at the same points, in xGEQRF's flops; 0 where not measured (a calibration file
  // written before they were, a shipped set without them): then xGEQP3 is weighed as the xGEQRF
  // of its shape, a bound its time never goes below. Half of its flops are matrix-vector
  // products, one pass over the trailing matrix per column, so how far it falls behind xGEQRF
  // depends on the library and the host: on a 2-core AVX2 host, reference LAPACK ran both at
  // 1.5 to 2 GFLOP/s; OpenBLAS on 16 threads took 1.4-1.5 s for dgeqp3 on 2^22 x 32
  // (docs/qr-pivoted.md), where its dgeqrf takes about 1 s.
  double geqp3[kQrSizeCount][kQrWidthCount][2];
  // xGEQRF on kShortQrRows rows at each of kQrWidths, 0 where not measured: a short matrix
  // can run well below the small size's rate (OpenBLAS on the H200 host's 16 threads took
  // 8.2-11 ms for dgeqrf 4096 x 256, 48-64 GFLOP/s, against 81 on 32 MiB). Where not measured
  // the small size's rate stands, which errs on the fallback's side.
  double short_geqrf[kQrWidthCount][2];
};

// Whether `rates` holds xGEQP3's own rates in precision p ([0] double, [1] single).
inline bool geqp3_measured(const FallbackRates& rates, int p) {
  for (const auto& at_size : rates.geqp3) {
    for (const auto& at_width : at_size) {
      if (!(at_width[p] > 0.0)) return false;
    }
  }
  return true;
}

// Switchyard's own CPU TSQR (tsqr/cpu_tsqr.hpp) on this host, run on fallback_threads() threads:
// its GFLOP/s, counted in xGEQRF's flops, at each of kQrSizes and kQrWidths ([0] double, [1]
// single); what a call costs whatever its size (starting its threads, their workspace), the
// median time of a 16384 x 8 call; and what the first call of a process costs beyond that,
// the mean over fresh processes of a 131072 x 32 call's first time less its later ones'. It
// does about 2.5 times xGEQRF's flops, with its own kernels. On the H200 host a call took 2.7
// to 9 ms at 16384 to 262144 rows and 8 columns, where its flops alone take well under a
// millisecond, and a process's first call at 65536 to 262144 rows took 10 to 25 ms longer.
//
// Its rates on kShortQrRows rows ([width][precision], 0 where not measured: a calibration
// file or shipped set from before they were), like the others, count a call's whole time, so
// that the model, which adds call_s, errs there on the slow side by call_s. Short blocks cost it
// more than their flops: each of its threads takes a leaf of m / threads rows, and the stacks of
// R factors grow towards A's own height. On the 2-core development machine with reference
// LAPACK, 4096 x 128 in double ran at 9.2 GFLOP/s against 12 on 32768 x 128; on the H200 host's
// 16 threads it took 25 ms, its flops at the rate of 32768 x 128 less than 5.
struct CpuRouteRates {
  double geqrf[kQrSizeCount][kQrWidthCount][2];
  double call_s;
  double first_call_s;
  double short_geqrf[kQrWidthCount][2];
};

// The rows of A at which the short rates (the fallback's xGEQRF's, the CPU TSQR's) are
// measured, and the fewest at which the CPU TSQR's other rates are all measured (the small size at
// the widest width): without its short rates the router does not weigh the host's QR routes under
// the latter.
inline constexpr int kShortQrRows = 4096;
inline constexpr long kCpuTsqrSizedRows = kQrSizes[0] / kQrWidths[kQrWidthCount - 1];

// Whether a set of short rates (the fallback's xGEQRF's, the CPU TSQR's) holds one at every
// width in precision p ([0] double, [1] single).
inline bool short_rates_measured(const double (&rates)[kQrWidthCount][2], int p) {
  for (const auto& at_width : rates) {
    if (!(at_width[p] > 0.0)) return false;
  }
  return true;
}

// Whether `rates` holds the CPU TSQR's short rates in precision p: only then does the router
// weigh its routes on fewer rows than kCpuTsqrSizedRows.
inline bool cpu_tsqr_short_measured(const CpuRouteRates& rates, int p) {
  return short_rates_measured(rates.short_geqrf, p);
}

struct HostFigures {
  FallbackRates rates{};
  CpuRouteRates cpu_tsqr{};
  // A first routed call's start-up, the mean of several processes' (calibrate.cpp):
  double cuda_start_s = 0.0;    // CUDA: driver, context, staging
  double opencl_start_s = 0.0;  // OpenCL: driver, context, programs, staging
};

struct Calibration {
  HostFigures figures;
  bool certain = false;  // measured here, or shipped for this kind of library and thread count
  // The CPU TSQR's figures: measured here, or shipped for this thread count.
  bool cpu_tsqr_certain = false;
  std::string source;  // for the trace and switchyard info
};

// The figures of a fallback whose xGEQRF is in the file `lapack_origin`, found on its first use
// (reading its calibration file); calibration() is those of the reference-named fallback,
// fallback() (fallback.hpp), which the 64-bit names' calls are weighed by as well.
const Calibration& calibration_of(const std::string& lapack_origin);
const Calibration& calibration();
// The same for `threads` threads: the host's share one MPI process runs on (pgeqrf.cpp).
const Calibration& calibration_of(const std::string& lapack_origin, int threads);

// The shipped figures (shipped_figures.hpp) for a fallback library, its thread count and the
// x86-64 level of the CPU TSQR's kernels here (tsqr::kernel_level()): what calibration_of takes
// where there is no calibration file.
Calibration shipped_calibration(const std::string& library, int threads, int kernel_level);

// The fallback's modelled seconds for one call.
double fallback_seconds(const FallbackRates& rates, Routine r, const Shape& s);

// The CPU TSQR's modelled seconds for one xGEQRF call.
double cpu_tsqr_seconds(const CpuRouteRates& rates, Routine r, const Shape& s);

// The thread count the fallback runs with: OPENBLAS_NUM_THREADS, else
// OMP_NUM_THREADS, else the hardware's. The CPU TSQR runs with as many.
int fallback_threads();

// The calibration file of a fallback library and thread count: its name, and
// its path in the cache directory ("" when there is no cache directory).
std::string calibration_name(const std::string& library, int threads);
std::string calibration_path(const std::string& library, int threads);

// The file's text for `figures`, and back. parse_figures is strict: every
// field present once with a positive value, nothing else, or false.
std::string format_figures(const std::string& library, int threads, const HostFigures& figures);
bool parse_figures(const std::string& text, const std::string& library, int threads,
                   HostFigures& figures);

// The figures stored in `directory` for a fallback library and thread count,
// when their file is there, trusted (trusted_files.hpp) and parses. The file
// carries no checksum: parse_figures takes only a whole file, it is text
// meant to be read, and a checksum that anyone able to write the file can
// recompute would add nothing to the ownership check.
bool load_figures(const std::string& directory, const std::string& library, int threads,
                  HostFigures& figures);

// Writes the file for a fallback library and thread count in `directory` (a
// new file renamed into place); false with the reason in `error`.
bool store_figures(const std::string& directory, const std::string& library, int threads,
                   const HostFigures& figures, std::string& error);

// store_figures for the current fallback, in the cache directory.
bool store_calibration(const HostFigures& figures, std::string& error);

}  // namespace switchyard
