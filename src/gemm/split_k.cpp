#include "gemm/split_k.hpp"

#include <algorithm>
#include <cmath>

#include "gemm/inplace_kernel_source.hpp"

namespace switchyard::gemm {
namespace {

// `wanted` slices of Kp rows in whole k steps of kl (the last step may be short).
Split slices_of(int kp, int kl, int wanted) {
  if (wanted <= 1 || kp <= kl) return {1, kp};
  const int steps = (kp + kl - 1) / kl;
  const int depth = (steps + wanted - 1) / wanted * kl;
  return {(kp + depth - 1) / depth, depth};
}

}  // namespace

long wanted_slices(double tiles, double k, int compute_units, int groups_per_unit) {
  if (tiles <= 0 || compute_units <= 0) return 1;
  const double fill = std::floor(double(groups_per_unit) * compute_units / tiles);
  return std::max(1L, long(std::min(fill, std::floor(k / kMinSliceDepth))));
}

Split choose_split(const KernelParams& p, int tiles, int kp, int compute_units,
                   int forced_slices) {
  if (forced_slices > 0) return slices_of(kp, p.kl, forced_slices);
  return slices_of(kp, p.kl, int(wanted_slices(tiles, kp, compute_units)));
}

Split inplace_split(int m, int n, int k, int compute_units, int forced_slices) {
  const auto tiles_along = [](int extent) { return (extent + kInplaceTile - 1) / kInplaceTile; };
  const int wanted = forced_slices > 0
                         ? forced_slices
                         : int(wanted_slices(double(tiles_along(m)) * tiles_along(n), k,
                                             compute_units, kInplaceGroupsPerUnit));
  return slices_of(k, kInplaceDepth, wanted);
}

}  // namespace switchyard::gemm
