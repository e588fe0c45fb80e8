#pragma once

// The first call of a process on the host's cores costs more than later ones: the allocator's
// fresh pages, the first threads' stacks. The routes on the host's cores (the CPU TSQR of
// src/tsqr, xORGQR and xORMQR of src/qr) share those, so whichever runs first pays it for all
// (calibration.hpp's CpuRouteRates::first_call_s; the router adds it to the route's modelled
// time, route.hpp's RouteCost::first_call_s).

#include <atomic>

#include "calibration.hpp"

namespace switchyard {

inline std::atomic<bool> host_route_has_run{false};

inline double host_route_first_call_seconds(const HostFigures& figures) {
  return host_route_has_run.load(std::memory_order_relaxed) ? 0.0 : figures.cpu_tsqr.first_call_s;
}

inline void note_host_route_run() { host_route_has_run.store(true, std::memory_order_relaxed); }

}  // namespace switchyard
