// The checked xORGQR and xORMQR of the Fortran entry points, 32-bit and 64-bit: the routines
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

template <class T> struct QTraits;
template <> struct QTraits<float> {
  static constexpr Routine orgqr = Routine::sorgqr, ormqr = Routine::sormqr;
  static constexpr const char *orgqr_name = "SORGQR", *ormqr_name = "SORMQR";
  template <class I> static OrgqrFn<float, I>* next_orgqr() { return next_library<I>().sorgqr; }
  template <class I> static OrmqrFn<float, I>* next_ormqr() { return next_library<I>().sormqr; }
};
template <> struct QTraits<double> {
  static constexpr Routine orgqr = Routine::dorgqr, ormqr = Routine::dormqr;
  static constexpr const char *orgqr_name = "DORGQR", *ormqr_name = "DORMQR";
  template <class I> static OrgqrFn<double, I>* next_orgqr() { return next_library<I>().dorgqr; }
  template <class I> static OrmqrFn<double, I>* next_ormqr() { return next_library<I>().dormqr; }
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

template <class T, class I>
void run_next_orgqr(I m, I n, I k, T* a, I lda, const T* tau, T* work, I lwork, I* info) {
  QTraits<T>::template next_orgqr<I>()(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}

template <class T, class I>
void run_next_ormqr(char side, char trans, I m, I n, I k, const T* a, I lda, const T* tau, T* c,
                    I ldc, T* work, I lwork, I* info) {
  QTraits<T>::template next_ormqr<I>()(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work,
                                       &lwork, info, 1, 1);
}

}  // namespace

template <class T, class I>
void orgqr(I m, I n, I k, T* a, I lda, const T* tau, T* work, I lwork, I* info) {
  *info = 0;
  if (int bad = orgqr_argument_error(m, n, k, lda, lwork)) {
    *info = -bad;
    call_xerbla<I>(QTraits<T>::orgqr_name, bad);
    return;
  }
  const Shape shape{m, n, k};
  if (!fits_int<I>(m, n, k, lda, lwork)) {
    return run_too_wide(QTraits<T>::orgqr, shape, [&] {
      run_next_orgqr<T, I>(m, n, k, a, lda, tau, work, lwork, info);
    });
  }
  // The routes write INFO as an int; it is 0 or a parameter number, which fits any width.
  int checked_info = 0;
  const OrgqrCall<T> call{int(m), int(n), int(k), a, int(lda), tau, work, int(lwork),
                          &checked_info};
  dispatch(QTraits<T>::orgqr, shape, orgqr_quick_return(call.n, call.lwork), call,
           [](const OrgqrCall<T>& g) {
             I next_info = 0;
             run_next_orgqr<T, I>(g.m, g.n, g.k, g.a, g.lda, g.tau, g.work, g.lwork, &next_info);
             *g.info = int(next_info);
           });
  *info = checked_info;
}

template <class T, class I>
void ormqr(char side, char trans, I m, I n, I k, const T* a, I lda, const T* tau, T* c, I ldc,
           T* work, I lwork, I* info) {
  *info = 0;
  if (int bad = ormqr_argument_error(side, trans, m, n, k, lda, ldc, lwork)) {
    *info = -bad;
    call_xerbla<I>(QTraits<T>::ormqr_name, bad);
    return;
  }
  const char s = upper_letter(side), t = upper_letter(trans);
  const Shape shape{m, n, k, s, t};
  if (!fits_int<I>(m, n, k, lda, ldc, lwork)) {
    return run_too_wide(QTraits<T>::ormqr, shape, [&] {
      run_next_ormqr<T, I>(s, t, m, n, k, a, lda, tau, c, ldc, work, lwork, info);
    });
  }
  int checked_info = 0;  // as for xORGQR
  const OrmqrCall<T> call{s, t, int(m), int(n), int(k), a, int(lda), tau, c, int(ldc), work,
                          int(lwork), &checked_info};
  dispatch(QTraits<T>::ormqr, shape, ormqr_quick_return(call.m, call.n, call.k, call.lwork),
           call, [](const OrmqrCall<T>& g) {
             I next_info = 0;
             run_next_ormqr<T, I>(g.side, g.trans, g.m, g.n, g.k, g.a, g.lda, g.tau, g.c, g.ldc,
                                  g.work, g.lwork, &next_info);
             *g.info = int(next_info);
           });
  *info = checked_info;
}

template void orgqr<float, int>(int, int, int, float*, int, const float*, float*, int, int*);
template void orgqr<double, int>(int, int, int, double*, int, const double*, double*, int, int*);
template void orgqr<float, std::int64_t>(std::int64_t, std::int64_t, std::int64_t, float*,
                                         std::int64_t, const float*, float*, std::int64_t,
                                         std::int64_t*);
template void orgqr<double, std::int64_t>(std::int64_t, std::int64_t, std::int64_t, double*,
                                          std::int64_t, const double*, double*, std::int64_t,
                                          std::int64_t*);
template void ormqr<float, int>(char, char, int, int, int, const float*, int, const float*,
                                float*, int, float*, int, int*);
template void ormqr<double, int>(char, char, int, int, int, const double*, int, const double*,
                                 double*, int, double*, int, int*);
template void ormqr<float, std::int64_t>(char, char, std::int64_t, std::int64_t, std::int64_t,
                                         const float*, std::int64_t, const float*, float*,
                                         std::int64_t, float*, std::int64_t, std::int64_t*);
template void ormqr<double, std::int64_t>(char, char, std::int64_t, std::int64_t, std::int64_t,
                                          const double*, std::int64_t, const double*, double*,
                                          std::int64_t, double*, std::int64_t, std::int64_t*);

}  // namespace switchyard
