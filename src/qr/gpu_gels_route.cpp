// The gpu route of sgels/dgels (TRANS = 'N', m >= n): the whole call on a CUDA device
// (gpu_gels.hpp), taken automatically for tall-skinny shapes that pay (src/route.cpp) when a
// CUDA device is present. Weighed as a streamed QR that moves A up and back and B up and back,
// against the fallback's xGEQRF and xORMQR of the shape (calibration.cpp).
#include <string>
#include <vector>

#include "calls.hpp"
#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "dispatch.hpp"
#include "optimal_lwork.hpp"
#include "qr/driver_outcome.hpp"
#include "qr/gpu_cost.hpp"
#include "qr/gpu_gels.hpp"

namespace switchyard {
namespace {

template <class T>
const char* declines(const GelsCall<T>& g) {
  if (g.trans != 'N') return "the GPU least squares takes TRANS = 'N'";
  if (g.m < g.n) return "the GPU least squares takes m >= n";
  if (g.n > qr::kGpuMaxLeastSquaresColumns)
    return "the GPU least squares takes at most 256 columns";
  if (sizeof(T) == sizeof(float) ? !fallback().strtrs : !fallback().dtrtrs) {
    return "the fallback has no xTRTRS";
  }
  return nullptr;
}

template <class T>
bool run(const GelsCall<T>& g) {
  TrtrsFn<T>* trtrs;
  if constexpr (sizeof(T) == sizeof(float)) {
    trtrs = fallback().strtrs;
  } else {
    trtrs = fallback().dtrtrs;
  }
  const T work1 = g.optimal_lwork != 0 ? g.optimal_lwork : optimal_lwork(g);
  std::vector<T> tau(std::size_t(g.n));
  int info = 0;
  std::string error;
  const qr::GelsOutcome outcome = qr::solve_least_squares_gpu(
      g.m, g.n, g.nrhs, g.a, g.lda, g.b, g.ldb, tau.data(), trtrs, &info, error);
  if (!qr::solved(outcome, sizeof(T) == sizeof(float) ? Routine::sgels : Routine::dgels,
                  "A or B to be scaled first, or A zero: the fallback's", error)) {
    return false;
  }
  // As xGELS leaves WORK: tau in its first n elements, WORK(1) the optimal LWORK once solved.
  cudaMemcpy(g.work, tau.data(), sizeof(T) * tau.size(), cudaMemcpyDefault);
  if (info == 0) cuda::store(g.work, work1);
  *g.info = info;
  return true;
}

template <class T>
bool resident(const GelsCall<T>& g) {
  return cuda_device_pointer(g.a) || cuda_device_pointer(g.b);
}

template <class T>
const RouteCost cost{
    device::Family::cuda,
    qr::least_squares_seconds<T, sizeof(T) == 8 ? Routine::dgels : Routine::sgels>};

template <class T>
const Implementation<GelsCall<T>> gpu_gels{cuda::unavailable, declines<T>, run<T>,     nullptr,
                                           nullptr,           &cost<T>,    resident<T>};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<GelsCall<float>>::gpu = &gpu_gels<float>;
  Implementations<GelsCall<double>>::gpu = &gpu_gels<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
