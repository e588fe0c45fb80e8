#include "calibration.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "config.hpp"
#include "fallback.hpp"
#include "shipped_figures.hpp"
#include "trusted_files.hpp"
#include "tsqr/cpu_leaf.hpp"

namespace switchyard {
namespace {

using shipped::kOpenBlas16;
using shipped::kOpenBlasSmallHost;
using shipped::kReference;
using shipped::kReferenceSmallHost;
using shipped::kShippedThreads;
using shipped::kSmallHostThreads;

// Far above the calibration file's few hundred lines.
constexpr std::size_t kMaxFileBytes = 65536;

enum class Kind { openblas, reference, other };

Kind kind_of(const std::string& library) {
  if (library.find("openblas") != std::string::npos) return Kind::openblas;
  // Debian's reference libraries live in lapack/ and blas/ under the library
  // directory; a program linked with -lswitchyard gets liblapack.so.3 itself.
  for (const char* part : {"/lapack/liblapack.so", "/blas/libblas.so"}) {
    if (library.find(part) != std::string::npos) return Kind::reference;
  }
  const std::size_t slash = library.rfind('/');
  const std::string base = library.substr(slash == std::string::npos ? 0 : slash + 1);
  if (base.rfind("liblapack.so", 0) == 0) return Kind::reference;
  return Kind::other;
}

// The file's fields, in order: each figure of `f` with its name.
std::vector<std::pair<std::string, double*>> fields(HostFigures& f) {
  std::vector<std::pair<std::string, double*>> v;
  const auto rates = [&](const std::string& name, double(&pair)[2]) {
    v.push_back({"d" + name + "_gflops", &pair[0]});
    v.push_back({"s" + name + "_gflops", &pair[1]});
  };
  FallbackRates& r = f.rates;
  rates("gemm_square", r.gemm_square);
  rates("gemm_gram", r.gemm_gram);
  rates("gemm_wide", r.gemm_wide);
  rates("gemm_narrow", r.gemm_narrow);
  rates("gemm_rank", r.gemm_rank);
  rates("syrk", r.syrk);
  rates("syrk_wide", r.syrk_wide);
  for (int z = 0; z < kQrSizeCount; ++z) {
    for (int w = 0; w < kQrWidthCount; ++w) {
      const std::string at = "_" + std::to_string(kQrWidths[w]) + (z == 0 ? "_small" : "_large");
      rates("geqrf" + at, r.geqrf[z][w]);
      rates("orgqr" + at, r.orgqr[z][w]);
      rates("ormqr" + at, r.ormqr[z][w]);
      rates("geqp3" + at, r.geqp3[z][w]);
    }
  }
  for (int z = 0; z < kQrSizeCount; ++z) {
    for (int w = 0; w < kQrWidthCount; ++w) {
      const std::string at = "_" + std::to_string(kQrWidths[w]) + (z == 0 ? "_small" : "_large");
      rates("cpu_tsqr" + at, f.cpu_tsqr.geqrf[z][w]);
    }
  }
  for (int w = 0; w < kQrWidthCount; ++w) {
    rates("cpu_tsqr_" + std::to_string(kQrWidths[w]) + "_short", f.cpu_tsqr.short_geqrf[w]);
  }
  for (int w = 0; w < kQrWidthCount; ++w) {
    rates("geqrf_" + std::to_string(kQrWidths[w]) + "_short", r.short_geqrf[w]);
  }
  v.push_back({"cpu_tsqr_call_s", &f.cpu_tsqr.call_s});
  v.push_back({"cpu_tsqr_first_call_s", &f.cpu_tsqr.first_call_s});
  v.push_back({"cuda_start_s", &f.cuda_start_s});
  v.push_back({"opencl_start_s", &f.opencl_start_s});
  return v;
}

bool is_rate(const std::string& field) {
  return field.size() > 7 && field.compare(field.size() - 7, 7, "_gflops") == 0;
}

// The fields a file may leave out, each group all together: xGEQP3's rates, the CPU TSQR's
// short rates and the fallback's xGEQRF's (calibration.hpp), which files written before they
// were measured lack, and which are 0 when not measured; kEveryFile for a field every file has.
constexpr int kEveryFile = 0, kPivotedQrRates = 1, kShortBlockRates = 2, kFallbackShortRates = 3,
              kOptionalGroups = 3;
int optional_group(const std::string& field) {
  if (field.find("geqp3_") != std::string::npos) return kPivotedQrRates;
  if (field.find("cpu_tsqr_") != std::string::npos && field.find("_short_") != std::string::npos) {
    return kShortBlockRates;
  }
  if (field.find("geqrf_") != std::string::npos && field.find("_short_") != std::string::npos) {
    return kFallbackShortRates;
  }
  return kEveryFile;
}
bool optional_field(const std::string& field) { return optional_group(field) != kEveryFile; }

HostFigures scaled(HostFigures f, double factor) {
  for (const auto& [name, value] : fields(f)) {
    if (is_rate(name)) *value *= factor;
  }
  return f;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// A library as a file, symbolic links resolved: Debian's liblapack.so.3 is a link to whichever
// implementation is selected.
std::string resolved_path(const std::string& origin) {
  char resolved[PATH_MAX];
  return realpath(origin.c_str(), resolved) ? std::string(resolved) : origin;
}

std::string fallback_library() { return resolved_path(fallback().lapack_origin); }

// The fallback's rate for a call whose narrow side (a gemm's smallest dimension, syrk's n, a
// QR's columns or reflectors) is `width`, from the rates r0 and r1 measured at widths w0 < w1:
// the power law through the two, its exponent kept within [lowest, highest], also past either
// end. A BLAS runs narrow products and blocked factorizations faster the wider they are, since
// their inner gemms grow with the width (OpenBLAS's dgeqrf: 6 times from 32 to 256 columns).
double rate_at(double w0, double r0, double w1, double r1, std::int64_t width, double lowest = -1.0,
               double highest = 1.5) {
  const double exponent = std::clamp(std::log(r1 / r0) / std::log(w1 / w0), lowest, highest);
  return r0 * std::pow(double(std::max<std::int64_t>(1, width)) / w0, exponent);
}

// A QR routine's rate at `width` columns (reflectors) from its rates at kQrWidths on one size:
// the power law between the two measured widths around it, or beyond the narrowest or widest,
// the law of the nearest two.
double width_rate(const double (&rates)[kQrWidthCount][2], int precision, std::int64_t width) {
  int i = 0;
  while (i + 2 < kQrWidthCount && width > kQrWidths[i + 1]) ++i;
  return rate_at(kQrWidths[i], rates[i][precision], kQrWidths[i + 1], rates[i + 1][precision],
                 width);
}

// The same on a matrix of `elements` (rows times columns or reflectors): the small size's rate
// up to it, the power law through the two sizes' rates between them, and past the large size
// the same law while it falls (a matrix further out of the caches runs no faster), its exponent
// no steeper than -0.5, else the large size's rate.
double qr_rate_at(const double (&rates)[kQrSizeCount][kQrWidthCount][2], int precision,
                  std::int64_t width, double elements) {
  const double small = width_rate(rates[0], precision, width);
  const double large = width_rate(rates[1], precision, width);
  const double e0 = double(kQrSizes[0]), e1 = double(kQrSizes[1]);
  if (elements <= e0) return small;
  const double exponent = std::log(large / small) / std::log(e1 / e0);
  if (elements <= e1) return small * std::pow(elements / e0, exponent);
  return large * std::pow(elements / e1, std::clamp(exponent, -0.5, 0.0));
}

// Every rate of two sets measured on `few` < `many` threads along the power law in the thread
// count through the two (its exponent kept within [0, 1], also past either end), and the larger
// of their costs of a call and first call; the start-ups are `many`'s. A BLAS runs a routine's
// calls faster on more threads, but less than in proportion once they are bound by memory: the
// CPU TSQR at 2^20 x 32 in double ran at 55 GFLOP/s with 16 threads on the H200 host and at 23
// with 2 on the 2-core host, where OpenBLAS's dgeqrf at 2^17 x 32 ran at 17 on both. The CPU
// TSQR's rates on short blocks are the lower of the two sets': on more threads it cuts a short
// matrix into shorter leaves, and ran slower on 16 than on 2.
HostFigures between(HostFigures few_set, int few, HostFigures many_set, int many, int threads) {
  const auto from = fields(few_set);
  const auto to = fields(many_set);
  for (std::size_t i = 0; i < to.size(); ++i) {
    const std::string& name = to[i].first;
    double& value = *to[i].second;
    if (is_rate(name)) {
      const bool measured = value > 0.0 && *from[i].second > 0.0;  // else 0: not measured
      if (!measured) {
        value = 0.0;
      } else if (optional_group(name) == kShortBlockRates) {
        value = std::min(value, *from[i].second);
      } else {
        value = rate_at(few, *from[i].second, many, value, threads, 0.0, 1.0);
      }
    } else if (name.rfind("cpu_tsqr_", 0) == 0) {
      value = std::max(value, *from[i].second);
    }
  }
  return many_set;
}

// The shipped CPU TSQR rates are those of its AVX-512 kernels (shipped_figures.hpp). Where a
// lower level's copy runs they are scaled by the measured share for each level below, and
// uncertain: the route must then be twice as fast.
void adjust_to_kernel_level(Calibration& c, int level) {
  if (level >= shipped::kShippedKernelLevel) return;
  const double avx2 = shipped::kAvx2KernelShare;
  const double share = level >= 3 ? avx2 : avx2 * avx2;
  for (auto& at_size : c.figures.cpu_tsqr.geqrf) {
    for (auto& at_width : at_size) {
      for (double& rate : at_width) rate *= share;
    }
  }
  for (auto& at_width : c.figures.cpu_tsqr.short_geqrf) {
    for (double& rate : at_width) rate *= share;
  }
  c.cpu_tsqr_certain = false;
  c.source += level >= 3 ? "; the CPU TSQR's rates scaled to its AVX2 kernels (uncalibrated)"
                         : "; the CPU TSQR's rates scaled to its baseline kernels (uncalibrated)";
}

// The shipped figures for a fallback library and thread count: a set measured with as many
// threads, else the sets of the two hosts interpolated (uncertain), and for the reference
// library, which runs on one thread whatever the count, its rates on the H200 host.
Calibration shipped_figures(const std::string& library, int threads) {
  const Kind kind = kind_of(library);
  const bool reference = kind == Kind::reference;
  const HostFigures& few_set = reference ? kReferenceSmallHost : kOpenBlasSmallHost;
  const HostFigures& many_set = reference ? kReference : kOpenBlas16;
  const std::string name = reference ? "reference BLAS/LAPACK" : "OpenBLAS";
  if (kind != Kind::other && threads == kSmallHostThreads) {
    return {few_set, true, true, "shipped: " + name + ", 2 threads, on a 2-core host"};
  }
  if (kind != Kind::other && threads == kShippedThreads) {
    return {many_set, true, true, "shipped: " + name + ", 16 threads, on the H200 host"};
  }
  Calibration c{between(few_set, kSmallHostThreads, many_set, kShippedThreads, threads), false,
                false, ""};
  const std::string at = std::to_string(threads) + " threads";
  switch (kind) {
    case Kind::reference:
      c.figures.rates = kReference.rates;
      c.certain = true;
      c.source =
          "shipped: reference BLAS/LAPACK on the H200 host; the CPU TSQR's figures "
          "interpolated to " +
          at + " (uncalibrated)";
      break;
    case Kind::openblas:
      c.source = "shipped OpenBLAS figures interpolated to " + at + " (uncalibrated)";
      break;
    case Kind::other:
      // Taken to be as fast as OpenBLAS on the H200 host at least: a call is sent to a route
      // only where it would beat that too.
      c.figures.rates = scaled(kOpenBlas16, std::max(1.0, double(threads) / kShippedThreads)).rates;
      c.source = "no figures for this library (uncalibrated): OpenBLAS's, scaled to " + at;
      break;
  }
  return c;
}

}  // namespace

Calibration shipped_calibration(const std::string& library, int threads, int kernel_level) {
  const Kind kind = kind_of(library);
  if (threads == kSmallHostThreads && kernel_level == shipped::kSmallAvx2HostKernelLevel) {
    if (kind == Kind::reference) {
      return {shipped::kReferenceSmallAvx2Host, true, true,
              "shipped: reference BLAS/LAPACK, 2 threads, on a 2-core AVX2 host"};
    }
    if (kind == Kind::openblas) {
      return {shipped::kOpenBlasSmallAvx2Host, true, false,
              "shipped: OpenBLAS, 2 threads, on a 2-core AVX2 host; the CPU routes uncertain"};
    }
  }
  Calibration c = shipped_figures(library, threads);
  adjust_to_kernel_level(c, kernel_level);
  return c;
}

int fallback_threads() {
  for (const char* name : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(name)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? int(hw) : 1;
}

std::string calibration_name(const std::string& library, int threads) {
  char name[64];
  std::snprintf(name, sizeof name, "calibration-%016llx.txt",
                (unsigned long long)fnv1a(library + "|" + std::to_string(threads)));
  return name;
}

std::string calibration_path(const std::string& library, int threads) {
  const std::string dir = cache_directory();
  return dir.empty() ? "" : dir + "/" + calibration_name(library, threads);
}

std::string format_figures(const std::string& library, int threads, const HostFigures& figures) {
  std::string text = "# switchyard calibrate: the fallback's speed and the devices' start-up\n";
  text += "library " + library + "\nthreads " + std::to_string(threads) + "\n";
  HostFigures f = figures;
  for (const auto& [name, value] : fields(f)) {
    if (optional_field(name) && !(*value > 0.0)) continue;  // not measured
    char line[96];
    std::snprintf(line, sizeof line, "%s %.6g\n", name.c_str(), *value);
    text += line;
  }
  return text;
}

bool parse_figures(const std::string& text, const std::string& library, int threads,
                   HostFigures& figures) {
  std::istringstream lines(text);
  std::string line;
  HostFigures parsed;
  const std::vector<std::pair<std::string, double*>> expected = fields(parsed);
  std::vector<bool> seen(expected.size(), false);
  bool library_matches = false, threads_match = false;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.find(' ');
    if (space == std::string::npos) return false;
    const std::string name = line.substr(0, space), value = line.substr(space + 1);
    if (name == "library") {
      library_matches = value == library;
      continue;
    }
    if (name == "threads") {
      threads_match = value == std::to_string(threads);
      continue;
    }
    const auto field = std::find_if(expected.begin(), expected.end(),
                                    [&](const auto& f) { return name == f.first; });
    if (field == expected.end() || seen[std::size_t(field - expected.begin())]) return false;
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !(v > 0.0) || v > 1e9) return false;
    *field->second = v;
    seen[std::size_t(field - expected.begin())] = true;
  }
  if (!library_matches || !threads_match) return false;
  std::size_t optional[kOptionalGroups + 1] = {}, optional_seen[kOptionalGroups + 1] = {};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const int group = optional_group(expected[i].first);
    if (group == kEveryFile && !seen[i]) return false;
    ++optional[group];
    optional_seen[group] += seen[i] ? 1 : 0;
  }
  for (int g = 1; g <= kOptionalGroups; ++g) {
    if (optional_seen[g] != 0 && optional_seen[g] != optional[g]) return false;
  }
  figures = parsed;
  return true;
}

const Calibration& calibration_of(const std::string& lapack_origin, int threads) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, int>, std::unique_ptr<const Calibration>> found;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<const Calibration>& entry = found[{lapack_origin, threads}];
  if (!entry) {
    const std::string library = resolved_path(lapack_origin);
    HostFigures measured;
    if (load_figures(cache_directory(), library, threads, measured)) {
      entry = std::make_unique<const Calibration>(
          Calibration{measured, true, true, "calibrated: " + calibration_path(library, threads)});
    } else {
      entry = std::make_unique<const Calibration>(
          shipped_calibration(library, threads, tsqr::kernel_level()));
    }
  }
  return *entry;
}

const Calibration& calibration_of(const std::string& lapack_origin) {
  return calibration_of(lapack_origin, fallback_threads());
}

const Calibration& calibration() {
  static const Calibration& found = calibration_of(fallback().lapack_origin);
  return found;
}

namespace {

// A QR rate on fewer rows than the small size's, whose rate there is `small_rate`: along the
// power law in the rows from the rate on kShortQrRows rows in `short_rates` to `small_rate` on
// the small size's rows, at `rows`, its exponent at least `lowest`; `small_rate` itself where
// `short_rates` are not all measured in precision p or s.m reaches the small size's rows.
double short_matrix_rate(const double (&short_rates)[kQrWidthCount][2], int p, const Shape& s,
                         double small_rate, std::int64_t rows, double lowest) {
  const double small_rows = double(kQrSizes[0]) / double(std::max<std::int64_t>(1, s.n));
  if (!short_rates_measured(short_rates, p) || double(s.m) >= small_rows ||
      small_rows <= kShortQrRows) {
    return small_rate;
  }
  const double at_short = width_rate(short_rates, p, s.n);
  return rate_at(kShortQrRows, at_short, small_rows, small_rate, rows, lowest);
}

}  // namespace

double fallback_seconds(const FallbackRates& rates, Routine r, const Shape& s) {
  const int p = single_precision(r) ? 1 : 0;
  double flops = routine_flops(r, s);
  double gflops = 1.0;
  switch (r) {
    case Routine::sgemm:
    case Routine::dgemm: {
      // By the class of the shape, from its smallest dimension x: past 256, the law from the
      // wide Gram product's rate to the square's at 1024; else a small C (both sides at most
      // 256) goes by the Gram products' law at C's mean side, a narrow k by the law from the
      // rank-32 update's rate, and one narrow side of C by the law from the 32-wide product's.
      // A BLAS runs the last two near its square rate and a Gram product far below it
      // (OpenBLAS on the H200 host: 8192 x 16 x 8192 at 300 GFLOP/s, 64 x 64 x 2^18 at 69).
      const std::int64_t x = std::min({s.m, s.n, s.k});
      if (x > 256) {
        gflops = rate_at(256, rates.gemm_wide[p], 1024, rates.gemm_square[p], x);
      } else if (std::max(s.m, s.n) <= 256) {
        const auto side = std::int64_t(std::sqrt(double(s.m) * double(s.n)));
        gflops = rate_at(64, rates.gemm_gram[p], 256, rates.gemm_wide[p], side);
      } else if (s.k == x) {
        gflops = rate_at(32, rates.gemm_rank[p], 1024, rates.gemm_square[p], x);
      } else {
        gflops = rate_at(32, rates.gemm_narrow[p], 1024, rates.gemm_square[p], x);
      }
      break;
    }
    case Routine::ssyrk:
    case Routine::dsyrk:
      gflops = rate_at(64, rates.syrk[p], 256, rates.syrk_wide[p], std::min(s.n, s.k));
      break;
    case Routine::sgeqrf:
    case Routine::dgeqrf:
    case Routine::psgeqrf:
    case Routine::pdgeqrf:
      // Under the small size's rows, from its rate on short matrices where measured; on fewer
      // rows than those, where nothing was, at that rate itself.
      gflops = short_matrix_rate(rates.short_geqrf, p, s,
                                 qr_rate_at(rates.geqrf, p, s.n, double(s.m) * double(s.n)),
                                 std::max<std::int64_t>(s.m, kShortQrRows), -1.0);
      break;
    // xGEQP3 at its own rate where measured, never faster than the xGEQRF of its shape: it does
    // the same flops, half of them in matrix-vector products where xGEQRF's are all in blocked
    // updates, and updates the column norms besides. Where not measured it is weighed as that
    // xGEQRF, so a route is taken only where it beats the fallback's xGEQRF.
    case Routine::sgeqp3:
    case Routine::dgeqp3: {
      const double elements = double(s.m) * double(s.n);
      gflops = qr_rate_at(rates.geqrf, p, s.n, elements);
      if (geqp3_measured(rates, p)) {
        gflops = std::min(gflops, qr_rate_at(rates.geqp3, p, s.n, elements));
      }
      break;
    }
    case Routine::sorgqr:
    case Routine::dorgqr:
      gflops = qr_rate_at(rates.orgqr, p, s.k, double(s.m) * double(s.k));
      break;
    case Routine::sgesdd:
    case Routine::dgesdd:
    case Routine::sgesvd:
    case Routine::dgesvd: {
      // Its xGEQRF, and for the left singular vectors its xORGQR of the thin Q: the calls that
      // read A's rows (the SVD of R is n x n), so that the fallback's side is never
      // overestimated.
      const bool single = r == Routine::sgesdd || r == Routine::sgesvd;
      const Shape qr{s.m, s.n};
      const Shape q{s.m, s.n, s.n};
      const double factor = fallback_seconds(rates, single ? Routine::sgeqrf : Routine::dgeqrf, qr);
      if (s.transa == 'N') return factor;
      return factor + fallback_seconds(rates, single ? Routine::sorgqr : Routine::dorgqr, q);
    }
    case Routine::sgels:
    case Routine::dgels:
    case Routine::sgelsd:
    case Routine::dgelsd: {
      // Its xGEQRF and its xORMQR of Q^T on the k right-hand sides: the two calls that make
      // its time (its norms and triangular solve are a pass over A and an n x n solve; xGELSD's
      // SVD of R is n x n), so that the fallback's side is never overestimated.
      const bool single = r == Routine::sgels || r == Routine::sgelsd;
      const Shape qr{s.m, s.n};
      Shape apply{s.m, s.k, std::min(s.m, s.n)};
      apply.transa = 'L';
      return fallback_seconds(rates, single ? Routine::sgeqrf : Routine::dgeqrf, qr) +
             fallback_seconds(rates, single ? Routine::sormqr : Routine::dormqr, apply);
    }
    case Routine::sormqr:
    case Routine::dormqr: {
      // Q is m x m (SIDE = 'L') or n x n, of k reflectors. Applied to fewer columns (rows) of C
      // than the kOrmqrColumns it is measured with, it takes as long as with that many: each
      // pass over the reflectors reads all of V whatever C's width, and those passes set the
      // time. OpenBLAS's dormqr of 64 reflectors of 2^22 rows took 1.03 s on one column of C
      // on the H200 host, about its time on 32, where its flops at the rate measured on 32
      // columns gave a 32nd of that.
      const bool left = s.transa == 'L';
      const double order = double(left ? s.m : s.n), across = double(left ? s.n : s.m);
      if (across < kOrmqrColumns) flops *= kOrmqrColumns / across;
      gflops = qr_rate_at(rates.ormqr, p, s.k, order * double(s.k));
      break;
    }
  }
  // Nothing runs faster than a large square gemm.
  gflops = std::min(gflops, rates.gemm_square[p]);
  return flops / (gflops * 1e9);
}

double cpu_tsqr_seconds(const CpuRouteRates& rates, Routine r, const Shape& s) {
  const int p = single_precision(r) ? 1 : 0;
  double gflops = qr_rate_at(rates.geqrf, p, s.n, double(s.m) * double(s.n));
  // Under the small size's rows, where the short rates are measured: the power law in the rows
  // from the short rate to the small size's, continued below kShortQrRows, its exponent at
  // least 0, so that fewer rows never run faster.
  gflops = std::min(gflops, short_matrix_rate(rates.short_geqrf, p, s, gflops, s.m, 0.0));
  return rates.call_s + routine_flops(r, s) / (gflops * 1e9);
}

bool load_figures(const std::string& directory, const std::string& library, int threads,
                  HostFigures& figures) {
  std::string text;
  return trusted_files::read(directory, calibration_name(library, threads), kMaxFileBytes, text) &&
         parse_figures(text, library, threads, figures);
}

bool store_figures(const std::string& directory, const std::string& library, int threads,
                   const HostFigures& figures, std::string& error) {
  return trusted_files::write(directory, calibration_name(library, threads),
                              format_figures(library, threads, figures), error);
}

bool store_calibration(const HostFigures& figures, std::string& error) {
  return store_figures(cache_directory(), fallback_library(), fallback_threads(), figures, error);
}

}  // namespace switchyard
