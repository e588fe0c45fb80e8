#include "gemm/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "gemm/row_blocks.hpp"
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
// H200: the link itself moves 52 GB/s up and 55 down from pinned memory, and since the host
// copies between pageable memory and the slots are split over helper threads
// (device/host_copies.hpp) a streamed call keeps up with it; launch and synchronisation cost
// about 2 ms a call. On nvidia-h200, `switchyard bench routing` (2026-12-03) timed the one-matrix
// Gram products warm at 41.2 ms (dgemm 64 x 64 x 2^22, modelled 43.9) and 21.4 (sgemm, 23.3),
// dsyrk 64 x 2^22 at 41.0 (43.9), dgemm 4096^3 at 7.8 (7.5) and 8192^3 at 34.6 (26.7: the
// kernels on a 2048-row block run below the tuning entry's rate, where the device is 36 times
// faster than OpenBLAS). At the 40 GB/s taken before the helper threads, the Gram products came
// out 35% slow, and a cold dgemm 64 x 64 x 2^22 stayed in OpenBLAS at 374 ms against 295 ms on
// a device started for it.
// Other GPUs: 12 GB/s, for slower links and hosts, and 100 units.
constexpr DeviceConstants kDevices[] = {
    {"H200", 52.0, 2e-3, 132},
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
  // With beta = 0, C only comes down.
  const double c_up = s.reads_c ? e * m * n / link : 0;
  // op(A) goes up in row blocks: the kernels wait for the first, the others go up under them.
  const double blocks = s.same_operand ? 1 : row_blocks_for(s.m, s.k, element_size);
  const double a_up = e * m * k / link;
  const double overlapped =
      std::max(a_up * (blocks - 1) / blocks + b_up + c_up, 2 * m * n * k / rate);
  return model.launch_s + a_up / blocks + overlapped + e * m * n / (8 * link);
}

}  // namespace switchyard::gemm
