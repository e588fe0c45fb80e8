// The checked xGEQRT and xGEMQRT of the Fortran entry points, in every convention: the compact-WY
// forms of xGEQRF and xORMQR, routed as those are (docs/qr-apply.md, "xGEQRT and xGEMQRT").
//
// Each is weighed by the router as the xGEQRF or xORMQR it amounts to, and traced and reported
// under that name: a call the router keeps goes to the fallback's own xGEQRT or xGEMQRT, as the
// program made it; one it sends to a route runs there, xGEQRT's T then made from V and tau.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "calls.hpp"
#include "checks.hpp"
#include "convention.hpp"
#include "dispatch.hpp"
#include "entry.hpp"
#include "qr/block_factors.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

template <class T>
struct QrtTraits;
template <>
struct QrtTraits<float> {
  static constexpr Routine geqrf = Routine::sgeqrf, ormqr = Routine::sormqr;
  static constexpr const char *geqrt_name = "SGEQRT", *gemqrt_name = "SGEMQRT";
  template <class C>
  static GeqrtFn<float, Int<C>>* next_geqrt() {
    return required(C::next().sgeqrt, "sgeqrt_");
  }
  template <class C>
  static GemqrtFn<float, Int<C>>* next_gemqrt() {
    return required(C::next().sgemqrt, "sgemqrt_");
  }
  template <class C>
  static SyrkFn<float, Int<C>>* next_syrk() {
    return C::next().ssyrk;
  }
};
template <>
struct QrtTraits<double> {
  static constexpr Routine geqrf = Routine::dgeqrf, ormqr = Routine::dormqr;
  static constexpr const char *geqrt_name = "DGEQRT", *gemqrt_name = "DGEMQRT";
  template <class C>
  static GeqrtFn<double, Int<C>>* next_geqrt() {
    return required(C::next().dgeqrt, "dgeqrt_");
  }
  template <class C>
  static GemqrtFn<double, Int<C>>* next_gemqrt() {
    return required(C::next().dgemqrt, "dgemqrt_");
  }
  template <class C>
  static SyrkFn<double, Int<C>>* next_syrk() {
    return C::next().dsyrk;
  }
};

// The fallback answers empty calls, as it answers xGEQRF's and xORMQR's.
const char* geqrt_quick_return(std::int64_t m, std::int64_t n) {
  return std::min(m, n) == 0 ? "quick return: empty A" : nullptr;
}

const char* gemqrt_quick_return(std::int64_t m, std::int64_t n, std::int64_t k) {
  return m == 0 || n == 0 || k == 0 ? "quick return: empty C or no reflectors" : nullptr;
}

}  // namespace

// Switchyard's own xSYRK of convention C, as a BLAS function: the Gram products of
// form_block_factors go through the router too.
template <class C, class T>
void routed_syrk(const char* uplo, const char* trans, const Int<C>* n, const Int<C>* k,
                 const T* alpha, const T* a, const Int<C>* lda, const T* beta, T* c,
                 const Int<C>* ldc, std::size_t, std::size_t) {
  syrk<C, T>(*uplo, *trans, *n, *k, *alpha, a, *lda, *beta, c, *ldc);
}

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
  const Shape shape{m, n};
  if (!fits_int<C>(m, n, nb, lda, ldt)) return run_too_wide(QrtTraits<T>::geqrf, shape, run_next);
  // The router weighs the call as the xGEQRF it holds, with a tau of our own; WORK (NB x N, at
  // least N) serves as that xGEQRF's, whose routes write only WORK(1).
  std::vector<T> tau(static_cast<std::size_t>(std::min(m, n)));
  const int work_size = int(std::min<std::int64_t>(INT_MAX, std::int64_t(nb) * n));
  int checked_info = 0;
  bool kept = false;
  const GeqrfCall<T> call{int(m), int(n), a, int(lda), tau.data(), work, work_size, &checked_info};
  dispatch(QrtTraits<T>::geqrf, shape, geqrt_quick_return(m, n), C::figures(), call,
           [&](const GeqrfCall<T>&) {
             kept = true;
             run_next();
           });
  if (kept) return;
  // T from V's Gram matrices, through the routed xSYRK, which the router weighs as any other:
  // a Gram product of NB columns over every row is the shape BLAS libraries run worst. On the
  // H200 host OpenBLAS's dsyrk made T of 2^22 x 64 (NB = 32) in about 650 ms, against 104 ms
  // for the factorization itself on the device.
  form_block_factors(&routed_syrk<C, T>, int(m), int(n), int(nb), a, int(lda), tau.data(), t,
                     int(ldt));
  *info = checked_info;
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
  const Shape shape{m, n, k, s, tr};
  if (!fits_int<C>(m, n, k, nb, ldv, ldt, ldc)) {
    return run_too_wide(QrtTraits<T>::ormqr, shape, run_next);
  }
  // The same Q as xORMQR with each reflector's tau, read off T's diagonal. WORK holds NB
  // columns of the side of C that Q does not act on, more than xORMQR's minimum LWORK.
  std::vector<T> tau(static_cast<std::size_t>(k));
  taus_of_block_factors(int(k), int(nb), t, int(ldt), tau.data());
  const int lwork = int(
      std::min<std::int64_t>(INT_MAX, std::int64_t(nb) * std::max<Int<C>>(1, s == 'L' ? n : m)));
  int checked_info = 0;
  const OrmqrCall<T> call{s, tr,       int(m), int(n), int(k),       v, int(ldv), tau.data(),
                          c, int(ldc), work,   lwork,  &checked_info};
  bool kept = false;
  dispatch(QrtTraits<T>::ormqr, shape, gemqrt_quick_return(m, n, k), C::figures(), call,
           [&](const OrmqrCall<T>&) {
             kept = true;
             run_next();
           });
  if (!kept) *info = checked_info;
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
