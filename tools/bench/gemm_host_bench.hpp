#pragma once

#include <string>
#include <vector>

namespace switchyard::bench {

// The host-resident part of bench gemm: dgemm NN from pageable memory at
// each n of `sizes`, through the library's dgemm_ (the gpu route, forced)
// against NVBLAS preloaded (skipped when `nvblas` is "none"), each in a child
// process of this program; with `devices` (SWITCHYARD_DEVICES: "all" or a
// list), the route split over those devices too, against one device.
void gemm_host_resident(const std::vector<int>& sizes, int repeat, const std::string& nvblas,
                        const std::string& cpu_blas, const std::string& devices);

// The child: `switchyard-bench gemm --dgemm-once N R` times the dgemm_ the
// process resolves (best of R after one warm-up) and prints "ms ok".
int gemm_once(int n, int repeat);

}  // namespace switchyard::bench
