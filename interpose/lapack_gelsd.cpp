// The xGELSD of the Fortran entry points, in every convention: minimum-norm least squares by the
// SVD (NumPy's lstsq), routed for tall-skinny A to the GPU (qr/gpu/gelsd.cpp: A's QR and
// Q^T B on the device, the fallback's xGELSD of the n x n R on the host); every other call goes
// to the fallback's own xGELSD. Its LWORK bound depends on ILAENV's block sizes, so the
// fallback checks the arguments: a call with an argument out of range, or less workspace than
// the fallback's optimum, is handed to it as it came.
#include <algorithm>
#include <cstdint>

#include "calls.hpp"
#include "convention.hpp"
#include "dispatch.hpp"
#include "entry.hpp"

namespace switchyard {
namespace {

template <class T>
struct GelsdTraits;
template <>
struct GelsdTraits<float> {
  static constexpr Routine routine = Routine::sgelsd;
  template <class C>
  static GelsdFn<float, Int<C>>* next() {
    return required(C::next().sgelsd, "sgelsd_");
  }
};
template <>
struct GelsdTraits<double> {
  static constexpr Routine routine = Routine::dgelsd;
  template <class C>
  static GelsdFn<double, Int<C>>* next() {
    return required(C::next().dgelsd, "dgelsd_");
  }
};

// The ranges xGELSD checks before its workspace: M, N, NRHS, LDA, LDB.
template <class I>
bool in_range(I m, I n, I nrhs, I lda, I ldb) {
  return m >= 0 && n >= 0 && nrhs >= 0 && lda >= std::max<I>(1, m) && ldb >= std::max<I>({1, m, n});
}

template <class I>
const char* gelsd_quick_return(I m, I n, I lwork) {
  if (lwork == -1) return "workspace query";
  if (m == 0 || n == 0) return "quick return: empty A";
  return nullptr;
}

}  // namespace

template <class C, class T>
void gelsd(Int<C> m, Int<C> n, Int<C> nrhs, T* a, Int<C> lda, T* b, Int<C> ldb, T* s, T rcond,
           Int<C>* rank, T* work, Int<C> lwork, Int<C>* iwork, Int<C>* info) {
  C::check_library();
  // The fallback on the call's arrays, or on host copies of those in device memory.
  const auto run_next_on = [&](T* a_, T* b_, T* s_, T* work_) {
    GelsdTraits<T>::template next<C>()(&m, &n, &nrhs, a_, &lda, b_, &ldb, s_, &rcond, rank, work_,
                                       &lwork, iwork, info);
  };
  const auto run_next = [&] { run_next_on(a, b, s, work); };
  if (!in_range(m, n, nrhs, lda, ldb)) return run_next();  // its INFO and XERBLA
  const Shape shape{m, n, nrhs};
  if (!fits_int<C>(m, n, nrhs, lda, ldb, lwork)) {
    return run_too_wide(GelsdTraits<T>::routine, shape, run_next);
  }
  int checked_info = 0, checked_rank = 0, first_iwork = 0;
  bool kept = false;
  const GelsdCall<T> call{int(m),       int(n),
                          int(nrhs),    a,
                          int(lda),     b,
                          int(ldb),     s,
                          rcond,        &checked_rank,
                          work,         int(lwork),
                          &first_iwork, &checked_info};
  dispatch(GelsdTraits<T>::routine, shape, gelsd_quick_return(m, n, lwork), C::figures, call,
           [&](const GelsdCall<T>& g) {
             kept = true;
             run_next_on(g.a, g.b, g.s, g.work);
           });
  if (kept) return;
  *rank = checked_rank;
  iwork[0] = first_iwork;
  *info = checked_info;
}

// Every convention's entries.
template decltype(gelsd<Lp64, float>) gelsd<Lp64, float>;
template decltype(gelsd<Lp64, double>) gelsd<Lp64, double>;
template decltype(gelsd<Ilp64, float>) gelsd<Ilp64, float>;
template decltype(gelsd<Ilp64, double>) gelsd<Ilp64, double>;
template decltype(gelsd<ScipyOpenblas32, float>) gelsd<ScipyOpenblas32, float>;
template decltype(gelsd<ScipyOpenblas32, double>) gelsd<ScipyOpenblas32, double>;
template decltype(gelsd<ScipyOpenblas64, float>) gelsd<ScipyOpenblas64, float>;
template decltype(gelsd<ScipyOpenblas64, double>) gelsd<ScipyOpenblas64, double>;

}  // namespace switchyard
