// Fortran BLAS entry points: ssyrk_, dsyrk_ and their unsuffixed aliases.
#include <cstddef>

#include "calls.hpp"
#include "checks.hpp"
#include "dispatch.hpp"
#include "entry.hpp"
#include "export.hpp"
#include "fallback.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

template <class T> struct SyrkTraits;
template <> struct SyrkTraits<float> {
  static constexpr Routine routine = Routine::ssyrk;
  static constexpr const char* srname = "SSYRK ";
  static SyrkFn<float>* next() { return fallback().ssyrk; }
};
template <> struct SyrkTraits<double> {
  static constexpr Routine routine = Routine::dsyrk;
  static constexpr const char* srname = "DSYRK ";
  static SyrkFn<double>* next() { return fallback().dsyrk; }
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

template <class T>
void run_syrk_fallback(const SyrkCall<T>& s) {
  SyrkTraits<T>::next()(&s.uplo, &s.trans, &s.n, &s.k, &s.alpha, s.a, &s.lda, &s.beta, s.c,
                        &s.ldc, 1, 1);
}

}  // namespace

template <class T>
void syrk(char uplo, char trans, int n, int k, T alpha, const T* a, int lda, T beta, T* c,
          int ldc) {
  if (int info = syrk_argument_error(uplo, trans, n, k, lda, ldc)) {
    call_xerbla(SyrkTraits<T>::srname, info);
    return;
  }
  const SyrkCall<T> call{upper_letter(uplo), upper_letter(trans), n, k, alpha, a, lda, beta, c,
                         ldc};
  Shape shape{n, n, k, call.uplo, call.trans};
  shape.same_operand = true;
  shape.reads_c = beta != T(0);
  dispatch(SyrkTraits<T>::routine, shape, syrk_quick_return(n, k, alpha, beta), call,
           run_syrk_fallback<T>);
}

template void syrk<float>(char, char, int, int, float, const float*, int, float, float*, int);
template void syrk<double>(char, char, int, int, double, const double*, int, double, double*,
                           int);

}  // namespace switchyard

SWITCHYARD_EXPORT void ssyrk_(const char* uplo, const char* trans, const int* n, const int* k,
                              const float* alpha, const float* a, const int* lda,
                              const float* beta, float* c, const int* ldc, std::size_t,
                              std::size_t) {
  switchyard::syrk(*uplo, *trans, *n, *k, *alpha, a, *lda, *beta, c, *ldc);
}

SWITCHYARD_EXPORT void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k,
                              const double* alpha, const double* a, const int* lda,
                              const double* beta, double* c, const int* ldc, std::size_t,
                              std::size_t) {
  switchyard::syrk(*uplo, *trans, *n, *k, *alpha, a, *lda, *beta, c, *ldc);
}

SWITCHYARD_EXPORT void ssyrk(const char*, const char*, const int*, const int*, const float*,
                             const float*, const int*, const float*, float*, const int*,
                             std::size_t, std::size_t) SWITCHYARD_ALIAS(ssyrk_);
SWITCHYARD_EXPORT void dsyrk(const char*, const char*, const int*, const int*, const double*,
                             const double*, const int*, const double*, double*, const int*,
                             std::size_t, std::size_t) SWITCHYARD_ALIAS(dsyrk_);
