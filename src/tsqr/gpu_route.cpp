// The gpu route of sgeqrf/dgeqrf: TSQR on a CUDA device (gpu_tsqr.hpp), taken automatically
// for tall-skinny shapes that pay (src/route.cpp) when a CUDA device is present.
#include <cstdio>
#include <string>

#include "calls.hpp"
#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "dispatch.hpp"
#include "qr/gpu_cost.hpp"
#include "tsqr/gpu_tsqr.hpp"
#include "optimal_lwork.hpp"

namespace switchyard {
namespace {

template <class T>
const char* declines(const GeqrfCall<T>& g) {
  if (g.m < g.n) return "TSQR needs m >= n";
  if (g.n > tsqr::kGpuMaxColumns) return "the GPU QR takes at most 256 columns";
  return nullptr;
}

template <class T>
bool run(const GeqrfCall<T>& g) {
  std::string error;
  if (!tsqr::factor_gpu(g.m, g.n, g.a, g.lda, g.tau, error)) {
    std::fprintf(stderr, "switchyard: %cgeqrf on the GPU failed (%s); running it in the fallback\n",
                 sizeof(T) == sizeof(float) ? 's' : 'd', error.c_str());
    return false;
  }
  cuda::store(g.work, optimal_lwork(g));
  *g.info = 0;
  return true;
}

template <class T>
bool resident(const GeqrfCall<T>& g) {
  return cuda_device_pointer(g.a);
}

template <class T>
constexpr Routine routine = sizeof(T) == 8 ? Routine::dgeqrf : Routine::sgeqrf;

template <class T>
const RouteCost cost{device::Family::cuda, qr::device_seconds<T, routine<T>>};

template <class T>
const Implementation<GeqrfCall<T>> gpu_tsqr{cuda::unavailable, declines<T>, run<T>, nullptr,
                                            nullptr, &cost<T>, resident<T>};

// Plugging the route in: the router sees it from the first call on, and a background start
// starts the CUDA device through it.
[[maybe_unused]] const bool registered = [] {
  Implementations<GeqrfCall<float>>::gpu = &gpu_tsqr<float>;
  Implementations<GeqrfCall<double>>::gpu = &gpu_tsqr<double>;
  // A start in the background makes the context and pins the first staging.
  device::register_starter(device::Family::cuda, [] {
    if (!cuda::unavailable()) cuda::Staging().pin();
  });
  return true;
}();

}  // namespace
}  // namespace switchyard
