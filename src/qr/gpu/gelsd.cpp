// The gpu route of sgelsd/dgelsd (m >= n): A's QR and Q^T B on a CUDA device, as for xGELS
// (least_squares.hpp), then the problem left on R, min ||R X - (Q^T B)(1:n)||, by the fallback's
// own xGELSD of the n x n R on the host: the singular values of A are R's, so its rank, S and the
// solution are those xGELSD finds for A, which itself takes A's QR first when m is much larger
// than n. B(n+1:m) keeps the residual's components, as xGELSD's does. Weighed as the xGELS
// route.
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
#include "qr/gpu/least_squares.hpp"
#include "qr/gpu/outcome.hpp"

namespace switchyard {
namespace {

template <class T>
GelsdFn<T>* fallback_gelsd() {
  if constexpr (sizeof(T) == sizeof(float)) {
    return fallback().sgelsd;
  } else {
    return fallback().dgelsd;
  }
}

// The fallback's optimal LWORK for an m x n problem (its workspace query, which reads none of
// A, B and S), or -1.
template <class T>
double optimal_lwork(int m, int n, int nrhs, T* a, T* b, T* s) {
  T answer{}, rcond{-1};
  int rank = 0, info = 0, iwork = 0;
  const int query = -1;
  int lda = std::max(1, m), ldb = std::max({1, m, n});
  fallback_gelsd<T>()(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, &rank, &answer, &query, &iwork,
                      &info);
  return info == 0 ? double(answer) : -1.0;
}

template <class T>
const char* declines(const GelsdCall<T>& g) {
  if (g.m < g.n) return "the GPU least squares takes m >= n";
  if (g.nrhs < 1) return "no right-hand side";
  if (g.n > qr::gpu::kMaxLeastSquaresColumns)
    return "the GPU least squares takes at most 256 columns";
  if (!fallback_gelsd<T>()) return "the fallback has no xGELSD";
  if (double(g.lwork) < optimal_lwork<T>(g.m, g.n, g.nrhs, g.a, g.b, g.s)) {
    return "LWORK below the fallback's optimum: its own checks and code";
  }
  return nullptr;
}

template <class T>
bool run(const GelsdCall<T>& g) {
  GelsdFn<T>* const gelsd = fallback_gelsd<T>();
  // The small problem's own workspace, from its query.
  const int n = g.n, nrhs = g.nrhs;
  std::vector<T> s(static_cast<std::size_t>(n));
  const double small_lwork = optimal_lwork<T>(n, n, nrhs, g.a, g.b, s.data());
  if (small_lwork < 0) return false;
  std::vector<T> work(std::size_t(std::max(1.0, small_lwork)));
  std::vector<int> iwork(std::size_t(3 * n * 32 + 11 * n + 64));  // past any ILAENV's LIWORK
  int rank = 0;
  const qr::gpu::SmallSolve<T> solve = [&](T* r, T* top) {
    // xGELSD reads all of its A: R's reflectors below the diagonal go.
    for (int j = 0; j < n; ++j) std::fill(r + j * n + j + 1, r + (j + 1) * n, T(0));
    int lwork = int(work.size()), info = 0;
    int ld = n;
    gelsd(&n, &n, &nrhs, r, &ld, top, &ld, s.data(), &g.rcond, &rank, work.data(), &lwork,
          iwork.data(), &info);
    return info;
  };
  std::vector<T> tau(static_cast<std::size_t>(n));
  int info = 0;
  std::string error;
  const qr::gpu::Outcome outcome = qr::gpu::least_squares_on_r_gpu(
      g.m, n, nrhs, g.a, g.lda, g.b, g.ldb, tau.data(), solve, &info, error);
  if (!qr::gpu::solved(outcome, qr::gpu::of_precision<T>(Routine::sgelsd, Routine::dgelsd),
                       "A or B to be scaled first, or A zero: the fallback's", error)) {
    return false;
  }
  cudaMemcpy(g.s, s.data(), sizeof(T) * s.size(), cudaMemcpyDefault);
  cuda::store(g.work, T(optimal_lwork<T>(g.m, n, nrhs, g.a, g.b, g.s)));
  *g.rank = rank;
  *g.iwork = iwork[0];
  *g.info = info;
  return true;
}

template <class T>
bool resident(const GelsdCall<T>& g) {
  return cuda_device_pointer(g.a) || cuda_device_pointer(g.b);
}

template <class T>
const RouteCost cost{
    device::Family::cuda,
    qr::gpu::least_squares_seconds<T, qr::gpu::of_precision<T>(Routine::sgelsd, Routine::dgelsd)>};

template <class T>
const Implementation<GelsdCall<T>> gpu_gelsd{
    cuda::unavailable, declines<T>, run<T>,      nullptr,
    nullptr,           &cost<T>,    resident<T>, qr::gpu::fallback_on_host<GelsdCall<T>>};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<GelsdCall<float>>::gpu = &gpu_gelsd<float>;
  Implementations<GelsdCall<double>>::gpu = &gpu_gelsd<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
