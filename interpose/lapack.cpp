// The checked xGEQRF of the Fortran entry points, in every convention.
#include <algorithm>
#include <cstdint>

#include "calls.hpp"
#include "checks.hpp"
#include "convention.hpp"
#include "dispatch.hpp"
#include "entry.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

template <class T>
struct GeqrfTraits;
template <>
struct GeqrfTraits<float> {
  static constexpr Routine routine = Routine::sgeqrf;
  static constexpr const char* srname = "SGEQRF";
  template <class C>
  static GeqrfFn<float, Int<C>>* next() {
    return C::next().sgeqrf;
  }
};
template <>
struct GeqrfTraits<double> {
  static constexpr Routine routine = Routine::dgeqrf;
  static constexpr const char* srname = "DGEQRF";
  template <class C>
  static GeqrfFn<double, Int<C>>* next() {
    return C::next().dgeqrf;
  }
};

// Workspace queries and empty matrices are answered by the fallback, so the
// optimal LWORK a program is told is its own library's.
template <class I>
const char* geqrf_quick_return(I m, I n, I lwork) {
  if (lwork == -1) return "workspace query";
  if (std::min(m, n) == 0) return "quick return: empty A";
  return nullptr;
}

template <class C, class T>
void run_next_geqrf(Int<C> m, Int<C> n, T* a, Int<C> lda, T* tau, T* work, Int<C> lwork,
                    Int<C>* info) {
  GeqrfTraits<T>::template next<C>()(&m, &n, a, &lda, tau, work, &lwork, info);
}

}  // namespace

template <class C, class T>
void geqrf(Int<C> m, Int<C> n, T* a, Int<C> lda, T* tau, T* work, Int<C> lwork, Int<C>* info) {
  C::check_library();
  *info = 0;
  if (int bad = geqrf_argument_error(m, n, lda, lwork)) {
    *info = -bad;
    call_xerbla<C>(GeqrfTraits<T>::srname, bad);
    return;
  }
  const Shape shape{m, n};
  if (!fits_int<C>(m, n, lda, lwork)) {
    if (!fits_int<C>(n, lwork)) {
      return run_too_wide(GeqrfTraits<T>::routine, shape,
                          [&] { run_next_geqrf<C, T>(m, n, a, lda, tau, work, lwork, info); });
    }
    // Only the rows (or LDA) pass 2^31: the CPU TSQR may take them.
    T optimal = 0;
    Int<C> query_info = 0;
    const char* quick = geqrf_quick_return(m, n, lwork);
    if (!quick) run_next_geqrf<C, T>(m, n, a, lda, tau, &optimal, Int<C>(-1), &query_info);
    int checked_info = 0;
    const GeqrfWideCall<T> call{std::int64_t(m),   int(n),  a,
                                std::int64_t(lda), tau,     work,
                                int(lwork),        optimal, &checked_info};
    dispatch(GeqrfTraits<T>::routine, shape, quick, C::figures, call,
             [](const GeqrfWideCall<T>& g) {
               Int<C> next_info = 0;
               run_next_geqrf<C, T>(g.m, g.n, g.a, g.lda, g.tau, g.work, g.lwork, &next_info);
               *g.info = int(next_info);
             });
    *info = checked_info;
    return;
  }
  // The routes write INFO as an int; it is 0 or a parameter number, which fits any width.
  int checked_info = 0;
  const GeqrfCall<T> call{int(m), int(n), a, int(lda), tau, work, int(lwork), &checked_info};
  dispatch(GeqrfTraits<T>::routine, shape, geqrf_quick_return(call.m, call.n, call.lwork),
           C::figures, call, [](const GeqrfCall<T>& g) {
             Int<C> next_info = 0;
             run_next_geqrf<C, T>(g.m, g.n, g.a, g.lda, g.tau, g.work, g.lwork, &next_info);
             *g.info = int(next_info);
           });
  *info = checked_info;
}

// Every convention's entries.
template decltype(geqrf<Lp64, float>) geqrf<Lp64, float>;
template decltype(geqrf<Lp64, double>) geqrf<Lp64, double>;
template decltype(geqrf<Ilp64, float>) geqrf<Ilp64, float>;
template decltype(geqrf<Ilp64, double>) geqrf<Ilp64, double>;
template decltype(geqrf<ScipyOpenblas32, float>) geqrf<ScipyOpenblas32, float>;
template decltype(geqrf<ScipyOpenblas32, double>) geqrf<ScipyOpenblas32, double>;
template decltype(geqrf<ScipyOpenblas64, float>) geqrf<ScipyOpenblas64, float>;
template decltype(geqrf<ScipyOpenblas64, double>) geqrf<ScipyOpenblas64, double>;

}  // namespace switchyard
