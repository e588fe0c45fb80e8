#include "config.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace switchyard {
namespace {

// Defaults for the size thresholds: a first cut below which no device route is weighed at all
// (the router weighs every call above it, calibration.hpp). A 2e7-flop gemm takes 7 ms in
// reference BLAS and 0.2 ms on a started H200, so the cut sits below where a device can pay.
// A QR of 4096 rows and 128 columns took 2.0 ms on a started H200 against 2.9-3.1 in OpenBLAS
// on its 16 cores and 21.5 on the CPU TSQR, whose rates are measured from there up
// (calibration.hpp), where reference LAPACK took 43 (docs/routing.md, 2026-12-03).
constexpr double default_gemm_min_flops = 2.0e7;
constexpr std::int64_t default_tsqr_min_rows = 4096;
constexpr double default_tsqr_min_aspect = 16.0;
// Sparse CG: half-storage DIA when it moves no more bytes per product than
// CSR (see src/cg/convert.hpp); the GPU from this many rows up.
constexpr double default_cg_dia_max_ratio = 1.0;
constexpr std::int64_t default_cg_gpu_min_rows = 65536;

// Node-local rank variables of the MPI launchers, in the order they are tried.
// Above any device count; a device number (or local rank) beyond it is no
// device's, and would not fit an int.
constexpr std::int64_t max_device_number = 1 << 20;

constexpr const char* local_rank_variables[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"};

std::string shown(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class Reader {
 public:
  Reader(const Environment& env, std::vector<std::string>& warnings)
      : env_(env), warnings_(warnings) {}

  const char* raw(const std::string& name) const {
    const char* v = env_(name.c_str());
    return (v && *v) ? v : nullptr;
  }

  bool flag(const std::string& name, bool fallback) {
    const char* v = raw(name);
    if (!v) return fallback;
    const std::string s = lower(v);
    if (s == "1" || s == "yes" || s == "true" || s == "on") return true;
    if (s == "0" || s == "no" || s == "false" || s == "off") return false;
    warn(name, v, "expected 0 or 1", fallback ? "1" : "0");
    return fallback;
  }

  // A whole-string integer in [lo, hi]; `what` describes the accepted range.
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t lo,
                       std::int64_t hi, const char* what) {
    const char* v = raw(name);
    if (!v) return fallback;
    std::int64_t parsed;
    if (!parse_integer(v, parsed) || parsed < lo || parsed > hi) {
      warn(name, v, what, std::to_string(fallback));
      return fallback;
    }
    return parsed;
  }

  double positive(const std::string& name, double fallback) {
    const char* v = raw(name);
    if (!v) return fallback;
    char* end = nullptr;
    errno = 0;
    const double parsed = std::strtod(v, &end);
    if (errno != 0 || end == v || *end != '\0' || !(parsed >= 0.0) || parsed > 1e300) {
      warn(name, v, "expected a non-negative number", shown(fallback));
      return fallback;
    }
    return parsed;
  }

  RouteChoice route(const std::string& name) {
    const char* v = raw(name);
    if (!v) return RouteChoice::automatic;
    const std::string s = lower(v);
    for (RouteChoice c : {RouteChoice::automatic, RouteChoice::gpu, RouteChoice::cpu,
                          RouteChoice::fallback}) {
      if (s == route_choice_name(c)) return c;
    }
    warn(name, v, "expected auto, gpu, cpu or fallback", "auto");
    return RouteChoice::automatic;
  }

  // "all" or device numbers separated by commas; false (with a warning) for anything else.
  bool device_list(const std::string& name, const char* v, bool& all, std::vector<int>& list) {
    if (lower(v) == "all") {
      all = true;
      return true;
    }
    std::string item;
    for (const char* p = v;; ++p) {
      if (*p != ',' && *p != '\0') {
        item += *p;
        continue;
      }
      std::int64_t ordinal;
      if (!parse_integer(item.c_str(), ordinal) || ordinal < 0 || ordinal > max_device_number) {
        warn(name, v, "expected all or device numbers separated by commas", "one device");
        return false;
      }
      list.push_back(int(ordinal));
      item.clear();
      if (*p == '\0') return true;
    }
  }

  static bool parse_integer(const char* v, std::int64_t& out) {
    char* end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0') return false;
    out = parsed;
    return true;
  }

 private:
  void warn(const std::string& name, const char* value, const char* expected,
            const std::string& fallback) {
    warnings_.push_back(name + "='" + value + "' is invalid (" + expected + "); using " +
                        fallback);
  }

  const Environment& env_;
  std::vector<std::string>& warnings_;
};

}  // namespace

const char* route_choice_name(RouteChoice c) {
  switch (c) {
    case RouteChoice::automatic: return "auto";
    case RouteChoice::gpu: return "gpu";
    case RouteChoice::cpu: return "cpu";
    case RouteChoice::fallback: return "fallback";
  }
  return "?";
}

Config parse_config(const Environment& env, std::vector<std::string>& warnings) {
  Reader read(env, warnings);
  Config c;
  c.disabled = read.flag("SWITCHYARD_DISABLE", false);
  for (int r = 0; r < routine_count; ++r) {
    c.route[r] = read.route("SWITCHYARD_ROUTE_" + upper(routine_name(Routine(r))));
  }
  if (const char* t = read.raw("SWITCHYARD_TRACE")) c.trace = t;
  c.report = read.flag("SWITCHYARD_REPORT", false);
  if (const char* f = read.raw("SWITCHYARD_FALLBACK")) c.fallback_path = f;

  c.device_source = "default";
  if (read.raw("SWITCHYARD_DEVICE")) {
    c.device = int(read.integer("SWITCHYARD_DEVICE", 0, 0, max_device_number,
                                "expected a device number"));
    c.device_source = "SWITCHYARD_DEVICE";
  } else {
    for (const char* name : local_rank_variables) {
      std::int64_t rank;
      const char* v = read.raw(name);
      if (v && Reader::parse_integer(v, rank) && rank >= 0 && rank <= max_device_number) {
        c.device = int(rank);  // reduced modulo the device count when devices start
        c.device_source = name;
        break;
      }
    }
  }

  if (const char* v = read.raw("SWITCHYARD_DEVICES")) {
    if (!read.device_list("SWITCHYARD_DEVICES", v, c.all_devices, c.devices)) {
      c.all_devices = false;
      c.devices.clear();
    }
  }
  if (const char* d = read.raw("SWITCHYARD_OPENCL_DEVICE")) c.opencl_device = d;
  if (const char* d = read.raw("SWITCHYARD_CACHE_DIR")) c.cache_dir = d;
  if (const char* v = read.raw("SWITCHYARD_START")) {
    const std::string mode = lower(v);
    if (mode == "background") {
      c.start = StartMode::background;
    } else if (mode != "on-demand") {
      warnings.push_back(std::string("SWITCHYARD_START='") + v +
                         "' is invalid (expected on-demand or background); using on-demand");
    }
  }
  c.thresholds.gemm_min_flops =
      read.positive("SWITCHYARD_GEMM_MIN_FLOPS", default_gemm_min_flops);
  c.thresholds.tsqr_min_rows = read.integer("SWITCHYARD_TSQR_MIN_ROWS", default_tsqr_min_rows,
                                            1, INT64_MAX, "expected a positive row count");
  c.thresholds.tsqr_min_aspect =
      read.positive("SWITCHYARD_TSQR_MIN_ASPECT", default_tsqr_min_aspect);
  c.cg.backend = read.route("SWITCHYARD_CG_BACKEND");
  c.cg.dia_max_ratio = read.positive("SWITCHYARD_CG_DIA_MAX_RATIO", default_cg_dia_max_ratio);
  c.cg.gpu_min_rows = read.integer("SWITCHYARD_CG_GPU_MIN_ROWS", default_cg_gpu_min_rows, 1,
                                   INT64_MAX, "expected a positive row count");
  return c;
}

const Config& config() {
  // Never destroyed: a start in the background reads it on a helper thread, which may still be
  // running while the process exits.
  static const Config& parsed = *new Config([] {
    std::vector<std::string> warnings;
    Config c = parse_config([](const char* name) { return std::getenv(name); }, warnings);
    for (const std::string& w : warnings) std::fprintf(stderr, "switchyard: %s\n", w.c_str());
    return c;
  }());
  return parsed;
}

std::string cache_directory() {
  if (!config().cache_dir.empty()) return config().cache_dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/switchyard";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.cache/switchyard";
  }
  return "";
}

std::vector<Setting> settings() {
  std::vector<Setting> s = {
      {"SWITCHYARD_DISABLE", "0", "1: every call goes to the fallback library"},
      {"SWITCHYARD_TRACE", "off", "stderr or a file path: one line per call (appended)"},
      {"SWITCHYARD_REPORT", "0", "1: a table of calls, routes, time and GFLOP/s at exit"},
      {"SWITCHYARD_FALLBACK", "the next library",
       "path of a BLAS/LAPACK library that runs every call Switchyard does not take"},
      {"SWITCHYARD_DEVICE", "node-local MPI rank, else 0", "the GPU to use"},
      {"SWITCHYARD_DEVICES", "SWITCHYARD_DEVICE's one",
       "all or a list like 0,1: the GPUs a large QR, Q or gemm from host memory is split over"},
      {"SWITCHYARD_OPENCL_DEVICE", "the first GPU, else the first device",
       "the OpenCL device of the gemm route: its number in switchyard info, or part of its name"},
      {"SWITCHYARD_CACHE_DIR", "$XDG_CACHE_HOME/switchyard or ~/.cache/switchyard",
       "where compiled OpenCL programs and the gemm tuning database are kept"},
      {"SWITCHYARD_GEMM_MIN_FLOPS", shown(default_gemm_min_flops),
       "gemm goes to a device only from 2mnk flops up"},
      {"SWITCHYARD_START", "on-demand",
       "on-demand: a device starts with the first call that pays for it; background: at the "
       "first call, on a helper thread"},
      {"SWITCHYARD_TSQR_MIN_ROWS", shown(double(default_tsqr_min_rows)),
       "geqrf, orgqr and ormqr go to a route only from m rows up (the host's own from 16384 "
       "where its figures lack their speed on fewer)"},
      {"SWITCHYARD_TSQR_MIN_ASPECT", shown(default_tsqr_min_aspect),
       "geqrf, orgqr and ormqr go to a route only when m >= aspect * n (k for ormqr)"},
      {"SWITCHYARD_CG_BACKEND", "auto",
       "auto, gpu or cpu: where switchyard_cg_* and dsdcg run when the caller says auto"},
      {"SWITCHYARD_CG_DIA_MAX_RATIO", shown(default_cg_dia_max_ratio),
       "CSR/SLAP input runs as half DIA when its bytes per product <= ratio * CSR's"},
      {"SWITCHYARD_CG_GPU_MIN_ROWS", shown(double(default_cg_gpu_min_rows)),
       "auto sends a CG solve to the GPU only from n rows up"},
  };
  for (int r = 0; r < routine_count; ++r) {
    s.push_back({"SWITCHYARD_ROUTE_" + upper(routine_name(Routine(r))), "auto",
                 "auto, gpu, cpu or fallback: force the route"});
  }
  return s;
}

}  // namespace switchyard
