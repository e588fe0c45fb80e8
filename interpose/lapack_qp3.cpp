// The checked xGEQP3 of the Fortran entry points, in every convention: QR with column pivoting,
// routed for tall-skinny A to the CPU TSQR with the pivoted QR of its R (tsqr/cpu_tsqr.hpp,
// factor_pivoted_cpu); every other call goes to the fallback's own xGEQP3.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "calls.hpp"
#include "checks.hpp"
#include "convention.hpp"
#include "dispatch.hpp"
#include "entry.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

template <class T>
struct Geqp3Traits;
template <>
struct Geqp3Traits<float> {
  static constexpr Routine routine = Routine::sgeqp3;
  static constexpr const char* srname = "SGEQP3";
  template <class C>
  static Geqp3Fn<float, Int<C>>* next() {
    return required(C::next().sgeqp3, "sgeqp3_");
  }
};
template <>
struct Geqp3Traits<double> {
  static constexpr Routine routine = Routine::dgeqp3;
  static constexpr const char* srname = "DGEQP3";
  template <class C>
  static Geqp3Fn<double, Int<C>>* next() {
    return required(C::next().dgeqp3, "dgeqp3_");
  }
};

// Workspace queries and empty matrices (whose JPVT the fallback still numbers) are answered by
// the fallback, so the optimal LWORK a program is told is its own library's.
template <class I>
const char* geqp3_quick_return(I m, I n, I lwork) {
  if (lwork == -1) return "workspace query";
  if (std::min(m, n) == 0) return "quick return: empty A";
  return nullptr;
}

}  // namespace

template <class C, class T>
void geqp3(Int<C> m, Int<C> n, T* a, Int<C> lda, Int<C>* jpvt, T* tau, T* work, Int<C> lwork,
           Int<C>* info) {
  C::check_library();
  *info = 0;
  if (int bad = geqp3_argument_error(m, n, lda, lwork)) {
    *info = -bad;
    call_xerbla<C>(Geqp3Traits<T>::srname, bad);
    return;
  }
  // The fallback on the call's arrays, or on host copies of those in device memory (JPVT is read
  // on the host by every route).
  const auto run_next_on = [&](T* a_, T* tau_, T* work_) {
    Geqp3Traits<T>::template next<C>()(&m, &n, a_, &lda, jpvt, tau_, work_, &lwork, info);
  };
  const auto run_next = [&] { run_next_on(a, tau, work); };
  const Shape shape{m, n};
  if (!fits_int<C>(m, n, lda, lwork)) return run_too_wide(Geqp3Traits<T>::routine, shape, run_next);
  // The routes take JPVT as ints: a 64-bit one is copied in, and out if a route ran. On entry
  // xGEQP3 reads of JPVT(J) only whether it is zero (a free column) or not (one to lead with).
  std::vector<int> copied;
  int* pivots = nullptr;
  if constexpr (std::is_same_v<Int<C>, int>) {
    pivots = jpvt;
  } else {
    copied.resize(std::size_t(n));
    std::transform(jpvt, jpvt + n, copied.begin(), [](Int<C> j) { return j != 0 ? 1 : 0; });
    pivots = copied.data();
  }
  int checked_info = 0;
  bool kept = false;
  const Geqp3Call<T> call{int(m), int(n), a,          int(lda),     pivots,
                          tau,    work,   int(lwork), &checked_info};
  dispatch(Geqp3Traits<T>::routine, shape, geqp3_quick_return(m, n, lwork), C::figures, call,
           [&](const Geqp3Call<T>& g) {
             kept = true;
             run_next_on(g.a, g.tau, g.work);
           });
  if (kept) return;
  if constexpr (!std::is_same_v<Int<C>, int>) std::copy(copied.begin(), copied.end(), jpvt);
  *info = checked_info;
}

// Every convention's entries.
template decltype(geqp3<Lp64, float>) geqp3<Lp64, float>;
template decltype(geqp3<Lp64, double>) geqp3<Lp64, double>;
template decltype(geqp3<Ilp64, float>) geqp3<Ilp64, float>;
template decltype(geqp3<Ilp64, double>) geqp3<Ilp64, double>;
template decltype(geqp3<ScipyOpenblas32, float>) geqp3<ScipyOpenblas32, float>;
template decltype(geqp3<ScipyOpenblas32, double>) geqp3<ScipyOpenblas32, double>;
template decltype(geqp3<ScipyOpenblas64, float>) geqp3<ScipyOpenblas64, float>;
template decltype(geqp3<ScipyOpenblas64, double>) geqp3<ScipyOpenblas64, double>;

}  // namespace switchyard
