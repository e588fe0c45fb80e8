#include "calibration.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>
#include <thread>

#include "config.hpp"
#include "fallback.hpp"

namespace switchyard {
namespace {

// Shipped figures, from `switchyard calibrate` on the H200 test machine's
// host (16 cores; README "Routing"): OpenBLAS 0.3.26 with 16 threads, and
// Debian's reference BLAS/LAPACK 3.11 (one thread, whatever the count).
constexpr int kShippedThreads = 16;
// Fields in FallbackRates' order: gemm square, Gram, wide Gram; syrk, wide syrk; geqrf, orgqr,
// ormqr at 32 columns, then at 256; then the CUDA and OpenCL start-ups.
constexpr HostFigures kOpenBlas16{{{620.0, 1090.0}, {93.0, 117.0}, {375.0, 650.0}, {21.0, 40.0},
                                   {205.0, 375.0}, {12.9, 28.5}, {12.9, 26.9}, {29.9, 68.0},
                                   {75.0, 126.0}, {59.0, 97.0}, {42.5, 58.0}},
                                  0.32, 0.35};
constexpr HostFigures kReference{{{3.37, 4.46}, {1.85, 2.58}, {2.93, 2.94}, {2.09, 2.73},
                                  {2.85, 2.71}, {2.31, 3.02}, {2.79, 3.29}, {3.04, 2.71},
                                  {2.94, 3.16}, {2.66, 3.33}, {2.33, 2.57}},
                                 0.32, 0.35};

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

HostFigures scaled(HostFigures f, double factor) {
  for (double* pair : {f.rates.gemm_square, f.rates.gemm_gram, f.rates.gemm_wide, f.rates.syrk,
                       f.rates.syrk_wide, f.rates.geqrf,
                       f.rates.orgqr, f.rates.ormqr, f.rates.geqrf_wide, f.rates.orgqr_wide,
                       f.rates.ormqr_wide}) {
    pair[0] *= factor;
    pair[1] *= factor;
  }
  return f;
}

Calibration shipped(const std::string& library, int threads) {
  switch (kind_of(library)) {
    case Kind::reference:
      return {kReference, true, "shipped: reference BLAS/LAPACK on the H200 host"};
    case Kind::openblas:
      if (threads == kShippedThreads) {
        return {kOpenBlas16, true, "shipped: OpenBLAS, 16 threads, on the H200 host"};
      }
      return {scaled(kOpenBlas16, double(threads) / kShippedThreads), false,
              "shipped OpenBLAS figures scaled to " + std::to_string(threads) +
                  " threads (uncalibrated)"};
    case Kind::other: break;
  }
  return {scaled(kOpenBlas16, std::max(1.0, double(threads) / kShippedThreads)), false,
          "no figures for this library (uncalibrated): OpenBLAS's, scaled to " +
              std::to_string(threads) + " threads"};
}

// The fields of the file, in order, with where each lives.
struct Field {
  const char* name;
  double HostFigures::*scalar;
  double (FallbackRates::*pair)[2];
  int precision;
};
constexpr Field kFields[] = {
    {"dgemm_square_gflops", nullptr, &FallbackRates::gemm_square, 0},
    {"sgemm_square_gflops", nullptr, &FallbackRates::gemm_square, 1},
    {"dgemm_gram_gflops", nullptr, &FallbackRates::gemm_gram, 0},
    {"sgemm_gram_gflops", nullptr, &FallbackRates::gemm_gram, 1},
    {"dgemm_wide_gflops", nullptr, &FallbackRates::gemm_wide, 0},
    {"sgemm_wide_gflops", nullptr, &FallbackRates::gemm_wide, 1},
    {"dsyrk_gflops", nullptr, &FallbackRates::syrk, 0},
    {"ssyrk_gflops", nullptr, &FallbackRates::syrk, 1},
    {"dsyrk_wide_gflops", nullptr, &FallbackRates::syrk_wide, 0},
    {"ssyrk_wide_gflops", nullptr, &FallbackRates::syrk_wide, 1},
    {"dgeqrf_gflops", nullptr, &FallbackRates::geqrf, 0},
    {"sgeqrf_gflops", nullptr, &FallbackRates::geqrf, 1},
    {"dorgqr_gflops", nullptr, &FallbackRates::orgqr, 0},
    {"sorgqr_gflops", nullptr, &FallbackRates::orgqr, 1},
    {"dormqr_gflops", nullptr, &FallbackRates::ormqr, 0},
    {"sormqr_gflops", nullptr, &FallbackRates::ormqr, 1},
    {"dgeqrf_wide_gflops", nullptr, &FallbackRates::geqrf_wide, 0},
    {"sgeqrf_wide_gflops", nullptr, &FallbackRates::geqrf_wide, 1},
    {"dorgqr_wide_gflops", nullptr, &FallbackRates::orgqr_wide, 0},
    {"sorgqr_wide_gflops", nullptr, &FallbackRates::orgqr_wide, 1},
    {"dormqr_wide_gflops", nullptr, &FallbackRates::ormqr_wide, 0},
    {"sormqr_wide_gflops", nullptr, &FallbackRates::ormqr_wide, 1},
    {"cuda_start_s", &HostFigures::cuda_start_s, nullptr, 0},
    {"opencl_start_s", &HostFigures::opencl_start_s, nullptr, 0},
};

double& slot(HostFigures& f, const Field& field) {
  return field.scalar ? f.*field.scalar : (f.rates.*field.pair)[field.precision];
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The file's text, if it is a regular file of this user's that no one else
// may write: the figures steer where a program's calls run.
bool read_owned_file(const std::string& path, std::string& text) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  const bool trusted = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
                       (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 && st.st_size < 65536;
  if (trusted) {
    char buffer[4096];
    ssize_t got;
    while ((got = read(fd, buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR)) {
      if (got > 0) text.append(buffer, std::size_t(got));
    }
  }
  close(fd);
  return trusted && !text.empty();
}

// The fallback's LAPACK as a file, symbolic links resolved: Debian's
// liblapack.so.3 is a link to whichever implementation is selected.
std::string fallback_library() {
  const std::string& origin = fallback().lapack_origin;
  char resolved[PATH_MAX];
  return realpath(origin.c_str(), resolved) ? std::string(resolved) : origin;
}

// The fallback's rate for a call whose narrow side (a gemm's smallest dimension, syrk's n, a
// QR's columns or reflectors) is `width`, from the rates r0 and r1 measured at widths w0 < w1:
// the power law through the two, its exponent kept within [-1, 1.5], also past either end.
// A BLAS runs narrow products and blocked factorizations faster the wider they are, since
// their inner gemms grow with the width (OpenBLAS's dgeqrf: 6 times from 32 to 256 columns).
double rate_at(double w0, double r0, double w1, double r1, std::int64_t width) {
  const double exponent = std::clamp(std::log(r1 / r0) / std::log(w1 / w0), -1.0, 1.5);
  return r0 * std::pow(double(std::max<std::int64_t>(1, width)) / w0, exponent);
}

}  // namespace

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

std::string calibration_path(const std::string& library, int threads) {
  const std::string dir = cache_directory();
  if (dir.empty()) return "";
  char name[64];
  std::snprintf(name, sizeof name, "/calibration-%016llx.txt",
                (unsigned long long)fnv1a(library + "|" + std::to_string(threads)));
  return dir + name;
}

std::string format_figures(const std::string& library, int threads, const HostFigures& figures) {
  std::string text = "# switchyard calibrate: the fallback's speed and the devices' start-up\n";
  text += "library " + library + "\nthreads " + std::to_string(threads) + "\n";
  HostFigures f = figures;
  for (const Field& field : kFields) {
    char line[96];
    std::snprintf(line, sizeof line, "%s %.6g\n", field.name, slot(f, field));
    text += line;
  }
  return text;
}

bool parse_figures(const std::string& text, const std::string& library, int threads,
                   HostFigures& figures) {
  std::istringstream lines(text);
  std::string line;
  HostFigures parsed;
  bool seen[std::size(kFields)] = {};
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
    const Field* field = std::find_if(std::begin(kFields), std::end(kFields),
                                      [&](const Field& f) { return name == f.name; });
    if (field == std::end(kFields) || seen[field - kFields]) return false;
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !(v > 0.0) || v > 1e9) return false;
    slot(parsed, *field) = v;
    seen[field - kFields] = true;
  }
  if (!library_matches || !threads_match) return false;
  if (std::find(std::begin(seen), std::end(seen), false) != std::end(seen)) return false;
  figures = parsed;
  return true;
}

const Calibration& calibration() {
  static const Calibration found = [] {
    const std::string library = fallback_library();
    const int threads = fallback_threads();
    const std::string path = calibration_path(library, threads);
    std::string text;
    HostFigures measured;
    if (!path.empty() && read_owned_file(path, text) &&
        parse_figures(text, library, threads, measured)) {
      return Calibration{measured, true, "calibrated: " + path};
    }
    return shipped(library, threads);
  }();
  return found;
}

double fallback_seconds(const FallbackRates& rates, Routine r, const Shape& s) {
  const int p = (r == Routine::sgemm || r == Routine::ssyrk || r == Routine::sgeqrf ||
                 r == Routine::sorgqr || r == Routine::sormqr) ? 1 : 0;
  const double flops = routine_flops(r, s);
  double gflops = 1.0;
  switch (r) {
    case Routine::sgemm:
    case Routine::dgemm: {
      // Through the Gram products' rates (64 and 256 wide) up to 256, then on to the square
      // rate at 1024.
      const std::int64_t x = std::min({s.m, s.n, s.k});
      gflops = x <= 256 ? rate_at(64, rates.gemm_gram[p], 256, rates.gemm_wide[p], x)
                        : rate_at(256, rates.gemm_wide[p], 1024, rates.gemm_square[p], x);
      break;
    }
    case Routine::ssyrk:
    case Routine::dsyrk:
      gflops = rate_at(64, rates.syrk[p], 256, rates.syrk_wide[p], std::min(s.n, s.k));
      break;
    case Routine::sgeqrf:
    case Routine::dgeqrf:
      gflops = rate_at(32, rates.geqrf[p], 256, rates.geqrf_wide[p], s.n);
      break;
    case Routine::sorgqr:
    case Routine::dorgqr:
      gflops = rate_at(32, rates.orgqr[p], 256, rates.orgqr_wide[p], s.k);
      break;
    case Routine::sormqr:
    case Routine::dormqr:
      gflops = rate_at(32, rates.ormqr[p], 256, rates.ormqr_wide[p], s.k);
      break;
  }
  // Nothing runs faster than a large square gemm.
  gflops = std::min(gflops, rates.gemm_square[p]);
  return flops / (gflops * 1e9);
}

bool store_calibration(const HostFigures& figures, std::string& error) {
  const std::string library = fallback_library();
  const int threads = fallback_threads();
  const std::string path = calibration_path(library, threads);
  if (path.empty()) {
    error = "no cache directory (set SWITCHYARD_CACHE_DIR or HOME)";
    return false;
  }
  const std::string dir = path.substr(0, path.rfind('/'));
  mkdir(dir.c_str(), 0700);  // made here if missing; its parent must exist
  std::string temp = path + ".XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) {
    error = "cannot create a file in " + dir + ": " + std::strerror(errno);
    return false;
  }
  const std::string text = format_figures(library, threads, figures);
  const bool written = write(fd, text.data(), text.size()) == ssize_t(text.size());
  close(fd);
  if (!written || rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    unlink(temp.c_str());
    return false;
  }
  return true;
}

}  // namespace switchyard
