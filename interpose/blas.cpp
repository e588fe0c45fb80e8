// The checked xGEMM of the Fortran entry points, in every convention.
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
struct GemmTraits;
template <>
struct GemmTraits<float> {
  static constexpr Routine routine = Routine::sgemm;
  static constexpr const char* srname = "SGEMM ";
  template <class C>
  static GemmFn<float, Int<C>>* next() {
    return C::next_blas().sgemm;
  }
};
template <>
struct GemmTraits<double> {
  static constexpr Routine routine = Routine::dgemm;
  static constexpr const char* srname = "DGEMM ";
  template <class C>
  static GemmFn<double, Int<C>>* next() {
    return C::next_blas().dgemm;
  }
};

// Reference quick returns, left to the fallback: nothing to do when C is
// empty; C = beta*C, A and B unread, when alpha = 0 or k = 0.
template <class T>
const char* gemm_quick_return(int m, int n, int k, T alpha) {
  if (m == 0 || n == 0) return "quick return: empty C";
  if (alpha == T(0) || k == 0) return "quick return: C = beta*C";
  return nullptr;
}

template <class C, class T>
void run_next_gemm(char transa, char transb, Int<C> m, Int<C> n, Int<C> k, T alpha, const T* a,
                   Int<C> lda, const T* b, Int<C> ldb, T beta, T* c, Int<C> ldc) {
  GemmTraits<T>::template next<C>()(&transa, &transb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta,
                                    c, &ldc, 1, 1);
}

}  // namespace

template <class C, class T>
void gemm(char transa, char transb, Int<C> m, Int<C> n, Int<C> k, T alpha, const T* a, Int<C> lda,
          const T* b, Int<C> ldb, T beta, T* c, Int<C> ldc) {
  C::check_library();
  if (int info = gemm_argument_error(transa, transb, m, n, k, lda, ldb, ldc)) {
    call_xerbla<C>(GemmTraits<T>::srname, info);
    return;
  }
  const char ta = upper_letter(transa), tb = upper_letter(transb);
  Shape shape{m, n, k, ta, tb};
  shape.same_operand = same_operand(ta, tb, m, n, k, a, lda, b, ldb);
  shape.reads_c = beta != T(0);
  if (!fits_int<C>(m, n, k, lda, ldb, ldc)) {
    return run_too_wide(GemmTraits<T>::routine, shape, [&] {
      run_next_gemm<C, T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    });
  }
  const GemmCall<T> call{ta,       tb, int(m),   int(n), int(k), alpha,   a,
                         int(lda), b,  int(ldb), beta,   c,      int(ldc)};
  dispatch(GemmTraits<T>::routine, shape, gemm_quick_return(call.m, call.n, call.k, alpha),
           C::figures, call, [](const GemmCall<T>& g) {
             run_next_gemm<C, T>(g.transa, g.transb, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb,
                                 g.beta, g.c, g.ldc);
           });
}

// Every convention's entries.
template decltype(gemm<Lp64, float>) gemm<Lp64, float>;
template decltype(gemm<Lp64, double>) gemm<Lp64, double>;
template decltype(gemm<Ilp64, float>) gemm<Ilp64, float>;
template decltype(gemm<Ilp64, double>) gemm<Ilp64, double>;
template decltype(gemm<ScipyOpenblas32, float>) gemm<ScipyOpenblas32, float>;
template decltype(gemm<ScipyOpenblas32, double>) gemm<ScipyOpenblas32, double>;
template decltype(gemm<ScipyOpenblas64, float>) gemm<ScipyOpenblas64, float>;
template decltype(gemm<ScipyOpenblas64, double>) gemm<ScipyOpenblas64, double>;

}  // namespace switchyard
