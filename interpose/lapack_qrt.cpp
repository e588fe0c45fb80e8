// The checked xGEQRT and xGEMQRT of the Fortran entry points, in every convention: the compact-WY
// forms of xGEQRF and xORMQR, routed as those are (docs/qr-apply.md, "xGEQRT and xGEMQRT").
//
// Each is weighed by the router as the xGEQRF or xORMQR it amounts to, and traced and reported
// under that name: a call the router keeps goes to the fallback's own xGEQRT or xGEMQRT, as the
// program made it; one it sends to a route runs there, xGEQRT's T then made from V and tau.
#include <algorithm>
#include <cstdint>

#include "checks.hpp"
#include "compact_wy.hpp"
#include "convention.hpp"
#include "entry.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

template <class T>
struct QrtTraits;
template <>
struct QrtTraits<float> {
  static constexpr const char *geqrt_name = "SGEQRT", *gemqrt_name = "SGEMQRT";
  template <class C>
  static GeqrtFn<float, Int<C>>* next_geqrt() {
    return required(C::next().sgeqrt, "sgeqrt_");
  }
  template <class C>
  static GemqrtFn<float, Int<C>>* next_gemqrt() {
    return required(C::next().sgemqrt, "sgemqrt_");
  }
};
template <>
struct QrtTraits<double> {
  static constexpr const char *geqrt_name = "DGEQRT", *gemqrt_name = "DGEMQRT";
  template <class C>
  static GeqrtFn<double, Int<C>>* next_geqrt() {
    return required(C::next().dgeqrt, "dgeqrt_");
  }
  template <class C>
  static GemqrtFn<double, Int<C>>* next_gemqrt() {
    return required(C::next().dgemqrt, "dgemqrt_");
  }
};

}  // namespace

template <class C, class T>
void geqrt(Int<C> m, Int<C> n, Int<C> nb, T* a, Int<C> lda, T* t, Int<C> ldt, T* work,
           Int<C>* info) {
  C::check_library();
  *info = 0;
  if (int bad = geqrt_argument_error(m, n, nb, lda, ldt)) {
    *info = -bad;
    call_xerbla<C>(QrtTraits<T>::geqrt_name, bad);
    return;
  }
  const auto run_next = [&] {
    QrtTraits<T>::template next_geqrt<C>()(&m, &n, &nb, a, &lda, t, &ldt, work, info);
  };
  if (!fits_int<C>(m, n, nb, lda, ldt)) {
    return run_too_wide(geqrf_routine<T>, Shape{m, n}, run_next);
  }
  // WORK (NB x N, at least N) serves the xGEQRF, whose routes write only WORK(1).
  factor_compact_wy<C>(m, n, nb, a, lda, t, ldt, work, std::int64_t(nb) * n, info,
                       compact_wy_factor_quick_return(m, n), run_next);
}

template <class C, class T>
void gemqrt(char side, char trans, Int<C> m, Int<C> n, Int<C> k, Int<C> nb, const T* v, Int<C> ldv,
            const T* t, Int<C> ldt, T* c, Int<C> ldc, T* work, Int<C>* info) {
  C::check_library();
  *info = 0;
  if (int bad = gemqrt_argument_error(side, trans, m, n, k, nb, ldv, ldt, ldc)) {
    *info = -bad;
    call_xerbla<C>(QrtTraits<T>::gemqrt_name, bad);
    return;
  }
  const char s = upper_letter(side), tr = upper_letter(trans);
  const auto run_next = [&] {
    QrtTraits<T>::template next_gemqrt<C>()(&s, &tr, &m, &n, &k, &nb, v, &ldv, t, &ldt, c, &ldc,
                                            work, info, 1, 1);
  };
  if (!fits_int<C>(m, n, k, nb, ldv, ldt, ldc)) {
    return run_too_wide(ormqr_routine<T>, Shape{m, n, k, s, tr}, run_next);
  }
  // WORK holds NB columns of the side of C that Q does not act on, more than xORMQR's minimum.
  const std::int64_t lwork = std::int64_t(nb) * std::max<Int<C>>(1, s == 'L' ? n : m);
  apply_compact_wy<C>(s, tr, m, n, k, nb, v, ldv, t, ldt, c, ldc, work, lwork, info,
                      compact_wy_apply_quick_return(m, n, k), run_next);
}

// Every convention's entries.
template decltype(geqrt<Lp64, float>) geqrt<Lp64, float>;
template decltype(geqrt<Lp64, double>) geqrt<Lp64, double>;
template decltype(gemqrt<Lp64, float>) gemqrt<Lp64, float>;
template decltype(gemqrt<Lp64, double>) gemqrt<Lp64, double>;
template decltype(geqrt<Ilp64, float>) geqrt<Ilp64, float>;
template decltype(geqrt<Ilp64, double>) geqrt<Ilp64, double>;
template decltype(gemqrt<Ilp64, float>) gemqrt<Ilp64, float>;
template decltype(gemqrt<Ilp64, double>) gemqrt<Ilp64, double>;
template decltype(geqrt<ScipyOpenblas32, float>) geqrt<ScipyOpenblas32, float>;
template decltype(geqrt<ScipyOpenblas32, double>) geqrt<ScipyOpenblas32, double>;
template decltype(gemqrt<ScipyOpenblas32, float>) gemqrt<ScipyOpenblas32, float>;
template decltype(gemqrt<ScipyOpenblas32, double>) gemqrt<ScipyOpenblas32, double>;
template decltype(geqrt<ScipyOpenblas64, float>) geqrt<ScipyOpenblas64, float>;
template decltype(geqrt<ScipyOpenblas64, double>) geqrt<ScipyOpenblas64, double>;
template decltype(gemqrt<ScipyOpenblas64, float>) gemqrt<ScipyOpenblas64, float>;
template decltype(gemqrt<ScipyOpenblas64, double>) gemqrt<ScipyOpenblas64, double>;

}  // namespace switchyard
