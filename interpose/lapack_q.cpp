// The checked xORGQR and xORMQR of the Fortran entry points, in every convention: the routines
// that consume xGEQRF's output.
#include <cstddef>
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
struct QTraits;
template <>
struct QTraits<float> {
  static constexpr Routine orgqr = Routine::sorgqr, ormqr = Routine::sormqr;
  static constexpr const char *orgqr_name = "SORGQR", *ormqr_name = "SORMQR";
  template <class C>
  static OrgqrFn<float, Int<C>>* next_orgqr() {
    return C::next().sorgqr;
  }
  template <class C>
  static OrmqrFn<float, Int<C>>* next_ormqr() {
    return C::next().sormqr;
  }
};
template <>
struct QTraits<double> {
  static constexpr Routine orgqr = Routine::dorgqr, ormqr = Routine::dormqr;
  static constexpr const char *orgqr_name = "DORGQR", *ormqr_name = "DORMQR";
  template <class C>
  static OrgqrFn<double, Int<C>>* next_orgqr() {
    return C::next().dorgqr;
  }
  template <class C>
  static OrmqrFn<double, Int<C>>* next_ormqr() {
    return C::next().dormqr;
  }
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

template <class C, class T>
void run_next_orgqr(Int<C> m, Int<C> n, Int<C> k, T* a, Int<C> lda, const T* tau, T* work,
                    Int<C> lwork, Int<C>* info) {
  QTraits<T>::template next_orgqr<C>()(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}

template <class C, class T>
void run_next_ormqr(char side, char trans, Int<C> m, Int<C> n, Int<C> k, const T* a, Int<C> lda,
                    const T* tau, T* c, Int<C> ldc, T* work, Int<C> lwork, Int<C>* info) {
  QTraits<T>::template next_ormqr<C>()(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work,
                                       &lwork, info, 1, 1);
}

}  // namespace

template <class C, class T>
void orgqr(Int<C> m, Int<C> n, Int<C> k, T* a, Int<C> lda, const T* tau, T* work, Int<C> lwork,
           Int<C>* info) {
  C::check_library();
  *info = 0;
  if (int bad = orgqr_argument_error(m, n, k, lda, lwork)) {
    *info = -bad;
    call_xerbla<C>(QTraits<T>::orgqr_name, bad);
    return;
  }
  const Shape shape{m, n, k};
  if (!fits_int<C>(m, n, k, lda, lwork)) {
    return run_too_wide(QTraits<T>::orgqr, shape,
                        [&] { run_next_orgqr<C, T>(m, n, k, a, lda, tau, work, lwork, info); });
  }
  // The routes write INFO as an int; it is 0 or a parameter number, which fits any width.
  int checked_info = 0;
  const OrgqrCall<T> call{int(m), int(n),     int(k),       a, int(lda), tau,
                          work,   int(lwork), &checked_info};
  dispatch(QTraits<T>::orgqr, shape, orgqr_quick_return(call.n, call.lwork), C::figures, call,
           [](const OrgqrCall<T>& g) {
             Int<C> next_info = 0;
             run_next_orgqr<C, T>(g.m, g.n, g.k, g.a, g.lda, g.tau, g.work, g.lwork, &next_info);
             *g.info = int(next_info);
           });
  *info = checked_info;
}

template <class C, class T>
void ormqr(char side, char trans, Int<C> m, Int<C> n, Int<C> k, const T* a, Int<C> lda,
           const T* tau, T* c, Int<C> ldc, T* work, Int<C> lwork, Int<C>* info) {
  C::check_library();
  *info = 0;
  if (int bad = ormqr_argument_error(side, trans, m, n, k, lda, ldc, lwork)) {
    *info = -bad;
    call_xerbla<C>(QTraits<T>::ormqr_name, bad);
    return;
  }
  const char s = upper_letter(side), t = upper_letter(trans);
  const Shape shape{m, n, k, s, t};
  if (!fits_int<C>(m, n, k, lda, ldc, lwork)) {
    return run_too_wide(QTraits<T>::ormqr, shape, [&] {
      run_next_ormqr<C, T>(s, t, m, n, k, a, lda, tau, c, ldc, work, lwork, info);
    });
  }
  int checked_info = 0;  // as for xORGQR
  const OrmqrCall<T> call{s, t,        int(m), int(n),     int(k),       a, int(lda), tau,
                          c, int(ldc), work,   int(lwork), &checked_info};
  dispatch(QTraits<T>::ormqr, shape, ormqr_quick_return(call.m, call.n, call.k, call.lwork),
           C::figures, call, [](const OrmqrCall<T>& g) {
             Int<C> next_info = 0;
             run_next_ormqr<C, T>(g.side, g.trans, g.m, g.n, g.k, g.a, g.lda, g.tau, g.c, g.ldc,
                                  g.work, g.lwork, &next_info);
             *g.info = int(next_info);
           });
  *info = checked_info;
}

// Every convention's entries.
template decltype(orgqr<Lp64, float>) orgqr<Lp64, float>;
template decltype(orgqr<Lp64, double>) orgqr<Lp64, double>;
template decltype(ormqr<Lp64, float>) ormqr<Lp64, float>;
template decltype(ormqr<Lp64, double>) ormqr<Lp64, double>;
template decltype(orgqr<Ilp64, float>) orgqr<Ilp64, float>;
template decltype(orgqr<Ilp64, double>) orgqr<Ilp64, double>;
template decltype(ormqr<Ilp64, float>) ormqr<Ilp64, float>;
template decltype(ormqr<Ilp64, double>) ormqr<Ilp64, double>;
template decltype(orgqr<ScipyOpenblas32, float>) orgqr<ScipyOpenblas32, float>;
template decltype(orgqr<ScipyOpenblas32, double>) orgqr<ScipyOpenblas32, double>;
template decltype(ormqr<ScipyOpenblas32, float>) ormqr<ScipyOpenblas32, float>;
template decltype(ormqr<ScipyOpenblas32, double>) ormqr<ScipyOpenblas32, double>;
template decltype(orgqr<ScipyOpenblas64, float>) orgqr<ScipyOpenblas64, float>;
template decltype(orgqr<ScipyOpenblas64, double>) orgqr<ScipyOpenblas64, double>;
template decltype(ormqr<ScipyOpenblas64, float>) ormqr<ScipyOpenblas64, float>;
template decltype(ormqr<ScipyOpenblas64, double>) ormqr<ScipyOpenblas64, double>;

}  // namespace switchyard
