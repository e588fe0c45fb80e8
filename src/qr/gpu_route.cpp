// The gpu routes of xORGQR and xORMQR: Q applied as one compact-WY block on a CUDA device
// (gpu_apply_q.hpp), or as several (gpu_wide_q.hpp), taken automatically for tall-skinny shapes that pay (src/route.cpp)
// when a CUDA device is present.
#include <cstdio>
#include <string>

#include "calls.hpp"
#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "dispatch.hpp"
#include "optimal_lwork.hpp"
#include "qr/gpu_cost.hpp"
#include "qr/gpu_wide_q.hpp"

namespace switchyard {
namespace {

template <class T>
constexpr char prefix() {
  return sizeof(T) == sizeof(float) ? 's' : 'd';
}

template <class T>
const char* orgqr_declines(const OrgqrCall<T>& g) {
  if (g.k == 0) return "no reflectors: Q is the identity's first columns";
  if (g.n > qr::kGpuMaxWide) return "the GPU forms at most 256 columns of Q";
  if (!qr::wide_q_fits(g.n, g.k)) return "more than 64 columns of Q from the last block of reflectors on";
  return nullptr;
}

template <class T>
bool orgqr_run(const OrgqrCall<T>& g) {
  std::string error;
  if (!qr::orgqr_gpu(g.m, g.n, g.k, g.a, g.lda, g.tau, error)) {
    std::fprintf(stderr, "switchyard: %corgqr on the GPU failed (%s); running it in the fallback\n",
                 prefix<T>(), error.c_str());
    return false;
  }
  cuda::store(g.work, optimal_lwork(g));
  *g.info = 0;
  return true;
}

template <class T>
const char* ormqr_declines(const OrmqrCall<T>& g) {
  if (g.side != 'L') return "the GPU applies Q from the left only";
  if (g.k > qr::kGpuMaxWide) return "the GPU applies at most 256 reflectors";
  if (g.n > qr::kGpuMaxWide) return "the GPU applies Q to at most 256 columns";
  return nullptr;
}

template <class T>
bool ormqr_run(const OrmqrCall<T>& g) {
  std::string error;
  if (!qr::ormqr_gpu(g.trans == 'T', g.m, g.n, g.k, g.a, g.lda, g.tau, g.c, g.ldc, error)) {
    std::fprintf(stderr, "switchyard: %cormqr on the GPU failed (%s); running it in the fallback\n",
                 prefix<T>(), error.c_str());
    return false;
  }
  cuda::store(g.work, optimal_lwork(g));
  *g.info = 0;
  return true;
}

template <class T>
bool orgqr_resident(const OrgqrCall<T>& g) {
  return cuda_device_pointer(g.a);
}

template <class T>
bool ormqr_resident(const OrmqrCall<T>& g) {
  return cuda_device_pointer(g.a) || cuda_device_pointer(g.c);
}

template <class T>
const RouteCost orgqr_cost{
    device::Family::cuda,
    qr::device_seconds<T, sizeof(T) == 8 ? Routine::dorgqr : Routine::sorgqr>};
template <class T>
const RouteCost ormqr_cost{
    device::Family::cuda,
    qr::device_seconds<T, sizeof(T) == 8 ? Routine::dormqr : Routine::sormqr>};

template <class T>
const Implementation<OrgqrCall<T>> gpu_orgqr{cuda::unavailable, orgqr_declines<T>, orgqr_run<T>,
                                             nullptr, nullptr, &orgqr_cost<T>, orgqr_resident<T>};
template <class T>
const Implementation<OrmqrCall<T>> gpu_ormqr{cuda::unavailable, ormqr_declines<T>, ormqr_run<T>,
                                             nullptr, nullptr, &ormqr_cost<T>, ormqr_resident<T>};

// Plugging the routes in: the router sees them from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<OrgqrCall<float>>::gpu = &gpu_orgqr<float>;
  Implementations<OrgqrCall<double>>::gpu = &gpu_orgqr<double>;
  Implementations<OrmqrCall<float>>::gpu = &gpu_ormqr<float>;
  Implementations<OrmqrCall<double>>::gpu = &gpu_ormqr<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
