#include "gemm/cost_model.hpp"

#include <algorithm>
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
// H200: the link itself moves 52 GB/s up and 55 down from pinned memory,
// but the host copies between pageable memory and the slots (about 8 GB/s
// per thread) hold a streamed call to about 25 GB/s; launch and
// synchronisation cost about 2 ms a call. Both fit `switchyard-bench gemm`'s
// host-resident dgemm (12.5-14.4 ms at n = 4096, 47.6-50.9 ms at 8192; README "GEMM").
// Other GPUs: half the H200's rate, for slower links and hosts.
constexpr DeviceConstants kDevices[] = {
    {"H200", 25.0, 2e-3},
    {"", 12.0, 2e-3},
};

}  // namespace

CostModel cost_model(const char* device_name, double kernel_gflops) {
  for (const DeviceConstants& d : kDevices) {
    if (std::strstr(device_name, d.name_part)) return {kernel_gflops, d.link_gbs, d.launch_s};
  }
  return {kernel_gflops, 12.0, 2e-3};
}

double device_seconds(const CostModel& model, std::size_t element_size, const Shape& s) {
  const double m = double(s.m), n = double(s.n), k = double(s.k);
  const double e = double(element_size), link = model.link_gbs * 1e9;
  const double overlapped = std::max(e * (k * n + m * n) / link,
                                     2 * m * n * k / (model.kernel_gflops * 1e9));
  return model.launch_s + e * m * k / link + overlapped + e * m * n / (8 * link);
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
