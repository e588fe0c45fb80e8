// The checked xGEMM of the Fortran entry points, 32-bit and 64-bit.
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

template <class T> struct GemmTraits;
template <> struct GemmTraits<float> {
  static constexpr Routine routine = Routine::sgemm;
  static constexpr const char* srname = "SGEMM ";
  template <class I> static GemmFn<float, I>* next() { return next_library<I>().sgemm; }
};
template <> struct GemmTraits<double> {
  static constexpr Routine routine = Routine::dgemm;
  static constexpr const char* srname = "DGEMM ";
  template <class I> static GemmFn<double, I>* next() { return next_library<I>().dgemm; }
};

// Reference quick returns, left to the fallback: nothing to do when C is
// empty; C = beta*C, A and B unread, when alpha = 0 or k = 0.
template <class T>
const char* gemm_quick_return(int m, int n, int k, T alpha) {
  if (m == 0 || n == 0) return "quick return: empty C";
  if (alpha == T(0) || k == 0) return "quick return: C = beta*C";
  return nullptr;
}

template <class T, class I>
void run_next_gemm(char transa, char transb, I m, I n, I k, T alpha, const T* a, I lda,
                   const T* b, I ldb, T beta, T* c, I ldc) {
  GemmTraits<T>::template next<I>()(&transa, &transb, &m, &n, &k, &alpha, a, &lda, b, &ldb,
                                    &beta, c, &ldc, 1, 1);
}

}  // namespace

template <class T, class I>
void gemm(char transa, char transb, I m, I n, I k, T alpha, const T* a, I lda, const T* b,
          I ldb, T beta, T* c, I ldc) {
  if (int info = gemm_argument_error(transa, transb, m, n, k, lda, ldb, ldc)) {
    call_xerbla<I>(GemmTraits<T>::srname, info);
    return;
  }
  const char ta = upper_letter(transa), tb = upper_letter(transb);
  Shape shape{m, n, k, ta, tb};
  shape.same_operand = same_operand(ta, tb, m, n, k, a, lda, b, ldb);
  shape.reads_c = beta != T(0);
  if (!fits_int<I>(m, n, k, lda, ldb, ldc)) {
    return run_too_wide(GemmTraits<T>::routine, shape, [&] {
      run_next_gemm<T, I>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    });
  }
  const GemmCall<T> call{ta, tb, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb),
                         beta, c, int(ldc)};
  dispatch(GemmTraits<T>::routine, shape, gemm_quick_return(call.m, call.n, call.k, alpha), call,
           [](const GemmCall<T>& g) {
             run_next_gemm<T, I>(g.transa, g.transb, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b,
                                 g.ldb, g.beta, g.c, g.ldc);
           });
}

template void gemm<float, int>(char, char, int, int, int, float, const float*, int,
                               const float*, int, float, float*, int);
template void gemm<double, int>(char, char, int, int, int, double, const double*, int,
                                const double*, int, double, double*, int);
template void gemm<float, std::int64_t>(char, char, std::int64_t, std::int64_t, std::int64_t,
                                        float, const float*, std::int64_t, const float*,
                                        std::int64_t, float, float*, std::int64_t);
template void gemm<double, std::int64_t>(char, char, std::int64_t, std::int64_t, std::int64_t,
                                         double, const double*, std::int64_t, const double*,
                                         std::int64_t, double, double*, std::int64_t);

}  // namespace switchyard
