// The modelled time of the CUDA QR routes (xGEQRF, xORGQR, xORMQR; and xGELS, xGELSD, xGESDD
// whole) on a started device with the operands in pageable host memory, for the router
// (route.hpp's RouteCost, which passes the host's figures: they play no part here). Host data
// streams through the pinned staging, so the call is bound by the bytes it moves, counting A up
// and back, plus the device's own work, about 3 TFLOP/s in double at those widths, and about
// 1 ms of launches and synchronisation. Since the host copies run on helper threads
// (docs/tsqr-performance.md) a started H200 moves 43-48 GB/s of them where one TSQR takes A
// whole (n = 8: 2^20 to 2^23 rows) and 50-60 GB/s where panels stream both ways at once
// (`switchyard bench routing`, docs/routing.md, 2026-12-03); the model takes the lower. At
// the 37 GB/s of single-threaded copies it put 2^23 x 8 at 30 ms against 24 measured, so a
// program's repeated calls started the device only after twice as many as would pay for it.
#pragma once

#include <algorithm>
#include <cstddef>

#include "calibration.hpp"
#include "routine.hpp"

namespace switchyard::qr::gpu {

inline constexpr double kStreamedBytesPerSecond = 45e9;
// What a call takes whatever its bytes and flops: at least 1 ms, and on a short matrix the
// latency of its panels, each a chain of small kernels. A started H200 took 0.6-0.8 ms at 4096
// and 8192 rows and 32 columns, 2.0-2.8 ms at 4096 to 16384 rows and 128 columns, 4.3-5.7 ms at
// 256 columns, however few the rows (`switchyard bench routing`, docs/routing.md, 2026-12-03),
// where the model with 1 ms alone put 4096 x 256 at 1.6 ms.
inline constexpr double kCallSeconds = 1e-3;
inline constexpr double kColumnSeconds = 16e-6;

template <class T>
inline constexpr double kDeviceFlopsPerSecond = sizeof(T) == 8 ? 3e12 : 5e12;

// Bytes moved across the link: A up and back (geqrf), V up and Q back (orgqr), V and C up and
// C back (ormqr, C of m x n from the left).
inline double streamed_bytes(Routine r, const Shape& s, std::size_t element) {
  const double m = double(s.m), n = double(s.n), k = double(s.k), e = double(element);
  switch (r) {
    case Routine::sormqr:
    case Routine::dormqr:
      return e * (m * k + 2.0 * m * n);
    default:
      return 2.0 * e * m * n;
  }
}

// The columns a call factors, or the reflectors it forms or applies (xORGQR, xORMQR).
inline double panel_columns(Routine r, const Shape& s) {
  switch (r) {
    case Routine::sorgqr:
    case Routine::dorgqr:
    case Routine::sormqr:
    case Routine::dormqr:
      return double(s.k);
    default:
      return double(s.n);
  }
}

// A call that moves `bytes` across the link and does routine r's flops on the device.
template <class T>
double moved_and_computed_seconds(Routine r, const Shape& s, double bytes) {
  return std::max(kCallSeconds, kColumnSeconds * panel_columns(r, s)) +
         bytes / kStreamedBytesPerSecond + routine_flops(r, s) / kDeviceFlopsPerSecond<T>;
}

template <class T, Routine R>
double device_seconds(const Shape& s, const HostFigures& /*figures*/) {
  return moved_and_computed_seconds<T>(R, s, streamed_bytes(R, s, sizeof(T)));
}

// The whole least-squares routes (xGELS, xGELSD): A (m x n) and B (m x k) up and back.
template <class T, Routine R>
double least_squares_seconds(const Shape& s, const HostFigures& /*figures*/) {
  return moved_and_computed_seconds<T>(R, s, 2.0 * sizeof(T) * double(s.m) * double(s.n + s.k));
}

}  // namespace switchyard::qr::gpu
