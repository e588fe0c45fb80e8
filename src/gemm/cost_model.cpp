#include "gemm/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "gemm/split_k.hpp"

namespace switchyard::gemm {
namespace {

// Per-device constants, measured on the named device (README "GEMM"); the
// last row is the default for any other GPU.
struct DeviceConstants {
  const char* name_part;
  double link_gbs, launch_s;
  int compute_units;
};
// H200: the link itself moves 52 GB/s up and 55 down from pinned memory,
// but the host copies between pageable memory and the slots (about 8 GB/s
// per thread) hold a streamed call to about 25 GB/s; launch and
// synchronisation cost about 2 ms a call. Both fit `switchyard-bench gemm`'s
// host-resident dgemm (12.5-14.4 ms at n = 4096, 47.6-50.9 ms at 8192; README "GEMM").
// Other GPUs: half the H200's rate, for slower links and hosts, and 100 units.
constexpr DeviceConstants kDevices[] = {
    {"H200", 25.0, 2e-3, 132},
    {"", 12.0, 2e-3, 100},
};

}  // namespace

CostModel cost_model(const char* device_name, double kernel_gflops, int tile_m, int tile_n) {
  for (const DeviceConstants& d : kDevices) {
    if (std::strstr(device_name, d.name_part)) {
      return {kernel_gflops, tile_m, tile_n, d.compute_units, d.link_gbs, d.launch_s};
    }
  }
  return {};  // not reached: the last row matches every name
}

double device_seconds(const CostModel& model, std::size_t element_size, const Shape& s) {
  const double m = double(s.m), n = double(s.n), k = double(s.k);
  const double e = double(element_size), link = model.link_gbs * 1e9;
  const double tiles = std::ceil(m / model.tile_m) * std::ceil(n / model.tile_n);
  // Split-K gives each tile S work-groups when the tiles are too few.
  const double slices = double(wanted_slices(tiles, k, model.compute_units));
  const double rate =
      model.kernel_gflops * 1e9 * std::min(1.0, tiles * slices / model.compute_units);
  // The Gram product's op(B) is A, already on the device.
  const double b_up = s.same_operand ? 0 : e * k * n / link;
  const double overlapped = std::max(b_up + e * m * n / link, 2 * m * n * k / rate);
  return model.launch_s + e * m * k / link + overlapped + e * m * n / (8 * link);
}

}  // namespace switchyard::gemm
