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
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "config.hpp"
#include "fallback.hpp"

namespace switchyard {
namespace {

// Shipped figures, from `switchyard calibrate` on the H200 test machine's
// host (16 cores; README "Routing"): OpenBLAS 0.3.26 with 16 threads, and
// Debian's reference BLAS/LAPACK 3.11 (one thread, whatever the count).
constexpr int kShippedThreads = 16;
// Fields in FallbackRates' order, [double, single]: gemm square, Gram, wide Gram; syrk, wide
// syrk; geqrf, orgqr and ormqr at 8, 32, 128 and 256 columns; then the CUDA and OpenCL start-ups.
constexpr HostFigures kOpenBlas16{{{563.0, 976.0},
                                   {69.1, 100.0},
                                   {360.0, 575.0},
                                   {18.7, 33.0},
                                   {200.0, 365.0},
                                   {{3.40, 6.67}, {10.1, 23.3}, {34.3, 79.5}, {58.9, 113.0}},
                                   {{3.80, 7.50}, {9.87, 21.8}, {33.3, 71.7}, {63.0, 98.8}},
                                   {{13.5, 29.8}, {22.5, 36.3}, {37.2, 49.7}, {36.4, 49.4}}},
                                  0.25, 0.28};
constexpr HostFigures kReference{{{3.05, 4.32},
                                  {1.61, 2.34},
                                  {2.71, 2.67},
                                  {1.79, 2.35},
                                  {1.98, 2.76},
                                  {{2.00, 2.51}, {2.27, 3.00}, {2.81, 3.25}, {6.36, 8.45}},
                                  {{2.40, 3.16}, {2.73, 3.22}, {2.95, 3.32}, {7.59, 8.08}},
                                  {{1.45, 2.39}, {2.84, 2.65}, {7.23, 8.81}, {6.93, 7.59}}},
                                 0.25, 0.28};

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
  const auto rates = [&](const std::string& name, double (&pair)[2]) {
    v.push_back({"d" + name + "_gflops", &pair[0]});
    v.push_back({"s" + name + "_gflops", &pair[1]});
  };
  FallbackRates& r = f.rates;
  rates("gemm_square", r.gemm_square);
  rates("gemm_gram", r.gemm_gram);
  rates("gemm_wide", r.gemm_wide);
  rates("syrk", r.syrk);
  rates("syrk_wide", r.syrk_wide);
  for (int w = 0; w < kQrWidthCount; ++w) {
    const std::string at = "_" + std::to_string(kQrWidths[w]);
    rates("geqrf" + at, r.geqrf[w]);
    rates("orgqr" + at, r.orgqr[w]);
    rates("ormqr" + at, r.ormqr[w]);
  }
  v.push_back({"cuda_start_s", &f.cuda_start_s});
  v.push_back({"opencl_start_s", &f.opencl_start_s});
  return v;
}

bool is_rate(const std::string& field) {
  return field.size() > 7 && field.compare(field.size() - 7, 7, "_gflops") == 0;
}

HostFigures scaled(HostFigures f, double factor) {
  for (const auto& [name, value] : fields(f)) {
    if (is_rate(name)) *value *= factor;
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

// A QR routine's rate at `width` columns (reflectors): the power law between the two measured
// widths around it, or beyond the narrowest or widest, the law of the nearest two.
double qr_rate_at(const double (&rates)[kQrWidthCount][2], int precision, std::int64_t width) {
  int i = 0;
  while (i + 2 < kQrWidthCount && width > kQrWidths[i + 1]) ++i;
  return rate_at(kQrWidths[i], rates[i][precision], kQrWidths[i + 1], rates[i + 1][precision],
                 width);
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
  for (const auto& [name, value] : fields(f)) {
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
  if (std::find(seen.begin(), seen.end(), false) != seen.end()) return false;
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
      gflops = qr_rate_at(rates.geqrf, p, s.n);
      break;
    case Routine::sorgqr:
    case Routine::dorgqr:
      gflops = qr_rate_at(rates.orgqr, p, s.k);
      break;
    case Routine::sormqr:
    case Routine::dormqr:
      gflops = qr_rate_at(rates.ormqr, p, s.k);
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
