// The checked xGETSLS of the Fortran entry points, in every convention: least squares through
// LAPACK's tall-skinny QR API (docs/qr-apply.md, "xGEQR, xGEMQR and xGETSLS").
//
// xGETSLS solves what xGELS solves, by the same steps and the same scaling thresholds, with
// xGEQR and xGEMQR in place of xGEQRF and xORMQR. The router weighs it as the xGELS it amounts
// to, and the trace shows it under that name: a call sent to the xGELS route (TRANS = 'N',
// m >= n, on the GPU) runs there whole; one it keeps goes to the fallback's own xGETSLS, whose
// xGEQR and xGEMQR calls are then weighed one by one. The factors it leaves in A are the routed
// xGEQR's (T, in WORK, is not part of its output).
#include <algorithm>

#include "calls.hpp"
#include "checks.hpp"
#include "convention.hpp"
#include "dispatch.hpp"
#include "entry.hpp"

namespace switchyard {
namespace {

template <class T>
struct GetslsTraits;
template <>
struct GetslsTraits<float> {
  static constexpr Routine routine = Routine::sgels;
  template <class C>
  static GelsFn<float, Int<C>>* next() {
    return required(C::next().sgetsls, "sgetsls_");
  }
};
template <>
struct GetslsTraits<double> {
  static constexpr Routine routine = Routine::dgels;
  template <class C>
  static GelsFn<double, Int<C>>* next() {
    return required(C::next().dgetsls, "dgetsls_");
  }
};

// The ranges xGETSLS checks before its workspace: TRANS, M, N, NRHS, LDA, LDB.
template <class I>
bool in_range(char trans, I m, I n, I nrhs, I lda, I ldb) {
  const char t = upper_letter(trans);
  return (t == 'N' || t == 'T') && m >= 0 && n >= 0 && nrhs >= 0 && lda >= std::max<I>(1, m) &&
         ldb >= std::max<I>({1, m, n});
}

}  // namespace

template <class C, class T>
void getsls(char trans, Int<C> m, Int<C> n, Int<C> nrhs, T* a, Int<C> lda, T* b, Int<C> ldb,
            T* work, Int<C> lwork, Int<C>* info) {
  C::check_library();
  // The fallback on the call's arrays, or on host copies of those in device memory.
  const auto run_next_on = [&](T* a_, T* b_, T* work_) {
    GetslsTraits<T>::template next<C>()(&trans, &m, &n, &nrhs, a_, &lda, b_, &ldb, work_, &lwork,
                                        info, 1);
  };
  const auto run_next = [&] { run_next_on(a, b, work); };
  if (!in_range(trans, m, n, nrhs, lda, ldb)) return run_next();  // its INFO and XERBLA
  const Shape shape{m, n, nrhs};
  if (!fits_int<C>(m, n, nrhs, lda, ldb, lwork)) {
    return run_too_wide(GetslsTraits<T>::routine, shape, run_next);
  }
  // The fallback's workspace: the least it takes (a query with LWORK = -2) and the optimum it
  // reports in WORK(1) on return (LWORK = -1), both from its own block sizes.
  const auto query = [&](Int<C> kind) {
    T answer = 0;
    Int<C> query_info = 0;
    GetslsTraits<T>::template next<C>()(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, &answer, &kind,
                                        &query_info, 1);
    return answer;
  };
  const char* quick = nullptr;
  T optimum = 0;
  if (lwork == -1 || lwork == -2) {
    quick = "workspace query";
  } else if (lwork < query(-2)) {
    quick = "LWORK below the fallback's minimum: its INFO";
  } else if (std::min({m, n, nrhs}) == 0) {
    quick = "quick return: empty A or B";
  } else {
    optimum = query(-1);
  }
  int checked_info = 0;
  bool kept = false;
  const GelsCall<T> call{
      upper_letter(trans), int(m),        int(n), int(nrhs), a, int(lda), b, int(ldb), work,
      int(lwork),          &checked_info, optimum};
  dispatch(GetslsTraits<T>::routine, shape, quick, C::figures, call, [&](const GelsCall<T>& g) {
    kept = true;
    run_next_on(g.a, g.b, g.work);
  });
  if (!kept) *info = checked_info;
}

// Every convention's entries.
template decltype(getsls<Lp64, float>) getsls<Lp64, float>;
template decltype(getsls<Lp64, double>) getsls<Lp64, double>;
template decltype(getsls<Ilp64, float>) getsls<Ilp64, float>;
template decltype(getsls<Ilp64, double>) getsls<Ilp64, double>;
template decltype(getsls<ScipyOpenblas32, float>) getsls<ScipyOpenblas32, float>;
template decltype(getsls<ScipyOpenblas32, double>) getsls<ScipyOpenblas32, double>;
template decltype(getsls<ScipyOpenblas64, float>) getsls<ScipyOpenblas64, float>;
template decltype(getsls<ScipyOpenblas64, double>) getsls<ScipyOpenblas64, double>;

}  // namespace switchyard
