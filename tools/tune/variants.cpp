#include "tune/variants.hpp"

#include "gemm/nv_families.hpp"

#include <algorithm>
#include <random>

namespace switchyard::tune {

std::vector<gemm::KernelParams> variants(const opencl::DeviceInfo& device,
                                         gemm::Precision precision) {
  using gemm::Layout;
  const gemm::DeviceLimits limits{device.max_work_group, device.local_memory,
                                  device.nv_compute_capability};
  // GPUs want many work-items and tiles shared in local memory; a CPU
  // device wants few work-items with large register tiles and no local
  // memory (PoCL runs a work-group as loops on one core).
  const bool gpu = device.is_gpu;
  const std::vector<int> block = gpu ? std::vector<int>{32, 64, 128} : std::vector<int>{8, 16, 32, 64};
  const std::vector<int> thread = gpu ? std::vector<int>{2, 4, 8} : std::vector<int>{2, 4, 8, 16};
  const std::vector<int> kstep = gpu ? std::vector<int>{8, 16, 32} : std::vector<int>{4, 8, 16, 32};
  const int min_threads = gpu ? 64 : 1, max_threads = gpu ? 256 : 64;
  const int max_accumulators = precision == gemm::Precision::f64 ? 64 : 128;
  std::vector<gemm::KernelParams> out;
  for (int ml : block) for (int nl : block) for (int kl : kstep)
  for (int ms : thread) for (int ns : thread) for (int ks : {1, 2, 4})
  for (int vw : {1, 2, 4}) for (int local = 0; local < (gpu ? 4 : 1); ++local)
  for (Layout la : {Layout::cbl, Layout::row, Layout::rbl})
  for (Layout lb : {Layout::cbl, Layout::row, Layout::rbl}) {
    gemm::KernelParams p;
    p.precision = precision;
    p.ml = ml, p.nl = nl, p.kl = kl, p.ms = ms, p.ns = ns, p.ks = ks, p.vw = vw;
    p.local_a = local & 1, p.local_b = local & 2;
    p.layout_a = la, p.layout_b = lb;
    const int threads = p.threads_m() * p.threads_n();
    if (ks > kl || ms > ml || ns > nl || threads < min_threads || threads > max_threads ||
        ms * ns > max_accumulators || !gemm::invalid(p, limits).empty()) {
      continue;
    }
    out.push_back(p);
  }
  // NVIDIA GPUs of sm_80 and up also get their own families (tensor-core DGEMM, FFMA SGEMM).
  if (device.nv_compute_capability >= 80) {
    for (const gemm::KernelParams& p : gemm::nv_search_space(precision, limits)) out.push_back(p);
  }
  std::mt19937 order(20121212);
  std::shuffle(out.begin(), out.end(), order);
  return out;
}

}  // namespace switchyard::tune
