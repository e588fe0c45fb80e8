// Fortran BLAS entry points: sgemm_, dgemm_ and their unsuffixed aliases.
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

template <class T> struct GemmTraits;
template <> struct GemmTraits<float> {
  static constexpr Routine routine = Routine::sgemm;
  static constexpr const char* srname = "SGEMM ";
  static GemmFn<float>* next() { return fallback().sgemm; }
};
template <> struct GemmTraits<double> {
  static constexpr Routine routine = Routine::dgemm;
  static constexpr const char* srname = "DGEMM ";
  static GemmFn<double>* next() { return fallback().dgemm; }
};

// Reference quick returns, left to the fallback: nothing to do when C is
// empty; C = beta*C, A and B unread, when alpha = 0 or k = 0.
template <class T>
const char* gemm_quick_return(int m, int n, int k, T alpha) {
  if (m == 0 || n == 0) return "quick return: empty C";
  if (alpha == T(0) || k == 0) return "quick return: C = beta*C";
  return nullptr;
}

template <class T>
void run_gemm_fallback(const GemmCall<T>& g) {
  GemmTraits<T>::next()(&g.transa, &g.transb, &g.m, &g.n, &g.k, &g.alpha, g.a, &g.lda, g.b,
                        &g.ldb, &g.beta, g.c, &g.ldc, 1, 1);
}

}  // namespace

template <class T>
void gemm(char transa, char transb, int m, int n, int k, T alpha, const T* a, int lda,
          const T* b, int ldb, T beta, T* c, int ldc) {
  if (int info = gemm_argument_error(transa, transb, m, n, k, lda, ldb, ldc)) {
    call_xerbla(GemmTraits<T>::srname, info);
    return;
  }
  const GemmCall<T> call{upper_letter(transa), upper_letter(transb), m, n, k, alpha, a, lda, b, ldb,
                         beta, c, ldc};
  Shape shape{m, n, k, call.transa, call.transb};
  shape.same_operand = same_operand(call.transa, call.transb, m, n, k, a, lda, b, ldb);
  shape.reads_c = beta != T(0);
  dispatch(GemmTraits<T>::routine, shape, gemm_quick_return(m, n, k, alpha), call,
           run_gemm_fallback<T>);
}

template void gemm<float>(char, char, int, int, int, float, const float*, int, const float*,
                          int, float, float*, int);
template void gemm<double>(char, char, int, int, int, double, const double*, int,
                           const double*, int, double, double*, int);

}  // namespace switchyard

SWITCHYARD_EXPORT void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                              const int* k, const float* alpha, const float* a, const int* lda,
                              const float* b, const int* ldb, const float* beta, float* c,
                              const int* ldc, std::size_t, std::size_t) {
  switchyard::gemm(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

SWITCHYARD_EXPORT void dgemm_(const char* transa, const char* transb, const int* m, const int* n,
                              const int* k, const double* alpha, const double* a,
                              const int* lda, const double* b, const int* ldb,
                              const double* beta, double* c, const int* ldc, std::size_t,
                              std::size_t) {
  switchyard::gemm(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

SWITCHYARD_EXPORT void sgemm(const char*, const char*, const int*, const int*, const int*,
                             const float*, const float*, const int*, const float*, const int*,
                             const float*, float*, const int*, std::size_t, std::size_t)
    SWITCHYARD_ALIAS(sgemm_);
SWITCHYARD_EXPORT void dgemm(const char*, const char*, const int*, const int*, const int*,
                             const double*, const double*, const int*, const double*,
                             const int*, const double*, double*, const int*, std::size_t,
                             std::size_t) SWITCHYARD_ALIAS(dgemm_);
