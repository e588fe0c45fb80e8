// switchyard-bench: the benchmarks behind `switchyard bench`. Each prints its figures next to
// an anchor measured in the same run.
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "cg_bench.hpp"
#include "pdgeqrf_bench.hpp"
#include "qr_bench.hpp"
#include "routing_bench.hpp"
#include "tsqr_bench.hpp"
#if SWITCHYARD_BENCH_OPENCL
#include "gemm_bench.hpp"
#include "transfers_bench.hpp"
#endif

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "tsqr") == 0) {
    return switchyard::bench::tsqr_main(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "qr") == 0) {
    return switchyard::bench::qr_main(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "cg") == 0) {
    return switchyard::bench::cg_main(argc - 2, argv + 2);
  }
#if SWITCHYARD_BENCH_OPENCL
  if (argc >= 2 && std::strcmp(argv[1], "gemm") == 0) {
    return switchyard::bench::gemm_main(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "transfers") == 0) {
    return switchyard::bench::transfers_main(argc - 2, argv + 2);
  }
#else
  // Both time the gemm route's OpenCL side.
  for (const char* opencl : {"gemm", "transfers"}) {
    if (argc >= 2 && std::strcmp(argv[1], opencl) == 0) {
      std::fprintf(stderr, "switchyard bench %s: this build has no OpenCL\n", opencl);
      return 2;
    }
  }
#endif
  if (argc >= 2 && std::strcmp(argv[1], "routing") == 0) {
    return switchyard::bench::routing_main(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "pdgeqrf") == 0) {
    return switchyard::bench::pdgeqrf_main(argc - 2, argv + 2);
  }
  std::fprintf(stderr,
               "usage: switchyard bench tsqr|qr|cg|gemm|routing|transfers|pdgeqrf [options]   (switchyard bench NAME --help)\n");
  return 2;
}
