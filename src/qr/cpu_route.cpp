// The cpu routes of xORGQR and xORMQR (SIDE = 'L'): Q formed or applied in compact-WY blocks
// on host threads (cpu_apply_q.hpp), from reflectors of any xGEQRF, for the tall-skinny shapes
// past the QR thresholds.
//
// Their model is their own flops at the CPU TSQR's rate on the shape (calibration.hpp), scaled
// by the least that the apply kernels were measured to reach against it, so that it errs on
// the slow side; it is as certain as the CPU TSQR's figures it is drawn from, and a process's
// first call on the host's cores pays that call's extra (host_route_first_call.hpp). They run on
// as many threads as the fallback would, shared among the calls on the host's cores that run at
// once (host_route_threads.hpp).
#include <algorithm>

#include "calibration.hpp"
#include "calls.hpp"
#include "dispatch.hpp"
#include "host_route_first_call.hpp"
#include "host_route_threads.hpp"
#include "optimal_lwork.hpp"
#include "qr/cpu_apply_q.hpp"

namespace switchyard {
namespace {

// The CPU TSQR's widest calibrated width, and the widest Q and C these routes take: past it a
// blocked xORGQR or xORMQR runs its updates as large gemms, which the fallback does well.
constexpr int kMaxWidth = 256;

// What the apply kernels reach, in their own flops (cpu_apply_q.hpp), against the CPU TSQR's
// calibrated rate in xGEQRF's flops on a matrix of the reflectors' shape, on the 2-core AVX2
// host (docs/qr-apply.md, "On the CPU"): dorgqr 2.2 to 3.0 times (2^16 to 2^20 rows, 32 to 256
// reflectors), dormqr 1.55 to 2.5 times (1 to 32 columns of C). The least of each, rounded
// down, so that the model errs on the slow side.
constexpr double kOrgqrShare = 2.2;
constexpr double kOrmqrShare = 1.5;

const char* always_usable() { return nullptr; }

template <class T>
const char* orgqr_declines(const OrgqrCall<T>& g) {
  return g.n > kMaxWidth ? "the cpu route forms at most 256 columns of Q" : nullptr;
}

template <class T>
bool orgqr_run(const OrgqrCall<T>& g) {
  const HostRouteThreads threads;
  if (qr::form_q_cpu(g.m, g.n, g.k, g.a, g.lda, g.tau, threads.count()) != qr::kCpuApplied) {
    return false;
  }
  note_host_route_run();
  g.work[0] = optimal_lwork(g);
  *g.info = 0;
  return true;
}

template <class T>
const char* ormqr_declines(const OrmqrCall<T>& g) {
  if (g.side != 'L') return "the cpu route applies Q from the left only";
  if (g.k > kMaxWidth) return "the cpu route applies at most 256 reflectors";
  if (g.n > kMaxWidth) return "the cpu route applies Q to at most 256 columns";
  return nullptr;
}

template <class T>
bool ormqr_run(const OrmqrCall<T>& g) {
  const HostRouteThreads threads;
  if (qr::apply_q_cpu(g.trans == 'T', g.m, g.n, g.k, g.a, g.lda, g.tau, g.c, g.ldc,
                      threads.count()) != qr::kCpuApplied) {
    return false;
  }
  note_host_route_run();
  g.work[0] = optimal_lwork(g);
  *g.info = 0;
  return true;
}

// The CPU TSQR's modelled rate (GFLOP/s) on m rows and k columns.
template <class T>
double tsqr_gflops(double m, double k, const HostFigures& figures) {
  const Routine geqrf = sizeof(T) == 8 ? Routine::dgeqrf : Routine::sgeqrf;
  const Shape s{std::int64_t(m), std::int64_t(k)};
  return routine_flops(geqrf, s) / (cpu_tsqr_seconds(figures.cpu_tsqr, geqrf, s) * 1e9);
}

// Shape: m x n Q, k reflectors.
template <class T>
double orgqr_seconds(const Shape& s, const HostFigures& figures) {
  const double flops = qr::form_q_flops(double(s.m), int(s.n), int(s.k));
  const double gflops = kOrgqrShare * tsqr_gflops<T>(double(s.m), double(s.k), figures);
  return figures.cpu_tsqr.call_s + flops / (gflops * 1e9);
}

// Shape: m x n C, k reflectors, SIDE in transa.
template <class T>
double ormqr_seconds(const Shape& s, const HostFigures& figures) {
  const double flops = qr::apply_q_flops(double(s.m), int(s.n), int(s.k));
  const double gflops = kOrmqrShare * tsqr_gflops<T>(double(s.m), double(s.k), figures);
  return figures.cpu_tsqr.call_s + flops / (gflops * 1e9);
}

template <class T>
const RouteCost orgqr_cost{std::nullopt, orgqr_seconds<T>, host_route_first_call_seconds};
template <class T>
const RouteCost ormqr_cost{std::nullopt, ormqr_seconds<T>, host_route_first_call_seconds};

template <class T>
const Implementation<OrgqrCall<T>> cpu_orgqr{always_usable, orgqr_declines<T>, orgqr_run<T>,
                                             nullptr,       nullptr,           &orgqr_cost<T>};
template <class T>
const Implementation<OrmqrCall<T>> cpu_ormqr{always_usable, ormqr_declines<T>, ormqr_run<T>,
                                             nullptr,       nullptr,           &ormqr_cost<T>};

// Plugging the routes in: the router sees them from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<OrgqrCall<float>>::cpu = &cpu_orgqr<float>;
  Implementations<OrgqrCall<double>>::cpu = &cpu_orgqr<double>;
  Implementations<OrmqrCall<float>>::cpu = &cpu_ormqr<float>;
  Implementations<OrmqrCall<double>>::cpu = &cpu_ormqr<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
