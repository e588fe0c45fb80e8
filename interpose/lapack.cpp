// Fortran LAPACK entry points: sgeqrf_, dgeqrf_ and their unsuffixed aliases.
#include <algorithm>

#include "calls.hpp"
#include "checks.hpp"
#include "dispatch.hpp"
#include "entry.hpp"
#include "export.hpp"
#include "fallback.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

template <class T> struct GeqrfTraits;
template <> struct GeqrfTraits<float> {
  static constexpr Routine routine = Routine::sgeqrf;
  static constexpr const char* srname = "SGEQRF";
  static GeqrfFn<float>* next() { return fallback().sgeqrf; }
};
template <> struct GeqrfTraits<double> {
  static constexpr Routine routine = Routine::dgeqrf;
  static constexpr const char* srname = "DGEQRF";
  static GeqrfFn<double>* next() { return fallback().dgeqrf; }
};

// Workspace queries and empty matrices are answered by the fallback, so the
// optimal LWORK a program is told is its own library's.
const char* geqrf_quick_return(int m, int n, int lwork) {
  if (lwork == -1) return "workspace query";
  if (std::min(m, n) == 0) return "quick return: empty A";
  return nullptr;
}

template <class T>
void run_geqrf_fallback(const GeqrfCall<T>& g) {
  GeqrfTraits<T>::next()(&g.m, &g.n, g.a, &g.lda, g.tau, g.work, &g.lwork, g.info);
}

}  // namespace

template <class T>
void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) {
  *info = 0;
  if (int bad = geqrf_argument_error(m, n, lda, lwork)) {
    *info = -bad;
    call_xerbla(GeqrfTraits<T>::srname, bad);
    return;
  }
  const GeqrfCall<T> call{m, n, a, lda, tau, work, lwork, info};
  const Shape shape{m, n};
  dispatch(GeqrfTraits<T>::routine, shape, geqrf_quick_return(m, n, lwork), call,
           run_geqrf_fallback<T>);
}

template void geqrf<float>(int, int, float*, int, float*, float*, int, int*);
template void geqrf<double>(int, int, double*, int, double*, double*, int, int*);

}  // namespace switchyard

SWITCHYARD_EXPORT void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau,
                               float* work, const int* lwork, int* info) {
  switchyard::geqrf(*m, *n, a, *lda, tau, work, *lwork, info);
}

SWITCHYARD_EXPORT void dgeqrf_(const int* m, const int* n, double* a, const int* lda,
                               double* tau, double* work, const int* lwork, int* info) {
  switchyard::geqrf(*m, *n, a, *lda, tau, work, *lwork, info);
}

SWITCHYARD_EXPORT void sgeqrf(const int*, const int*, float*, const int*, float*, float*,
                              const int*, int*) SWITCHYARD_ALIAS(sgeqrf_);
SWITCHYARD_EXPORT void dgeqrf(const int*, const int*, double*, const int*, double*, double*,
                              const int*, int*) SWITCHYARD_ALIAS(dgeqrf_);
