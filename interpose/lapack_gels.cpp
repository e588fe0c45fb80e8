// The checked xGELS of the Fortran entry points, in every convention: least squares by QR,
// routed for tall-skinny A with TRANS = 'N' to the GPU, whole (qr/gpu/gels.cpp: A and B go to the
// device once); every other call goes to the fallback's own xGELS, whose xGEQRF and xORMQR
// calls are then routed one by one.
#include <algorithm>

#include "calls.hpp"
#include "checks.hpp"
#include "convention.hpp"
#include "dispatch.hpp"
#include "entry.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

template <class T>
struct GelsTraits;
template <>
struct GelsTraits<float> {
  static constexpr Routine routine = Routine::sgels;
  static constexpr const char* srname = "SGELS";
  template <class C>
  static GelsFn<float, Int<C>>* next() {
    return required(C::next().sgels, "sgels_");
  }
};
template <>
struct GelsTraits<double> {
  static constexpr Routine routine = Routine::dgels;
  static constexpr const char* srname = "DGELS";
  template <class C>
  static GelsFn<double, Int<C>>* next() {
    return required(C::next().dgels, "dgels_");
  }
};

// Workspace queries and empty problems (whose B the fallback zeroes) are the fallback's.
template <class I>
const char* gels_quick_return(I m, I n, I nrhs, I lwork) {
  if (lwork == -1) return "workspace query";
  if (std::min({m, n, nrhs}) == 0) return "quick return: empty A or B";
  return nullptr;
}

}  // namespace

template <class C, class T>
void gels(char trans, Int<C> m, Int<C> n, Int<C> nrhs, T* a, Int<C> lda, T* b, Int<C> ldb, T* work,
          Int<C> lwork, Int<C>* info) {
  C::check_library();
  *info = 0;
  if (int bad = gels_argument_error(trans, m, n, nrhs, lda, ldb, lwork)) {
    *info = -bad;
    call_xerbla<C>(GelsTraits<T>::srname, bad);
    return;
  }
  // The fallback on the call's arrays, or on host copies of those in device memory.
  const auto run_next_on = [&](T* a_, T* b_, T* work_) {
    GelsTraits<T>::template next<C>()(&trans, &m, &n, &nrhs, a_, &lda, b_, &ldb, work_, &lwork,
                                      info, 1);
  };
  const auto run_next = [&] { run_next_on(a, b, work); };
  const Shape shape{m, n, nrhs};
  if (!fits_int<C>(m, n, nrhs, lda, ldb, lwork)) {
    return run_too_wide(GelsTraits<T>::routine, shape, run_next);
  }
  int checked_info = 0;
  bool kept = false;
  const GelsCall<T> call{
      upper_letter(trans), int(m),       int(n), int(nrhs), a, int(lda), b, int(ldb), work,
      int(lwork),          &checked_info};
  dispatch(GelsTraits<T>::routine, shape, gels_quick_return(m, n, nrhs, lwork), C::figures, call,
           [&](const GelsCall<T>& g) {
             kept = true;
             run_next_on(g.a, g.b, g.work);
           });
  if (!kept) *info = checked_info;
}

// Every convention's entries.
template decltype(gels<Lp64, float>) gels<Lp64, float>;
template decltype(gels<Lp64, double>) gels<Lp64, double>;
template decltype(gels<Ilp64, float>) gels<Ilp64, float>;
template decltype(gels<Ilp64, double>) gels<Ilp64, double>;
template decltype(gels<ScipyOpenblas32, float>) gels<ScipyOpenblas32, float>;
template decltype(gels<ScipyOpenblas32, double>) gels<ScipyOpenblas32, double>;
template decltype(gels<ScipyOpenblas64, float>) gels<ScipyOpenblas64, float>;
template decltype(gels<ScipyOpenblas64, double>) gels<ScipyOpenblas64, double>;

}  // namespace switchyard
