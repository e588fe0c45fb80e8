// Fortran LAPACK entry points of the routines that consume xGEQRF's output: sorgqr_,
// dorgqr_, sormqr_, dormqr_ and their unsuffixed aliases.
#include <cstddef>

#include "calls.hpp"
#include "checks.hpp"
#include "dispatch.hpp"
#include "export.hpp"
#include "fallback.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

template <class T> struct QTraits;
template <> struct QTraits<float> {
  static constexpr Routine orgqr = Routine::sorgqr, ormqr = Routine::sormqr;
  static constexpr const char *orgqr_name = "SORGQR", *ormqr_name = "SORMQR";
  static OrgqrFn<float>* next_orgqr() { return fallback().sorgqr; }
  static OrmqrFn<float>* next_ormqr() { return fallback().sormqr; }
};
template <> struct QTraits<double> {
  static constexpr Routine orgqr = Routine::dorgqr, ormqr = Routine::dormqr;
  static constexpr const char *orgqr_name = "DORGQR", *ormqr_name = "DORMQR";
  static OrgqrFn<double>* next_orgqr() { return fallback().dorgqr; }
  static OrmqrFn<double>* next_ormqr() { return fallback().dormqr; }
};

// As for xGEQRF, workspace queries and quick returns are the fallback's, so WORK(1) is what
// the program's own library says.
const char* orgqr_quick_return(int n, int lwork) {
  if (lwork == -1) return "workspace query";
  if (n == 0) return "quick return: empty Q";
  return nullptr;
}

const char* ormqr_quick_return(int m, int n, int k, int lwork) {
  if (lwork == -1) return "workspace query";
  if (m == 0 || n == 0 || k == 0) return "quick return: empty C or no reflectors";
  return nullptr;
}

template <class T>
void run_orgqr_fallback(const OrgqrCall<T>& g) {
  QTraits<T>::next_orgqr()(&g.m, &g.n, &g.k, g.a, &g.lda, g.tau, g.work, &g.lwork, g.info);
}

template <class T>
void run_ormqr_fallback(const OrmqrCall<T>& g) {
  QTraits<T>::next_ormqr()(&g.side, &g.trans, &g.m, &g.n, &g.k, g.a, &g.lda, g.tau, g.c,
                           &g.ldc, g.work, &g.lwork, g.info, 1, 1);
}

}  // namespace

template <class T>
void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, int* info) {
  *info = 0;
  if (int bad = orgqr_argument_error(m, n, k, lda, lwork)) {
    *info = -bad;
    call_xerbla(QTraits<T>::orgqr_name, bad);
    return;
  }
  const OrgqrCall<T> call{m, n, k, a, lda, tau, work, lwork, info};
  const Shape shape{m, n, k};
  dispatch(QTraits<T>::orgqr, shape, orgqr_quick_return(n, lwork), call, run_orgqr_fallback<T>);
}

template <class T>
void ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c,
           int ldc, T* work, int lwork, int* info) {
  *info = 0;
  if (int bad = ormqr_argument_error(side, trans, m, n, k, lda, ldc, lwork)) {
    *info = -bad;
    call_xerbla(QTraits<T>::ormqr_name, bad);
    return;
  }
  const OrmqrCall<T> call{upper_letter(side), upper_letter(trans), m, n, k, a, lda, tau,
                          c, ldc, work, lwork, info};
  const Shape shape{m, n, k, call.side, call.trans};
  dispatch(QTraits<T>::ormqr, shape, ormqr_quick_return(m, n, k, lwork), call,
           run_ormqr_fallback<T>);
}

}  // namespace switchyard

SWITCHYARD_EXPORT void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda,
                               const float* tau, float* work, const int* lwork, int* info) {
  switchyard::orgqr(*m, *n, *k, a, *lda, tau, work, *lwork, info);
}

SWITCHYARD_EXPORT void dorgqr_(const int* m, const int* n, const int* k, double* a,
                               const int* lda, const double* tau, double* work, const int* lwork,
                               int* info) {
  switchyard::orgqr(*m, *n, *k, a, *lda, tau, work, *lwork, info);
}

SWITCHYARD_EXPORT void sormqr_(const char* side, const char* trans, const int* m, const int* n,
                               const int* k, const float* a, const int* lda, const float* tau,
                               float* c, const int* ldc, float* work, const int* lwork, int* info,
                               std::size_t, std::size_t) {
  switchyard::ormqr(*side, *trans, *m, *n, *k, a, *lda, tau, c, *ldc, work, *lwork, info);
}

SWITCHYARD_EXPORT void dormqr_(const char* side, const char* trans, const int* m, const int* n,
                               const int* k, const double* a, const int* lda, const double* tau,
                               double* c, const int* ldc, double* work, const int* lwork,
                               int* info, std::size_t, std::size_t) {
  switchyard::ormqr(*side, *trans, *m, *n, *k, a, *lda, tau, c, *ldc, work, *lwork, info);
}

SWITCHYARD_EXPORT void sorgqr(const int*, const int*, const int*, float*, const int*, const float*,
                              float*, const int*, int*) SWITCHYARD_ALIAS(sorgqr_);
SWITCHYARD_EXPORT void dorgqr(const int*, const int*, const int*, double*, const int*,
                              const double*, double*, const int*, int*) SWITCHYARD_ALIAS(dorgqr_);
SWITCHYARD_EXPORT void sormqr(const char*, const char*, const int*, const int*, const int*,
                              const float*, const int*, const float*, float*, const int*, float*,
                              const int*, int*, std::size_t, std::size_t) SWITCHYARD_ALIAS(sormqr_);
SWITCHYARD_EXPORT void dormqr(const char*, const char*, const int*, const int*, const int*,
                              const double*, const int*, const double*, double*, const int*,
                              double*, const int*, int*, std::size_t,
                              std::size_t) SWITCHYARD_ALIAS(dormqr_);
