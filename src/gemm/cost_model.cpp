#include "gemm/cost_model.hpp"

#include <cstdio>
#include <cstring>

namespace switchyard::gemm {
namespace {

// Per-device constants, measured on the named device (README "GEMM"); the
// last row is the default for any other GPU.
struct DeviceConstants {
  const char* name_part;
  double link_gbs, launch_s;
};
constexpr DeviceConstants kDevices[] = {
    {"H200", 8.0, 100e-6},  // pageable host memory, 8 GB/s up, 10 down (h200/NOTES.md)
    {"", 6.0, 100e-6},
};

}  // namespace

CostModel cost_model(const char* device_name, double kernel_gflops) {
  for (const DeviceConstants& d : kDevices) {
    if (std::strstr(device_name, d.name_part)) return {kernel_gflops, d.link_gbs, d.launch_s};
  }
  return {kernel_gflops, 6.0, 100e-6};
}

double device_seconds(const CostModel& model, std::size_t element_size, const Shape& s) {
  const double m = double(s.m), n = double(s.n), k = double(s.k);
  const double bytes = double(element_size) * (m * k + k * n + 2 * m * n);
  return model.launch_s + bytes / (model.link_gbs * 1e9) +
         2 * m * n * k / (model.kernel_gflops * 1e9);
}

double host_seconds(double host_gflops, const Shape& s) {
  return 2 * double(s.m) * double(s.n) * double(s.k) / (host_gflops * 1e9);
}

bool device_pays(const CostModel& model, double host_gflops, std::size_t element_size,
                 const Shape& s, char* why, std::size_t size) {
  const double device = device_seconds(model, element_size, s);
  const double host = host_seconds(host_gflops, s);
  if (device < host) return true;
  std::snprintf(why, size, "does not pay: device %.3g s >= host %.3g s (cost model)", device,
                host);
  return false;
}

}  // namespace switchyard::gemm
