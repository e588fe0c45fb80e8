// The gpu routes of sgeqrf/dgeqrf and sgeqp3/dgeqp3: TSQR on a CUDA device (gpu_tsqr.hpp),
// taken automatically for tall-skinny shapes that pay (src/route.cpp) when a CUDA device is
// present. xGEQP3's R is pivoted on the host by the fallback's xGEQP3 between the reduction and
// the reconstruction; like the cpu route it is weighed as the xGEQRF of its shape on both sides
// (the fallback's xGEQP3 takes at least its xGEQRF's time).
#include <cstdio>
#include <string>

#include "calls.hpp"
#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "dispatch.hpp"
#include "optimal_lwork.hpp"
#include "qr/gpu_cost.hpp"
#include "tsqr/gpu_tsqr.hpp"
#include "tsqr/lapack_table.hpp"

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
const char* declines_pivoted(const Geqp3Call<T>& g) {
  if (g.m < g.n) return "TSQR needs m >= n";
  if (g.n > tsqr::kGpuMaxPivotedColumns) return "the GPU pivoted QR takes at most 64 columns";
  return nullptr;
}

template <class T>
bool run_pivoted(const Geqp3Call<T>& g) {
  std::string error;
  T work1{};
  if (!tsqr::factor_pivoted_gpu(g.m, g.n, g.a, g.lda, g.jpvt, g.tau, tsqr::fallback_lapack<T>(),
                                &work1, error)) {
    std::fprintf(stderr, "switchyard: %cgeqp3 on the GPU failed (%s); running it in the fallback\n",
                 sizeof(T) == sizeof(float) ? 's' : 'd', error.c_str());
    return false;
  }
  cuda::store(g.work, work1);
  *g.info = 0;
  return true;
}

template <class T>
bool resident_pivoted(const Geqp3Call<T>& g) {
  return cuda_device_pointer(g.a);
}

template <class T>
constexpr Routine routine = sizeof(T) == 8 ? Routine::dgeqrf : Routine::sgeqrf;

template <class T>
const RouteCost cost{device::Family::cuda, qr::device_seconds<T, routine<T>>};

template <class T>
const Implementation<GeqrfCall<T>> gpu_tsqr{cuda::unavailable, declines<T>, run<T>,     nullptr,
                                            nullptr,           &cost<T>,    resident<T>};

template <class T>
const Implementation<Geqp3Call<T>> gpu_pivoted_tsqr{
    cuda::unavailable, declines_pivoted<T>, run_pivoted<T>, nullptr, nullptr,
    &cost<T>,          resident_pivoted<T>};

// Plugging the route in: the router sees it from the first call on, and a background start
// starts the CUDA device through it.
[[maybe_unused]] const bool registered = [] {
  Implementations<GeqrfCall<float>>::gpu = &gpu_tsqr<float>;
  Implementations<GeqrfCall<double>>::gpu = &gpu_tsqr<double>;
  Implementations<Geqp3Call<float>>::gpu = &gpu_pivoted_tsqr<float>;
  Implementations<Geqp3Call<double>>::gpu = &gpu_pivoted_tsqr<double>;
  // A start in the background makes the context and pins the first staging.
  device::register_starter(device::Family::cuda, [] {
    if (!cuda::unavailable()) cuda::Staging().pin();
  });
  return true;
}();

}  // namespace
}  // namespace switchyard
