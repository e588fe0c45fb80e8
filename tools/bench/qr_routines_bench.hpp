// switchyard bench qr's table of each QR routine through its entry point: device-resident
// against cuSOLVER's routine where it has one, host-resident against the fallback library
// (qr_routines_bench.cpp says how each is measured).
#pragma once

#include <cusolverDn.h>

#include <string>
#include <vector>

namespace switchyard::bench {

// The routines the table can take, in its order.
const std::vector<std::string>& qr_routines();

struct QrRoutinesOptions {
  std::vector<std::string> routines;
  std::vector<int> m_log2, n;
  int repeat = 3;
};

// Device-resident: each routine on device memory through libswitchyard's entry point, against
// the cuSOLVER routine that does the same where there is one.
void device_resident_routines(const QrRoutinesOptions& o, cusolverDnHandle_t solver);

// Host-resident (pageable), as a program calls them: `switchyard bench routing` on the grid of
// shapes, each call in a fresh process with Switchyard preloaded, against the fallback alone.
// `max_seconds` caps a fallback call (longer ones are estimated, not run).
int host_resident_routines(const QrRoutinesOptions& o, const std::string& fallback,
                           double max_seconds);

}  // namespace switchyard::bench
