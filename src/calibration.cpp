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
constexpr HostFigures kOpenBlas16{{{543.0, 940.0}, {82.4, 99.6}, {9.3, 18.0}, {12.1, 28.4},
                                   {11.2, 24.9}, {26.5, 59.8}, {59.0, 120.0}, {30.0, 60.0},
                                   {60.0, 120.0}},
                                  0.42, 0.45};
constexpr HostFigures kReference{{{2.24, 4.53}, {1.77, 2.60}, {1.77, 2.60}, {2.57, 3.09},
                                  {2.93, 3.25}, {2.95, 3.40}, {2.57, 3.09}, {2.93, 3.25},
                                  {2.95, 3.40}},
                                 0.25, 0.29};

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
  for (double* pair : {f.rates.gemm_square, f.rates.gemm_gram, f.rates.syrk, f.rates.geqrf,
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
    {"dsyrk_gflops", nullptr, &FallbackRates::syrk, 0},
    {"ssyrk_gflops", nullptr, &FallbackRates::syrk, 1},
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

// A tall-skinny QR's rate at `width` columns (reflectors): the power law through the rates
// measured at 32 and 256, its exponent kept within [-1, 1].
double qr_rate(double narrow, double wide, std::int64_t width) {
  const double exponent = std::clamp(std::log(wide / narrow) / std::log(8.0), -1.0, 1.0);
  return narrow * std::pow(double(std::max<std::int64_t>(1, width)) / 32.0, exponent);
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
  // A BLAS runs a gemm whose smallest dimension x is short at x / (x + h) of
  // its square rate; h follows from the two measured rates (square, and
  // x = 64 for the Gram shape).
  const auto gemm_rate = [&](double x) {
    const double square = rates.gemm_square[p], gram = rates.gemm_gram[p];
    const double h = std::max(0.0, 64.0 * (square / gram - 1.0));
    return square * x / (x + h);
  };
  double gflops = 1.0;
  switch (r) {
    case Routine::sgemm:
    case Routine::dgemm:
      gflops = gemm_rate(double(std::max<std::int64_t>(1, std::min({s.m, s.n, s.k}))));
      break;
    case Routine::ssyrk:
    case Routine::dsyrk: {
      // The same law as gemm's, through the rate measured at n = 64.
      const double n = double(std::max<std::int64_t>(1, std::min(s.n, s.k)));
      gflops = rates.syrk[p] * gemm_rate(n) / gemm_rate(64.0);
      break;
    }
    case Routine::sgeqrf:
    case Routine::dgeqrf: gflops = qr_rate(rates.geqrf[p], rates.geqrf_wide[p], s.n); break;
    case Routine::sorgqr:
    case Routine::dorgqr: gflops = qr_rate(rates.orgqr[p], rates.orgqr_wide[p], s.k); break;
    case Routine::sormqr:
    case Routine::dormqr: gflops = qr_rate(rates.ormqr[p], rates.ormqr_wide[p], s.k); break;
  }
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
