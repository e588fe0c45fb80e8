// The checked CBLAS xGEMM and xSYRK, as reference CBLAS has them, in every convention. Layout
// and transpose codes are checked here (cblas_xerbla); the rest is the Fortran check, with A
// and B swapped for row-major, so that errors are reported exactly as reference CBLAS reports
// them.
#include <cstdint>

#include "entry.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

// CBLAS's enum values.
constexpr int row_major = 101, col_major = 102;
constexpr int no_trans = 111, trans = 112, conj_trans = 113;

char trans_letter(int t) {
  switch (t) {
    case no_trans: return 'N';
    case trans: return 'T';
    case conj_trans: return 'C';
  }
  return 0;
}

// Sets reference CBLAS's globals (of the call's convention) for the duration of one call, as
// reference cblas_xgemm does, and clears them after.
template <class C>
class CblasCallScope {
 public:
  CblasCallScope() {
    set(cblas_row_major_flag<C>(), 0);
    set(cblas_call_from_c_flag<C>(), 1);
  }
  ~CblasCallScope() {
    set(cblas_call_from_c_flag<C>(), 0);
    set(cblas_row_major_flag<C>(), 0);
  }
  void row_major() { set(cblas_row_major_flag<C>(), 1); }

 private:
  static void set(int* flag, int value) {
    if (flag) *flag = value;
  }
};

// CBLAS's codes of UPLO.
constexpr int upper = 121, lower = 122;

}  // namespace

template <class C, class T>
void cblas_gemm(const char* name, int layout, int transa, int transb, Int<C> m, Int<C> n, Int<C> k,
                T alpha, const T* a, Int<C> lda, const T* b, Int<C> ldb, T beta, T* c, Int<C> ldc) {
  CblasCallScope<C> scope;
  const char ta = trans_letter(transa), tb = trans_letter(transb);
  if (layout == col_major) {
    if (!ta) return call_cblas_xerbla<C>(2, name, "Illegal TransA setting, %d\n", transa);
    if (!tb) return call_cblas_xerbla<C>(3, name, "Illegal TransB setting, %d\n", transb);
    gemm<C, T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if (layout == row_major) {
    scope.row_major();
    if (!ta) return call_cblas_xerbla<C>(2, name, "Illegal TransA setting, %d\n", transa);
    if (!tb) return call_cblas_xerbla<C>(3, name, "Illegal TransB setting, %d\n", transb);
    // C^T = op(B)^T op(A)^T: the column-major product of the swapped operands.
    gemm<C, T>(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
  } else {
    call_cblas_xerbla<C>(1, name, "Illegal layout setting, %d\n", layout);
  }
}

template <class C, class T>
void cblas_syrk(const char* name, int layout, int uplo, int trans_code, Int<C> n, Int<C> k, T alpha,
                const T* a, Int<C> lda, T beta, T* c, Int<C> ldc) {
  CblasCallScope<C> scope;
  const char t = trans_letter(trans_code);
  if (layout == col_major) {
    if (uplo != upper && uplo != lower) {
      return call_cblas_xerbla<C>(2, name, "Illegal Uplo setting, %d\n", uplo);
    }
    if (!t) return call_cblas_xerbla<C>(3, name, "Illegal Trans setting, %d\n", trans_code);
    syrk<C, T>(uplo == upper ? 'U' : 'L', t, n, k, alpha, a, lda, beta, c, ldc);
  } else if (layout == row_major) {
    scope.row_major();
    // Reference CBLAS numbers a bad UPLO 3 here, as it does a bad TRANS.
    if (uplo != upper && uplo != lower) {
      return call_cblas_xerbla<C>(3, name, "Illegal Uplo setting, %d\n", uplo);
    }
    if (!t) return call_cblas_xerbla<C>(3, name, "Illegal Trans setting, %d\n", trans_code);
    // The row-major C is the column-major C^T: the other triangle, A read transposed.
    syrk<C, T>(uplo == upper ? 'L' : 'U', t == 'N' ? 'T' : 'N', n, k, alpha, a, lda, beta, c, ldc);
  } else {
    call_cblas_xerbla<C>(1, name, "Illegal layout setting, %d\n", layout);
  }
}

// Every convention's entries.
template decltype(cblas_gemm<Lp64, float>) cblas_gemm<Lp64, float>;
template decltype(cblas_gemm<Lp64, double>) cblas_gemm<Lp64, double>;
template decltype(cblas_syrk<Lp64, float>) cblas_syrk<Lp64, float>;
template decltype(cblas_syrk<Lp64, double>) cblas_syrk<Lp64, double>;
template decltype(cblas_gemm<Ilp64, float>) cblas_gemm<Ilp64, float>;
template decltype(cblas_gemm<Ilp64, double>) cblas_gemm<Ilp64, double>;
template decltype(cblas_syrk<Ilp64, float>) cblas_syrk<Ilp64, float>;
template decltype(cblas_syrk<Ilp64, double>) cblas_syrk<Ilp64, double>;
template decltype(cblas_gemm<ScipyOpenblas32, float>) cblas_gemm<ScipyOpenblas32, float>;
template decltype(cblas_gemm<ScipyOpenblas32, double>) cblas_gemm<ScipyOpenblas32, double>;
template decltype(cblas_syrk<ScipyOpenblas32, float>) cblas_syrk<ScipyOpenblas32, float>;
template decltype(cblas_syrk<ScipyOpenblas32, double>) cblas_syrk<ScipyOpenblas32, double>;
template decltype(cblas_gemm<ScipyOpenblas64, float>) cblas_gemm<ScipyOpenblas64, float>;
template decltype(cblas_gemm<ScipyOpenblas64, double>) cblas_gemm<ScipyOpenblas64, double>;
template decltype(cblas_syrk<ScipyOpenblas64, float>) cblas_syrk<ScipyOpenblas64, float>;
template decltype(cblas_syrk<ScipyOpenblas64, double>) cblas_syrk<ScipyOpenblas64, double>;

}  // namespace switchyard
