// The cpu route of sgeqrf/dgeqrf: TSQR on host threads (cpu_tsqr.hpp), the
// row blocks and the stack of their R factors factored by Switchyard's own
// kernels (cpu_leaf.hpp); the fallback library serves the shapes too short
// to split.
//
// It is taken only when forced (SWITCHYARD_ROUTE_DGEQRF=cpu): auto routing
// does not pick it until it is measured to win on a machine and shape
// (cpu-tsqr-timing times it against the fallback's xGEQRF).
#include <thread>

#include "calls.hpp"
#include "dispatch.hpp"
#include "fallback.hpp"
#include "tsqr/cpu_tsqr.hpp"
#include "optimal_lwork.hpp"

namespace switchyard {
namespace {

template <class T> tsqr::Lapack<T> fallback_lapack();
template <> tsqr::Lapack<float> fallback_lapack<float>() {
  const Fallback& f = fallback();
  return {f.sgeqrf};
}
template <> tsqr::Lapack<double> fallback_lapack<double>() {
  const Fallback& f = fallback();
  return {f.dgeqrf};
}

const char* always_usable() { return nullptr; }

template <class T>
const char* declines(const GeqrfCall<T>& g) {
  return g.m < g.n ? "TSQR needs m >= n" : nullptr;
}

template <class T>
bool run(const GeqrfCall<T>& g) {
  const tsqr::Lapack<T> lapack = fallback_lapack<T>();
  const unsigned cores = std::thread::hardware_concurrency();
  if (tsqr::factor_cpu(g.m, g.n, g.a, g.lda, g.tau, lapack, cores ? int(cores) : 1) != tsqr::kOk) {
    return false;
  }
  g.work[0] = optimal_lwork(g);
  *g.info = 0;
  return true;
}

template <class T>
const Implementation<GeqrfCall<T>> cpu_tsqr{
    always_usable, declines<T>, run<T>,
    "the cpu TSQR is taken only when forced (not yet measured to beat the fallback)"};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<GeqrfCall<float>>::cpu = &cpu_tsqr<float>;
  Implementations<GeqrfCall<double>>::cpu = &cpu_tsqr<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
