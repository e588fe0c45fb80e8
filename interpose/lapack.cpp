// The checked xGEQRF of the Fortran entry points, 32-bit and 64-bit.
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

template <class T> struct GeqrfTraits;
template <> struct GeqrfTraits<float> {
  static constexpr Routine routine = Routine::sgeqrf;
  static constexpr const char* srname = "SGEQRF";
  template <class I> static GeqrfFn<float, I>* next() { return next_library<I>().sgeqrf; }
};
template <> struct GeqrfTraits<double> {
  static constexpr Routine routine = Routine::dgeqrf;
  static constexpr const char* srname = "DGEQRF";
  template <class I> static GeqrfFn<double, I>* next() { return next_library<I>().dgeqrf; }
};

// Workspace queries and empty matrices are answered by the fallback, so the
// optimal LWORK a program is told is its own library's.
const char* geqrf_quick_return(int m, int n, int lwork) {
  if (lwork == -1) return "workspace query";
  if (std::min(m, n) == 0) return "quick return: empty A";
  return nullptr;
}

template <class T, class I>
void run_next_geqrf(I m, I n, T* a, I lda, T* tau, T* work, I lwork, I* info) {
  GeqrfTraits<T>::template next<I>()(&m, &n, a, &lda, tau, work, &lwork, info);
}

}  // namespace

template <class T, class I>
void geqrf(I m, I n, T* a, I lda, T* tau, T* work, I lwork, I* info) {
  *info = 0;
  if (int bad = geqrf_argument_error(m, n, lda, lwork)) {
    *info = -bad;
    call_xerbla<I>(GeqrfTraits<T>::srname, bad);
    return;
  }
  const Shape shape{m, n};
  if (!fits_int<I>(m, n, lda, lwork)) {
    return run_too_wide(GeqrfTraits<T>::routine, shape,
                        [&] { run_next_geqrf<T, I>(m, n, a, lda, tau, work, lwork, info); });
  }
  // The routes write INFO as an int; it is 0 or a parameter number, which fits any width.
  int checked_info = 0;
  const GeqrfCall<T> call{int(m), int(n), a, int(lda), tau, work, int(lwork), &checked_info};
  dispatch(GeqrfTraits<T>::routine, shape, geqrf_quick_return(call.m, call.n, call.lwork), call,
           [](const GeqrfCall<T>& g) {
             I next_info = 0;
             run_next_geqrf<T, I>(g.m, g.n, g.a, g.lda, g.tau, g.work, g.lwork, &next_info);
             *g.info = int(next_info);
           });
  *info = checked_info;
}

template void geqrf<float, int>(int, int, float*, int, float*, float*, int, int*);
template void geqrf<double, int>(int, int, double*, int, double*, double*, int, int*);
template void geqrf<float, std::int64_t>(std::int64_t, std::int64_t, float*, std::int64_t,
                                         float*, float*, std::int64_t, std::int64_t*);
template void geqrf<double, std::int64_t>(std::int64_t, std::int64_t, double*, std::int64_t,
                                          double*, double*, std::int64_t, std::int64_t*);

}  // namespace switchyard
