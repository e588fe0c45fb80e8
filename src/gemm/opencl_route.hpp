// What the OpenCL routes (gemm's and syrk's, both on the copy + TN kernels) share: the
// device's kernel parameters, whether it can run, the size limits of its buffers, and the
// cost the router weighs.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdio>
#include <string>

#include "device/opencl_runtime.hpp"
#include "device/startup.hpp"
#include "gemm/cost_model.hpp"
#include "gemm/device_gemm.hpp"
#include "gemm/tuning_db.hpp"
#include "route.hpp"

namespace switchyard::opencl_route {

template <class T>
constexpr gemm::Precision precision = sizeof(T) == 8 ? gemm::Precision::f64 : gemm::Precision::f32;

template <class T>
inline const gemm::Selection& selection(const opencl::Runtime& rt) {
  // Never destroyed: a start in the background reads it on a helper thread, which may still be
  // running while the process exits.
  static const gemm::Selection& chosen =
      *new gemm::Selection(gemm::select(rt.device(), precision<T>));
  return chosen;
}

// The kernels of T on the device, compiled or loaded from the program cache. The OpenCL family's
// start ends here rather than with the context: a first call waits for its program too (a compile
// takes seconds on a machine's first start), so until the program is made the router weighs a
// call with the rest of the start. Ended with the context, a start in the background let a
// `dgemm` 8192^3 wait 3.3 s for the compile, where the fallback took 1.9 s.
template <class T>
gemm::Kernels* kernels(opencl::Runtime& rt, std::string& error) {
  gemm::Kernels* made = gemm::kernels_for(rt, selection<T>(rt).entry.params, error);
  device::end_start(device::Family::opencl, true);
  return made;
}

template <class T>
inline const char* unusable() {
  const char* why = nullptr;
  const opencl::Runtime* rt = opencl::runtime(&why);
  if (!rt) return why;
  if (sizeof(T) == 8 && !rt->device().has_fp64) return "the OpenCL device has no fp64";
  return nullptr;
}

// Why an m x n x k product does not fit the device's buffers, or null.
template <class T>
inline const char* too_large(int m, int n, int k) {
  const char* why = nullptr;
  const opencl::Runtime* rt = opencl::runtime(&why);
  const gemm::Padded p = gemm::padded(selection<T>(*rt).entry.params, m, n, k);
  const double largest = double(sizeof(T)) * double(p.kp) * double(p.mp > p.np ? p.mp : p.np);
  if (double(p.kp) * double(p.mp > p.np ? p.mp : p.np) > double(INT_MAX) ||
      double(m) * double(n) > double(INT_MAX) ||
      largest > double(rt->device().max_allocation)) {
    return "an operand is larger than one OpenCL buffer may be";
  }
  return nullptr;
}

// Why auto routing never picks the OpenCL routes on this machine, found without loading
// OpenCL (opencl::gpu_possible): no platform but PoCL, whose devices are the host's cores.
inline const char* forced_only() {
  return opencl::gpu_possible() ? nullptr
                                : "only when forced: no OpenCL platform but PoCL, whose devices "
                                  "are CPUs";
}

template <class T>
inline bool pays(const Shape&, char* why, std::size_t size) {
  const char* unused = nullptr;
  if (opencl::runtime(&unused)->device().is_gpu) return true;
  std::snprintf(why, size, "only when forced: the OpenCL device is not a GPU");
  return false;
}

// The modelled time on the device: its own tuning entry once its context is up, and before that
// the first shipped entry for a GPU (the H200's), so that a cold call is weighed without
// starting anything.
template <class T>
inline double device_seconds(const Shape& s, const HostFigures& /*figures*/) {
  if (const opencl::Runtime* started = opencl::started_runtime()) {
    const opencl::Runtime& rt = *started;
    const gemm::TuningEntry& e = selection<T>(rt).entry;
    return gemm::device_seconds(
        gemm::cost_model(rt.device().name.c_str(), e.gflops, e.params.ml, e.params.nl),
        sizeof(T), s);
  }
  // The shipped entries list the GPU's first, each precision's before the CPU device's.
  static const gemm::TuningEntry& shipped = *std::find_if(
      gemm::shipped_entries().begin(), gemm::shipped_entries().end(),
      [](const gemm::TuningEntry& e) { return e.precision == precision<T>; });
  return gemm::device_seconds(gemm::cost_model(shipped.device.c_str(), shipped.gflops,
                                               shipped.params.ml, shipped.params.nl),
                              sizeof(T), s);
}

template <class T>
inline const RouteCost cost{device::Family::opencl, device_seconds<T>};

}  // namespace switchyard::opencl_route
