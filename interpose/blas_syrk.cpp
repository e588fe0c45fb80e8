// The checked xSYRK of the Fortran entry points, in every convention.
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
struct SyrkTraits;
template <>
struct SyrkTraits<float> {
  static constexpr Routine routine = Routine::ssyrk;
  static constexpr const char* srname = "SSYRK ";
  template <class C>
  static SyrkFn<float, Int<C>>* next() {
    return C::next_blas().ssyrk;
  }
};
template <>
struct SyrkTraits<double> {
  static constexpr Routine routine = Routine::dsyrk;
  static constexpr const char* srname = "DSYRK ";
  template <class C>
  static SyrkFn<double, Int<C>>* next() {
    return C::next_blas().dsyrk;
  }
};

// Reference quick returns, left to the fallback: nothing to do when C is empty or is to stay
// as it is; C = beta*C, A unread, when alpha = 0 or k = 0.
template <class T>
const char* syrk_quick_return(int n, int k, T alpha, T beta) {
  if (n == 0) return "quick return: empty C";
  if ((alpha == T(0) || k == 0) && beta == T(1)) return "quick return: C unchanged";
  if (alpha == T(0) || k == 0) return "quick return: C = beta*C";
  return nullptr;
}

template <class C, class T>
void run_next_syrk(char uplo, char trans, Int<C> n, Int<C> k, T alpha, const T* a, Int<C> lda,
                   T beta, T* c, Int<C> ldc) {
  SyrkTraits<T>::template next<C>()(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
}

}  // namespace

template <class C, class T>
void syrk(char uplo, char trans, Int<C> n, Int<C> k, T alpha, const T* a, Int<C> lda, T beta, T* c,
          Int<C> ldc) {
  C::check_library();
  if (int info = syrk_argument_error(uplo, trans, n, k, lda, ldc)) {
    call_xerbla<C>(SyrkTraits<T>::srname, info);
    return;
  }
  const char u = upper_letter(uplo), t = upper_letter(trans);
  Shape shape{n, n, k, u, t};
  shape.same_operand = true;
  shape.reads_c = beta != T(0);
  if (!fits_int<C>(n, k, lda, ldc)) {
    return run_too_wide(SyrkTraits<T>::routine, shape,
                        [&] { run_next_syrk<C, T>(u, t, n, k, alpha, a, lda, beta, c, ldc); });
  }
  const SyrkCall<T> call{u, t, int(n), int(k), alpha, a, int(lda), beta, c, int(ldc)};
  dispatch(SyrkTraits<T>::routine, shape, syrk_quick_return(call.n, call.k, alpha, beta),
           C::figures, call, [](const SyrkCall<T>& s) {
             run_next_syrk<C, T>(s.uplo, s.trans, s.n, s.k, s.alpha, s.a, s.lda, s.beta, s.c,
                                 s.ldc);
           });
}

// Every convention's entries.
template decltype(syrk<Lp64, float>) syrk<Lp64, float>;
template decltype(syrk<Lp64, double>) syrk<Lp64, double>;
template decltype(syrk<Ilp64, float>) syrk<Ilp64, float>;
template decltype(syrk<Ilp64, double>) syrk<Ilp64, double>;
template decltype(syrk<ScipyOpenblas32, float>) syrk<ScipyOpenblas32, float>;
template decltype(syrk<ScipyOpenblas32, double>) syrk<ScipyOpenblas32, double>;
template decltype(syrk<ScipyOpenblas64, float>) syrk<ScipyOpenblas64, float>;
template decltype(syrk<ScipyOpenblas64, double>) syrk<ScipyOpenblas64, double>;

}  // namespace switchyard
