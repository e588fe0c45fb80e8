// The xGESVD of the Fortran entry points, in every convention: the SVD by QR iteration (Octave's
// svd, SciPy's with lapack_driver='gesvd'), routed for tall-skinny A with JOBU = 'S' or 'N' to
// the GPU (qr/gpu_gesvd_route.cpp: A's QR on the device, the fallback's xGESVD of the n x n R on
// the host, the left singular vectors as Q times R's); every other call goes to the fallback's
// own xGESVD. Its LWORK bound depends on the path and ILAENV, so the fallback checks the
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
struct GesvdTraits;
template <>
struct GesvdTraits<float> {
  static constexpr Routine routine = Routine::sgesvd;
  template <class C>
  static GesvdFn<float, Int<C>>* next() {
    return required(C::next().sgesvd, "sgesvd_");
  }
};
template <>
struct GesvdTraits<double> {
  static constexpr Routine routine = Routine::dgesvd;
  template <class C>
  static GesvdFn<double, Int<C>>* next() {
    return required(C::next().dgesvd, "dgesvd_");
  }
};

// The ranges xGESVD checks before its workspace: JOBU, JOBVT (not both 'O'), M, N, LDA, LDU,
// LDVT.
template <class I>
bool in_range(char jobu, char jobvt, I m, I n, I lda, I ldu, I ldvt) {
  const auto one_of = [](char c) { return c == 'A' || c == 'S' || c == 'O' || c == 'N'; };
  if (!one_of(jobu) || !one_of(jobvt) || (jobu == 'O' && jobvt == 'O')) return false;
  if (m < 0 || n < 0 || lda < std::max<I>(1, m)) return false;
  if (ldu < 1 || ((jobu == 'A' || jobu == 'S') && ldu < m)) return false;
  return !(ldvt < 1 || (jobvt == 'A' && ldvt < n) || (jobvt == 'S' && ldvt < std::min(m, n)));
}

template <class I>
const char* gesvd_quick_return(I m, I n, I lwork) {
  if (lwork == -1) return "workspace query";
  if (m == 0 || n == 0) return "quick return: empty A";
  return nullptr;
}

}  // namespace

template <class C, class T>
void gesvd(char jobu, char jobvt, Int<C> m, Int<C> n, T* a, Int<C> lda, T* s, T* u, Int<C> ldu,
           T* vt, Int<C> ldvt, T* work, Int<C> lwork, Int<C>* info) {
  C::check_library();
  // The fallback on the call's arrays, or on host copies of those in device memory.
  const auto run_next_on = [&](T* a_, T* s_, T* u_, T* vt_, T* work_) {
    GesvdTraits<T>::template next<C>()(&jobu, &jobvt, &m, &n, a_, &lda, s_, u_, &ldu, vt_, &ldvt,
                                       work_, &lwork, info, 1, 1);
  };
  const auto run_next = [&] { run_next_on(a, s, u, vt, work); };
  const char ju = upper_letter(jobu), jv = upper_letter(jobvt);
  if (!in_range(ju, jv, m, n, lda, ldu, ldvt)) return run_next();  // its INFO and XERBLA
  Shape shape{m, n, 0};
  shape.transa = ju;
  shape.transb = jv;
  if (!fits_int<C>(m, n, lda, ldu, ldvt, lwork)) {
    return run_too_wide(GesvdTraits<T>::routine, shape, run_next);
  }
  int checked_info = 0;
  bool kept = false;
  const GesvdCall<T> call{ju, jv,       int(m), int(n),    a,    int(lda),   s,
                          u,  int(ldu), vt,     int(ldvt), work, int(lwork), &checked_info};
  dispatch(GesvdTraits<T>::routine, shape, gesvd_quick_return(m, n, lwork), C::figures, call,
           [&](const GesvdCall<T>& g) {
             kept = true;
             run_next_on(g.a, g.s, g.u, g.vt, g.work);
           });
  if (!kept) *info = checked_info;
}

// Every convention's entries.
template decltype(gesvd<Lp64, float>) gesvd<Lp64, float>;
template decltype(gesvd<Lp64, double>) gesvd<Lp64, double>;
template decltype(gesvd<Ilp64, float>) gesvd<Ilp64, float>;
template decltype(gesvd<Ilp64, double>) gesvd<Ilp64, double>;
template decltype(gesvd<ScipyOpenblas32, float>) gesvd<ScipyOpenblas32, float>;
template decltype(gesvd<ScipyOpenblas32, double>) gesvd<ScipyOpenblas32, double>;
template decltype(gesvd<ScipyOpenblas64, float>) gesvd<ScipyOpenblas64, float>;
template decltype(gesvd<ScipyOpenblas64, double>) gesvd<ScipyOpenblas64, double>;

}  // namespace switchyard
