// The cpu route of sgeqrf/dgeqrf: TSQR on host threads (cpu_tsqr.hpp), with
// the fallback library factoring the row blocks.
//
// It is taken only when forced (SWITCHYARD_ROUTE_DGEQRF=cpu): measured on a
// 2-core machine with reference BLAS it does 3x dgeqrf's flops and is about
// 1.25x slower than the fallback's dgeqrf at 2^20 x 32, so auto routing
// does not pick it until it is measured to win on a machine and shape.
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
  return {f.sgeqrf, f.sorgqr, f.sgemm, f.strsm};
}
template <> tsqr::Lapack<double> fallback_lapack<double>() {
  const Fallback& f = fallback();
  return {f.dgeqrf, f.dorgqr, f.dgemm, f.dtrsm};
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
