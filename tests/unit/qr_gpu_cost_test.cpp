// The CUDA QR routes' model of a call from host memory (src/qr/gpu/cost.hpp) against what a
// started H200 measured (`switchyard bench routing`, OpenBLAS as the fallback, docs/routing.md,
// 2026-12-03): never more than 10% faster than measured, so that the router does not take the
// device where it loses, and never more than 35% slower, so that the calls a program keeps off
// a cold device count the gain they forgo near its true size.
#include <gtest/gtest.h>

#include "qr/gpu/cost.hpp"

namespace switchyard {
namespace {

struct Measured {
  long m, n;
  double ms;  // the device's warm time
};

TEST(QrGpuCost, DgeqrfFromHostMemoryIsModelledNearWhatTheH200Measured) {
  const HostFigures unused{};
  for (const Measured& c :
       {Measured{1L << 20, 32, 12.2}, Measured{1L << 22, 8, 13.8}, Measured{1L << 22, 32, 42.4},
        Measured{1L << 23, 8, 24.1}, Measured{1L << 23, 32, 78.2}, Measured{4096, 128, 2.0},
        Measured{4096, 256, 4.3}, Measured{8192, 128, 2.3}, Measured{8192, 256, 5.1},
        Measured{16384, 128, 2.5}}) {
    const double modelled =
        1e3 * qr::gpu::device_seconds<double, Routine::dgeqrf>(Shape{c.m, c.n}, unused);
    EXPECT_GE(modelled, 0.9 * c.ms) << c.m << " x " << c.n;
    EXPECT_LE(modelled, 1.35 * c.ms) << c.m << " x " << c.n;
  }
}

}  // namespace
}  // namespace switchyard
