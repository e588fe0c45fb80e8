// Configuration from SWITCHYARD_* environment variables, read once.
//
// parse_config() is pure (it takes the environment as a function) so that
// tests can feed it any environment; config() is the process-wide copy,
// parsed on first use with its warnings on stderr.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "routine.hpp"

namespace switchyard {

// SWITCHYARD_START: when the devices start. On demand, a device starts with the first call that
// pays for its start-up; in the background, every device the routes use starts on a helper
// thread at the first BLAS/LAPACK call the library sees.
enum class StartMode { on_demand, background };

// SWITCHYARD_ROUTE_<ROUTINE>: who may run a routine.
enum class RouteChoice { automatic, gpu, cpu, fallback };
const char* route_choice_name(RouteChoice c);

struct Thresholds {
  double gemm_min_flops;        // SWITCHYARD_GEMM_MIN_FLOPS
  // SWITCHYARD_TSQR_MIN_ROWS; the host's own QR routes need the CPU TSQR's rates on short blocks
  // in the figures to be weighed under kCpuTsqrSizedRows (calibration.hpp).
  std::int64_t tsqr_min_rows;
  double tsqr_min_aspect;       // SWITCHYARD_TSQR_MIN_ASPECT: m / n at least this
};

// The sparse CG's settings (SWITCHYARD_CG_*).
struct CgSettings {
  RouteChoice backend = RouteChoice::automatic;  // SWITCHYARD_CG_BACKEND (fallback means cpu)
  double dia_max_ratio = 0.0;   // SWITCHYARD_CG_DIA_MAX_RATIO: DIA bytes / CSR bytes at most
  std::int64_t gpu_min_rows = 0;  // SWITCHYARD_CG_GPU_MIN_ROWS
};

struct Config {
  bool disabled = false;
  std::array<RouteChoice, routine_count> route{};
  std::string trace;            // "" (off), "stderr", or a file path
  bool report = false;
  std::string fallback_path;    // "" (the next library in the program)
  int device = 0;
  std::string device_source;    // which variable chose the device, or "default"
  // SWITCHYARD_DEVICES: the devices one call may split its work over (CUDA devices for the QR
  // routes, OpenCL devices like the chosen one for gemm). Empty: the one device above;
  // all_devices: every device; else these ordinals (a repeat is a second stream or context on
  // the same device), reduced modulo the device count when devices start.
  bool all_devices = false;
  std::vector<int> devices;
  std::string opencl_device;    // SWITCHYARD_OPENCL_DEVICE: number or name part; "" first GPU
  std::string cache_dir;        // SWITCHYARD_CACHE_DIR: "" means the XDG cache
  StartMode start = StartMode::on_demand;  // SWITCHYARD_START
  Thresholds thresholds{};
  CgSettings cg{};
};

using Environment = std::function<const char*(const char*)>;

// Parses the configuration from `env`. Each invalid value leaves its default
// in force and appends a one-line explanation to `warnings`.
Config parse_config(const Environment& env, std::vector<std::string>& warnings);

// The configuration of this process, read once on first use.
const Config& config();

// Where compiled programs, the gemm tuning database and the calibration are
// kept: SWITCHYARD_CACHE_DIR, else $XDG_CACHE_HOME/switchyard, else
// ~/.cache/switchyard (not created here); "" when no home can be found.
std::string cache_directory();

// One documented variable: its name and default, for `switchyard info` and
// the README table.
struct Setting {
  std::string name;
  std::string default_value;
  std::string meaning;
};
std::vector<Setting> settings();

}  // namespace switchyard
