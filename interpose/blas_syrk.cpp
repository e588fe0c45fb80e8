// The checked xSYRK of the Fortran entry points, 32-bit and 64-bit.
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

template <class T> struct SyrkTraits;
template <> struct SyrkTraits<float> {
  static constexpr Routine routine = Routine::ssyrk;
  static constexpr const char* srname = "SSYRK ";
  template <class I> static SyrkFn<float, I>* next() { return next_library<I>().ssyrk; }
};
template <> struct SyrkTraits<double> {
  static constexpr Routine routine = Routine::dsyrk;
  static constexpr const char* srname = "DSYRK ";
  template <class I> static SyrkFn<double, I>* next() { return next_library<I>().dsyrk; }
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

template <class T, class I>
void run_next_syrk(char uplo, char trans, I n, I k, T alpha, const T* a, I lda, T beta, T* c,
                   I ldc) {
  SyrkTraits<T>::template next<I>()(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1,
                                    1);
}

}  // namespace

template <class T, class I>
void syrk(char uplo, char trans, I n, I k, T alpha, const T* a, I lda, T beta, T* c, I ldc) {
  if (int info = syrk_argument_error(uplo, trans, n, k, lda, ldc)) {
    call_xerbla<I>(SyrkTraits<T>::srname, info);
    return;
  }
  const char u = upper_letter(uplo), t = upper_letter(trans);
  Shape shape{n, n, k, u, t};
  shape.same_operand = true;
  shape.reads_c = beta != T(0);
  if (!fits_int<I>(n, k, lda, ldc)) {
    return run_too_wide(SyrkTraits<T>::routine, shape, [&] {
      run_next_syrk<T, I>(u, t, n, k, alpha, a, lda, beta, c, ldc);
    });
  }
  const SyrkCall<T> call{u, t, int(n), int(k), alpha, a, int(lda), beta, c, int(ldc)};
  dispatch(SyrkTraits<T>::routine, shape, syrk_quick_return(call.n, call.k, alpha, beta), call,
           [](const SyrkCall<T>& s) {
             run_next_syrk<T, I>(s.uplo, s.trans, s.n, s.k, s.alpha, s.a, s.lda, s.beta, s.c,
                                 s.ldc);
           });
}

template void syrk<float, int>(char, char, int, int, float, const float*, int, float, float*,
                               int);
template void syrk<double, int>(char, char, int, int, double, const double*, int, double,
                                double*, int);
template void syrk<float, std::int64_t>(char, char, std::int64_t, std::int64_t, float,
                                        const float*, std::int64_t, float, float*, std::int64_t);
template void syrk<double, std::int64_t>(char, char, std::int64_t, std::int64_t, double,
                                         const double*, std::int64_t, double, double*,
                                         std::int64_t);

}  // namespace switchyard
