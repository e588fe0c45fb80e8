// The gpu route of sgesvd/dgesvd (JOBU = 'S' or 'N', JOBVT = 'S', 'A' or 'N', m >= n): A's QR on
// a CUDA device, the fallback's xGESVD of R on the host, the thin U formed on the device
// (svd_on_r.hpp). Weighed as xGESDD's route is, against the fallback's xGEQRF and xORGQR of the
// shape (calibration.cpp), the calls reference xGESVD makes of a matrix with many more rows than
// columns.
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
GesvdFn<T>* fallback_gesvd() {
  if constexpr (sizeof(T) == sizeof(float)) {
    return fallback().sgesvd;
  } else {
    return fallback().dgesvd;
  }
}

// The fallback's optimal LWORK for the call (its workspace query, which reads none of the
// arrays), or -1.
template <class T>
double optimal_lwork(const GesvdCall<T>& g) {
  T answer{};
  int info = 0;
  const int query = -1;
  fallback_gesvd<T>()(&g.jobu, &g.jobvt, &g.m, &g.n, g.a, &g.lda, g.s, g.u, &g.ldu, g.vt, &g.ldvt,
                      &answer, &query, &info, 1, 1);
  return info == 0 ? double(answer) : -1.0;
}

// The SVD of R (n x n) by the fallback's xGESVD with the call's JOBU and JOBVT (for a square R
// 'S' and 'A' ask for the same), with workspace of its own query's asking. Where the bidiagonal
// QR iteration does not converge, its WORK(2:n) (the unconverged superdiagonal) goes to
// `superdiagonal`.
template <class T>
int small_gesvd(char jobu, char jobvt, int n, T* r, T* s, T* u, T* vt,
                std::vector<T>& superdiagonal) {
  GesvdFn<T>* const gesvd = fallback_gesvd<T>();
  T answer{};
  int info = 0, query = -1, ld = n;
  gesvd(&jobu, &jobvt, &n, &n, r, &ld, s, u, &ld, vt, &ld, &answer, &query, &info, 1, 1);
  if (info != 0) return info;
  std::vector<T> work(std::size_t(std::max<T>(T(1), answer + T(0.5))));
  int lwork = int(work.size());
  gesvd(&jobu, &jobvt, &n, &n, r, &ld, s, u, &ld, vt, &ld, work.data(), &lwork, &info, 1, 1);
  if (info > 0) superdiagonal.assign(work.begin() + 1, work.begin() + n);
  return info;
}

template <class T>
const char* declines(const GesvdCall<T>& g) {
  if (g.jobu != 'S' && g.jobu != 'N') return "the GPU SVD takes JOBU = 'S' or 'N'";
  if (g.jobvt == 'O') return "the GPU SVD takes JOBVT = 'S', 'A' or 'N'";
  if (g.m < g.n) return "the GPU SVD takes m >= n";
  if (g.n > qr::gpu::kMaxLeastSquaresColumns) return "the GPU SVD takes at most 256 columns";
  if (!fallback_gesvd<T>()) return "the fallback has no xGESVD";
  if (double(g.lwork) < optimal_lwork(g)) {
    return "LWORK below the fallback's optimum: its own checks and code";
  }
  return nullptr;
}

template <class T>
bool run(const GesvdCall<T>& g) {
  const T work1 = T(optimal_lwork(g));
  int info = 0;
  std::string error;
  std::vector<T> superdiagonal;
  const qr::gpu::SmallSvd<T> small = [&](T* r, T* s, T* u_r, T* vt_r) {
    return small_gesvd(g.jobu, g.jobvt, g.n, r, s, u_r, vt_r, superdiagonal);
  };
  const qr::gpu::Outcome outcome =
      qr::gpu::svd_on_r_gpu(g.m, g.n, g.a, g.lda, g.s, g.jobu == 'S' ? g.u : nullptr, g.ldu,
                            g.jobvt == 'N' ? nullptr : g.vt, g.ldvt, small, &info, error);
  if (!qr::gpu::solved(outcome, qr::gpu::of_precision<T>(Routine::sgesvd, Routine::dgesvd),
                       "A to be scaled first, or a NaN: the fallback's", error)) {
    return false;
  }
  // As xGESVD leaves WORK: the optimal LWORK, and the superdiagonal it could not reduce.
  cuda::store(g.work, work1);
  if (!superdiagonal.empty()) {
    cudaMemcpy(g.work + 1, superdiagonal.data(), sizeof(T) * superdiagonal.size(),
               cudaMemcpyDefault);
  }
  *g.info = info;
  return true;
}

template <class T>
bool resident(const GesvdCall<T>& g) {
  return cuda_device_pointer(g.a) || (g.jobu == 'S' && cuda_device_pointer(g.u)) ||
         (g.jobvt != 'N' && cuda_device_pointer(g.vt));
}

// A up, and with the left vectors U back: a streamed QR's bytes, and the QR's and U's flops.
template <class T>
double seconds(const Shape& s, const HostFigures& /*figures*/) {
  const double passes = s.transa == 'N' ? 1.0 : 2.0;
  return qr::gpu::moved_and_computed_seconds<T>(
      qr::gpu::of_precision<T>(Routine::sgesvd, Routine::dgesvd), s,
      passes * sizeof(T) * double(s.m) * double(s.n));
}

template <class T>
const RouteCost cost{device::Family::cuda, seconds<T>};

template <class T>
const Implementation<GesvdCall<T>> gpu_gesvd{
    cuda::unavailable, declines<T>, run<T>,      nullptr,
    nullptr,           &cost<T>,    resident<T>, qr::gpu::fallback_on_host<GesvdCall<T>>};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<GesvdCall<float>>::gpu = &gpu_gesvd<float>;
  Implementations<GesvdCall<double>>::gpu = &gpu_gesvd<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
