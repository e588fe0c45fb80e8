// The gpu route of sgesdd/dgesdd (JOBZ = 'S' or 'N', m >= n): A's QR on a CUDA device, the
// fallback's xGESDD of R on the host, the thin U formed on the device (svd_on_r.hpp).
// Weighed as a streamed QR that moves A up and, with the vectors, U back, against the
// fallback's xGEQRF and xORGQR of the shape (calibration.cpp).
#include <algorithm>
#include <string>
#include <vector>

#include "calls.hpp"
#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "dispatch.hpp"
#include "fallback.hpp"
#include "qr/gpu/cost.hpp"
#include "qr/gpu/fallback_on_host.hpp"
#include "qr/gpu/outcome.hpp"
#include "qr/gpu/svd_on_r.hpp"

namespace switchyard {
namespace {

template <class T>
GesddFn<T>* fallback_gesdd() {
  if constexpr (sizeof(T) == sizeof(float)) {
    return fallback().sgesdd;
  } else {
    return fallback().dgesdd;
  }
}

// The fallback's optimal LWORK for the call (its workspace query, which reads none of the
// arrays), or -1.
template <class T>
double optimal_lwork(const GesddCall<T>& g) {
  T answer{};
  int info = 0, iwork = 0;
  const int query = -1;
  fallback_gesdd<T>()(&g.jobz, &g.m, &g.n, g.a, &g.lda, g.s, g.u, &g.ldu, g.vt, &g.ldvt, &answer,
                      &query, &iwork, &info, 1);
  return info == 0 ? double(answer) : -1.0;
}

// The SVD of R (n x n) by the fallback's xGESDD with JOBZ as the call's, with workspace of its
// own query's asking.
template <class T>
int small_gesdd(char jobz, int n, T* r, T* s, T* u, T* vt) {
  GesddFn<T>* const gesdd = fallback_gesdd<T>();
  T answer{};
  int info = 0, query = -1, ld = n;
  std::vector<int> iwork(std::size_t(8 * n));
  gesdd(&jobz, &n, &n, r, &ld, s, u, &ld, vt, &ld, &answer, &query, iwork.data(), &info, 1);
  if (info != 0) return info;
  std::vector<T> work(std::size_t(std::max<T>(T(1), answer + T(0.5))));
  int lwork = int(work.size());
  gesdd(&jobz, &n, &n, r, &ld, s, u, &ld, vt, &ld, work.data(), &lwork, iwork.data(), &info, 1);
  return info;
}

template <class T>
const char* declines(const GesddCall<T>& g) {
  if (g.jobz != 'S' && g.jobz != 'N') return "the GPU SVD takes JOBZ = 'S' or 'N'";
  if (g.m < g.n) return "the GPU SVD takes m >= n";
  if (g.n > qr::gpu::kMaxLeastSquaresColumns) return "the GPU SVD takes at most 256 columns";
  if (!fallback_gesdd<T>()) return "the fallback has no xGESDD";
  if (double(g.lwork) < optimal_lwork(g)) {
    return "LWORK below the fallback's optimum: its own checks and code";
  }
  return nullptr;
}

template <class T>
bool run(const GesddCall<T>& g) {
  const T work1 = T(optimal_lwork(g));
  int info = 0;
  std::string error;
  const bool vectors = g.jobz == 'S';
  const qr::gpu::SmallSvd<T> small = [&](T* r, T* s, T* u_r, T* vt_r) {
    return small_gesdd(g.jobz, g.n, r, s, u_r, vt_r);
  };
  const qr::gpu::Outcome outcome =
      qr::gpu::svd_on_r_gpu(g.m, g.n, g.a, g.lda, g.s, vectors ? g.u : nullptr, g.ldu,
                            vectors ? g.vt : nullptr, g.ldvt, small, &info, error);
  if (!qr::gpu::solved(outcome, qr::gpu::of_precision<T>(Routine::sgesdd, Routine::dgesdd),
                       "A to be scaled first, or a NaN: the fallback's", error)) {
    return false;
  }
  cuda::store(g.work, work1);
  *g.info = info;
  return true;
}

template <class T>
bool resident(const GesddCall<T>& g) {
  return cuda_device_pointer(g.a) || (g.jobz == 'S' && cuda_device_pointer(g.u));
}

// A up, and with the vectors U back: a streamed QR's bytes, and the QR's and U's flops.
template <class T>
double seconds(const Shape& s, const HostFigures& /*figures*/) {
  const double passes = s.transa == 'N' ? 1.0 : 2.0;
  return qr::gpu::moved_and_computed_seconds<T>(
      qr::gpu::of_precision<T>(Routine::sgesdd, Routine::dgesdd), s,
      passes * sizeof(T) * double(s.m) * double(s.n));
}

template <class T>
const RouteCost cost{device::Family::cuda, seconds<T>};

template <class T>
const Implementation<GesddCall<T>> gpu_gesdd{
    cuda::unavailable, declines<T>, run<T>,      nullptr,
    nullptr,           &cost<T>,    resident<T>, qr::gpu::fallback_on_host<GesddCall<T>>};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<GesddCall<float>>::gpu = &gpu_gesdd<float>;
  Implementations<GesddCall<double>>::gpu = &gpu_gesdd<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
