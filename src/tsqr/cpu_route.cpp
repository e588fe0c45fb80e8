// The cpu routes of sgeqrf/dgeqrf and sgeqp3/dgeqp3: TSQR on host threads (cpu_tsqr.hpp), the
// row blocks and the stack of their R factors factored by Switchyard's own kernels
// (cpu_leaf.hpp), and for xGEQP3 the fallback's pivoted QR of the n x n R between the reduction
// and the reconstruction; the fallback library serves the shapes too short to split.
//
// The router takes a route where the model (calibration.hpp: its rate and the fallback's, both
// measured by `switchyard calibrate` on this host or shipped) puts it ahead of the fallback, and
// no device route ahead of it. xGEQP3 is weighed as the xGEQRF of its shape on both sides: the
// pivoting adds n x n work to the TSQR, and the fallback's xGEQP3 takes at least its xGEQRF's
// time (calibration.cpp). The routes run on as many threads as the fallback would
// (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, else every core), so that a program that limits its
// BLAS's threads limits them too, shared among the calls on the host's cores that run at once
// (host_route_threads.hpp).
#include "calibration.hpp"
#include "calls.hpp"
#include "dispatch.hpp"
#include "fallback.hpp"
#include "host_route_first_call.hpp"
#include "host_route_threads.hpp"
#include "optimal_lwork.hpp"
#include "tsqr/cpu_tsqr.hpp"
#include "tsqr/lapack_table.hpp"

namespace switchyard {
namespace {

const char* always_usable() { return nullptr; }

template <class T>
const char* declines(const GeqrfCall<T>& g) {
  return g.m < g.n ? "TSQR needs m >= n" : nullptr;
}

template <class T>
bool run(const GeqrfCall<T>& g) {
  const tsqr::Lapack<T> lapack = tsqr::fallback_lapack<T>();
  const HostRouteThreads threads;
  if (tsqr::factor_cpu(g.m, g.n, g.a, g.lda, g.tau, lapack, threads.count()) != tsqr::kOk) {
    return false;
  }
  note_host_route_run();
  g.work[0] = optimal_lwork(g);
  *g.info = 0;
  return true;
}

// A 64-bit call whose rows pass 2^31 (calls.hpp): the same TSQR, WORK(1) from the 64-bit
// fallback's own answer.
template <class T>
const char* declines_wide(const GeqrfWideCall<T>& g) {
  return g.m < g.n ? "TSQR needs m >= n" : nullptr;
}

template <class T>
bool run_wide(const GeqrfWideCall<T>& g) {
  const HostRouteThreads threads;
  if (tsqr::factor_cpu(g.m, g.n, g.a, g.lda, g.tau, tsqr::fallback_lapack<T>(), threads.count()) !=
      tsqr::kOk) {
    return false;
  }
  note_host_route_run();
  g.work[0] = g.optimal_lwork;
  *g.info = 0;
  return true;
}

template <class T>
const char* declines_pivoted(const Geqp3Call<T>& g) {
  return g.m < g.n ? "TSQR needs m >= n" : nullptr;
}

template <class T>
bool run_pivoted(const Geqp3Call<T>& g) {
  T work1{};
  const HostRouteThreads threads;
  if (tsqr::factor_pivoted_cpu(g.m, g.n, g.a, g.lda, g.jpvt, g.tau, tsqr::fallback_lapack<T>(),
                               threads.count(), &work1) != tsqr::kOk) {
    return false;
  }
  note_host_route_run();
  g.work[0] = work1;
  *g.info = 0;
  return true;
}

template <class T>
double seconds(const Shape& s, const HostFigures& figures) {
  return cpu_tsqr_seconds(figures.cpu_tsqr, sizeof(T) == 8 ? Routine::dgeqrf : Routine::sgeqrf, s);
}

template <class T>
const RouteCost cost{std::nullopt, seconds<T>, host_route_first_call_seconds};

template <class T>
const Implementation<GeqrfCall<T>> cpu_tsqr{always_usable, declines<T>, run<T>,
                                            nullptr,       nullptr,     &cost<T>};

template <class T>
const Implementation<GeqrfWideCall<T>> cpu_tsqr_wide{always_usable, declines_wide<T>, run_wide<T>,
                                                     nullptr,       nullptr,          &cost<T>};

template <class T>
const Implementation<Geqp3Call<T>> cpu_pivoted_tsqr{
    always_usable, declines_pivoted<T>, run_pivoted<T>, nullptr, nullptr, &cost<T>};

// Plugging the routes in: the router sees them from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<Geqp3Call<float>>::cpu = &cpu_pivoted_tsqr<float>;
  Implementations<Geqp3Call<double>>::cpu = &cpu_pivoted_tsqr<double>;
  Implementations<GeqrfCall<float>>::cpu = &cpu_tsqr<float>;
  Implementations<GeqrfCall<double>>::cpu = &cpu_tsqr<double>;
  Implementations<GeqrfWideCall<float>>::cpu = &cpu_tsqr_wide<float>;
  Implementations<GeqrfWideCall<double>>::cpu = &cpu_tsqr_wide<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
