// CBLAS entry points: cblas_sgemm, cblas_dgemm, cblas_ssyrk and cblas_dsyrk,
// as reference CBLAS has them. Layout and transpose codes are checked here (cblas_xerbla); the
// rest is the Fortran check, with A and B swapped for row-major, so that
// errors are reported exactly as reference CBLAS reports them.
#include "entry.hpp"
#include "export.hpp"
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

// Sets reference CBLAS's globals for the duration of one call, as
// reference cblas_xgemm does, and clears them after.
class CblasCallScope {
 public:
  CblasCallScope() {
    set(cblas_row_major_flag(), 0);
    set(cblas_call_from_c_flag(), 1);
  }
  ~CblasCallScope() {
    set(cblas_call_from_c_flag(), 0);
    set(cblas_row_major_flag(), 0);
  }
  void row_major() { set(cblas_row_major_flag(), 1); }

 private:
  static void set(int* flag, int value) {
    if (flag) *flag = value;
  }
};

template <class T>
void cblas_gemm(const char* name, int layout, int transa, int transb, int m, int n, int k,
                T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
  CblasCallScope scope;
  const char ta = trans_letter(transa), tb = trans_letter(transb);
  if (layout == col_major) {
    if (!ta) return call_cblas_xerbla(2, name, "Illegal TransA setting, %d\n", transa);
    if (!tb) return call_cblas_xerbla(3, name, "Illegal TransB setting, %d\n", transb);
    gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if (layout == row_major) {
    scope.row_major();
    if (!ta) return call_cblas_xerbla(2, name, "Illegal TransA setting, %d\n", transa);
    if (!tb) return call_cblas_xerbla(3, name, "Illegal TransB setting, %d\n", transb);
    // C^T = op(B)^T op(A)^T: the column-major product of the swapped operands.
    gemm(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
  } else {
    call_cblas_xerbla(1, name, "Illegal layout setting, %d\n", layout);
  }
}

// CBLAS's codes of UPLO.
constexpr int upper = 121, lower = 122;

template <class T>
void cblas_syrk(const char* name, int layout, int uplo, int trans_code, int n, int k, T alpha,
                const T* a, int lda, T beta, T* c, int ldc) {
  CblasCallScope scope;
  const char t = trans_letter(trans_code);
  if (layout == col_major) {
    if (uplo != upper && uplo != lower) {
      return call_cblas_xerbla(2, name, "Illegal Uplo setting, %d\n", uplo);
    }
    if (!t) return call_cblas_xerbla(3, name, "Illegal Trans setting, %d\n", trans_code);
    syrk(uplo == upper ? 'U' : 'L', t, n, k, alpha, a, lda, beta, c, ldc);
  } else if (layout == row_major) {
    scope.row_major();
    // Reference CBLAS numbers a bad UPLO 3 here, as it does a bad TRANS.
    if (uplo != upper && uplo != lower) {
      return call_cblas_xerbla(3, name, "Illegal Uplo setting, %d\n", uplo);
    }
    if (!t) return call_cblas_xerbla(3, name, "Illegal Trans setting, %d\n", trans_code);
    // The row-major C is the column-major C^T: the other triangle, A read transposed.
    syrk(uplo == upper ? 'L' : 'U', t == 'N' ? 'T' : 'N', n, k, alpha, a, lda, beta, c, ldc);
  } else {
    call_cblas_xerbla(1, name, "Illegal layout setting, %d\n", layout);
  }
}

}  // namespace
}  // namespace switchyard

SWITCHYARD_EXPORT void cblas_ssyrk(int layout, int uplo, int trans, int n, int k, float alpha,
                                   const float* a, int lda, float beta, float* c, int ldc) {
  switchyard::cblas_syrk("cblas_ssyrk", layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}

SWITCHYARD_EXPORT void cblas_dsyrk(int layout, int uplo, int trans, int n, int k, double alpha,
                                   const double* a, int lda, double beta, double* c, int ldc) {
  switchyard::cblas_syrk("cblas_dsyrk", layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}

SWITCHYARD_EXPORT void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k,
                                   float alpha, const float* a, int lda, const float* b, int ldb,
                                   float beta, float* c, int ldc) {
  switchyard::cblas_gemm("cblas_sgemm", layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                         beta, c, ldc);
}

SWITCHYARD_EXPORT void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k,
                                   double alpha, const double* a, int lda, const double* b,
                                   int ldb, double beta, double* c, int ldc) {
  switchyard::cblas_gemm("cblas_dgemm", layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                         beta, c, ldc);
}
