// The xGESDD of the Fortran entry points, in every convention: the SVD by divide and conquer
// (NumPy's svd), routed for tall-skinny A with JOBZ = 'S' or 'N' to the GPU
// (qr/gpu_gesdd_route.cpp: A's QR on the device, the fallback's xGESDD of the n x n R on the
// host, the left singular vectors as Q times R's); every other call goes to the fallback's own
// xGESDD. Its LWORK bound depends on the path and ILAENV, so the fallback checks the
// arguments: a call with an argument out of range, or less workspace than the fallback's
// optimum, is handed to it as it came.
#include <algorithm>

#include "calls.hpp"
#include "checks.hpp"
#include "convention.hpp"
#include "dispatch.hpp"
#include "entry.hpp"

namespace switchyard {
namespace {

template <class T>
struct GesddTraits;
template <>
struct GesddTraits<float> {
  static constexpr Routine routine = Routine::sgesdd;
  template <class C>
  static GesddFn<float, Int<C>>* next() {
    return required(C::next().sgesdd, "sgesdd_");
  }
};
template <>
struct GesddTraits<double> {
  static constexpr Routine routine = Routine::dgesdd;
  template <class C>
  static GesddFn<double, Int<C>>* next() {
    return required(C::next().dgesdd, "dgesdd_");
  }
};

// The ranges xGESDD checks before its workspace: JOBZ, M, N, LDA, LDU, LDVT.
template <class I>
bool in_range(char jobz, I m, I n, I lda, I ldu, I ldvt) {
  const bool all = jobz == 'A', thin = jobz == 'S', over = jobz == 'O';
  if (!all && !thin && !over && jobz != 'N') return false;
  if (m < 0 || n < 0 || lda < std::max<I>(1, m)) return false;
  if (ldu < 1 || ((all || thin) && ldu < m) || (over && m < n && ldu < m)) return false;
  return !(ldvt < 1 || (all && ldvt < n) || (thin && ldvt < std::min(m, n)) ||
           (over && m >= n && ldvt < n));
}

template <class I>
const char* gesdd_quick_return(I m, I n, I lwork) {
  if (lwork == -1) return "workspace query";
  if (m == 0 || n == 0) return "quick return: empty A";
  return nullptr;
}

}  // namespace

template <class C, class T>
void gesdd(char jobz, Int<C> m, Int<C> n, T* a, Int<C> lda, T* s, T* u, Int<C> ldu, T* vt,
           Int<C> ldvt, T* work, Int<C> lwork, Int<C>* iwork, Int<C>* info) {
  C::check_library();
  // The fallback on the call's arrays, or on host copies of those in device memory.
  const auto run_next_on = [&](T* a_, T* s_, T* u_, T* vt_, T* work_, Int<C>* iwork_) {
    GesddTraits<T>::template next<C>()(&jobz, &m, &n, a_, &lda, s_, u_, &ldu, vt_, &ldvt, work_,
                                       &lwork, iwork_, info, 1);
  };
  const auto run_next = [&] { run_next_on(a, s, u, vt, work, iwork); };
  const char z = upper_letter(jobz);
  if (!in_range(z, m, n, lda, ldu, ldvt)) return run_next();  // its INFO and XERBLA
  Shape shape{m, n, 0};
  shape.transa = z;
  if (!fits_int<C>(m, n, lda, ldu, ldvt, lwork)) {
    return run_too_wide(GesddTraits<T>::routine, shape, run_next);
  }
  int checked_info = 0;
  bool kept = false;
  const GesddCall<T> call{z,        int(m), int(n),    a,    int(lda),   s,       u,
                          int(ldu), vt,     int(ldvt), work, int(lwork), nullptr, &checked_info};
  dispatch(GesddTraits<T>::routine, shape, gesdd_quick_return(m, n, lwork), C::figures, call,
           [&](const GesddCall<T>& g) {
             kept = true;
             run_next_on(g.a, g.s, g.u, g.vt, g.work, iwork);
           });
  if (!kept) *info = checked_info;
}

// Every convention's entries.
template decltype(gesdd<Lp64, float>) gesdd<Lp64, float>;
template decltype(gesdd<Lp64, double>) gesdd<Lp64, double>;
template decltype(gesdd<Ilp64, float>) gesdd<Ilp64, float>;
template decltype(gesdd<Ilp64, double>) gesdd<Ilp64, double>;
template decltype(gesdd<ScipyOpenblas32, float>) gesdd<ScipyOpenblas32, float>;
template decltype(gesdd<ScipyOpenblas32, double>) gesdd<ScipyOpenblas32, double>;
template decltype(gesdd<ScipyOpenblas64, float>) gesdd<ScipyOpenblas64, float>;
template decltype(gesdd<ScipyOpenblas64, double>) gesdd<ScipyOpenblas64, double>;

}  // namespace switchyard
