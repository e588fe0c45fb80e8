#pragma once

namespace switchyard::bench {

// `switchyard bench gemm`: the gemm route's OpenCL kernels (copy kernels +
// TN kernel) on device-resident operands against cuBLAS on the same GPU,
// and the host-resident route against the anchor figures.
int gemm_main(int argc, char** argv);

}  // namespace switchyard::bench
