#pragma once

#include <string>

namespace switchyard::bench {

// The host-resident part of bench gemm: dgemm NN from pageable memory at
// n = 4096 and 8192, through the library's dgemm_ (the gpu route, forced)
// against NVBLAS preloaded, each in a child process of this program.
void gemm_host_resident(int repeat, const std::string& nvblas, const std::string& cpu_blas);

// The child: `switchyard-bench gemm --dgemm-once N R` times the dgemm_ the
// process resolves (best of R after one warm-up) and prints "ms ok".
int gemm_once(int n, int repeat);

}  // namespace switchyard::bench
