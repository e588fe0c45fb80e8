// Switchyard's own C API (switchyard.h).
#include <cstdlib>
#include <string>

#include "build_info.hpp"
#include "calibration.hpp"
#include "config.hpp"
#include "device/probe.hpp"
#include "export.hpp"
#include "fallback.hpp"
#include "info_hooks.hpp"
#include "route.hpp"
#include "switchyard.h"
#include "trace.hpp"
#include "tsqr/cpu_leaf.hpp"

namespace switchyard {
namespace {

void print_devices(FILE* out) {
  const DeviceProbe& p = probe_devices();
  if (built_with_cuda) {
    std::fprintf(out, "CUDA support    built for %s\n", cuda_architectures);
  } else {
    std::fprintf(out, "CUDA support    not built\n");
  }
  if (p.cuda.empty()) std::fprintf(out, "CUDA devices    none: %s\n", p.cuda_absent.c_str());
  for (const CudaDevice& d : p.cuda) {
    std::fprintf(out, "CUDA device %d   %s, sm_%d%d, %.1f GiB%s\n", d.ordinal, d.name.c_str(),
                 d.major, d.minor, d.memory_gib,
                 d.ordinal == config().device % int(p.cuda.size()) ? " (selected)" : "");
  }
  std::fprintf(out, "OpenCL support  %s\n", built_with_opencl ? "built" : "not built");
  if (p.opencl.empty()) {
    std::fprintf(out, "OpenCL devices  none: %s\n", p.opencl_absent.c_str());
  }
  for (const OpenClDevice& d : p.opencl) {
    std::fprintf(out, "OpenCL device   %s: %s\n", d.platform.c_str(), d.name.c_str());
  }
  if (print_gemm_info) print_gemm_info(out);
}

void print_configuration(FILE* out) {
  std::fprintf(out, "\nconfiguration (environment; default when unset)\n");
  for (const Setting& s : settings()) {
    const char* value = std::getenv(s.name.c_str());
    if (value && *value) {
      std::fprintf(out, "  %-28s %s\n", s.name.c_str(), value);
    } else {
      std::fprintf(out, "  %-28s %s (default)\n", s.name.c_str(), s.default_value.c_str());
    }
  }
  const Config& c = config();
  std::fprintf(out, "device selected %d (by %s)\n", c.device, c.device_source.c_str());
  const Calibration& figures = calibration();
  std::fprintf(out, "routing figures %s\n", figures.source.c_str());
  std::fprintf(out, "  device start-up: CUDA %.2f s, OpenCL %.2f s\n", figures.figures.cuda_start_s,
               figures.figures.opencl_start_s);
  const int level = tsqr::kernel_level();
  std::fprintf(out, "  CPU TSQR on %d threads, %s kernels: %s\n", fallback_threads(),
               level >= 4   ? "AVX-512"
               : level == 3 ? "AVX2"
                            : "baseline",
               figures.cpu_tsqr_certain ? "figures for this host"
                                        : "uncalibrated figures (taken only where twice as fast)");
  const std::int64_t rows = host_route_min_rows(c.thresholds, figures.figures.cpu_tsqr, 0);
  std::fprintf(out, "  CPU TSQR weighed from %lld rows%s\n", (long long)rows,
               rows > c.thresholds.tsqr_min_rows ? " (no figures for it on fewer)" : "");
}

}  // namespace
}  // namespace switchyard

SWITCHYARD_EXPORT const char* switchyard_version(void) { return switchyard::version; }

SWITCHYARD_EXPORT void switchyard_print_info(FILE* out) {
  using namespace switchyard;
  std::fprintf(out, "switchyard %s\n", version);
  const Fallback& f = fallback();
  std::fprintf(out, "fallback BLAS   %s\n", f.blas_origin.c_str());
  std::fprintf(out, "fallback LAPACK %s\n", f.lapack_origin.c_str());
  print_devices(out);
  print_configuration(out);
}

SWITCHYARD_EXPORT void switchyard_print_report(FILE* out) {
  const std::string report = switchyard::format_report(switchyard::current_totals());
  std::fputs(report.c_str(), out);
}
