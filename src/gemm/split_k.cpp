#include "gemm/split_k.hpp"

#include <algorithm>

namespace switchyard::gemm {
namespace {

// `wanted` slices of Kp rows in whole k steps of kl.
Split slices_of(int kp, int kl, int wanted) {
  if (wanted <= 1 || kp <= kl) return {1, kp};
  const int steps = kp / kl;
  const int depth = (steps + wanted - 1) / wanted * kl;
  return {(kp + depth - 1) / depth, depth};
}

}  // namespace

Split choose_split(const KernelParams& p, int tiles, int kp, int compute_units,
                   int forced_slices) {
  if (forced_slices > 0) return slices_of(kp, p.kl, forced_slices);
  if (tiles <= 0 || compute_units <= 0) return {1, kp};
  const int fill = kGroupsPerUnit * compute_units / tiles;
  return slices_of(kp, p.kl, std::min(fill, kp / kMinSliceDepth));
}

}  // namespace switchyard::gemm
