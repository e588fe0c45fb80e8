// The checked CBLAS xGEMM and xSYRK, as reference CBLAS has them, 32-bit and 64-bit. Layout
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
template <class I>
class CblasCallScope {
 public:
  CblasCallScope() {
    set(cblas_row_major_flag<I>(), 0);
    set(cblas_call_from_c_flag<I>(), 1);
  }
  ~CblasCallScope() {
    set(cblas_call_from_c_flag<I>(), 0);
    set(cblas_row_major_flag<I>(), 0);
  }
  void row_major() { set(cblas_row_major_flag<I>(), 1); }

 private:
  static void set(int* flag, int value) {
    if (flag) *flag = value;
  }
};

// CBLAS's codes of UPLO.
constexpr int upper = 121, lower = 122;

}  // namespace

template <class T, class I>
void cblas_gemm(const char* name, int layout, int transa, int transb, I m, I n, I k, T alpha,
                const T* a, I lda, const T* b, I ldb, T beta, T* c, I ldc) {
  CblasCallScope<I> scope;
  const char ta = trans_letter(transa), tb = trans_letter(transb);
  if (layout == col_major) {
    if (!ta) return call_cblas_xerbla<I>(2, name, "Illegal TransA setting, %d\n", transa);
    if (!tb) return call_cblas_xerbla<I>(3, name, "Illegal TransB setting, %d\n", transb);
    gemm<T, I>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if (layout == row_major) {
    scope.row_major();
    if (!ta) return call_cblas_xerbla<I>(2, name, "Illegal TransA setting, %d\n", transa);
    if (!tb) return call_cblas_xerbla<I>(3, name, "Illegal TransB setting, %d\n", transb);
    // C^T = op(B)^T op(A)^T: the column-major product of the swapped operands.
    gemm<T, I>(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
  } else {
    call_cblas_xerbla<I>(1, name, "Illegal layout setting, %d\n", layout);
  }
}

template <class T, class I>
void cblas_syrk(const char* name, int layout, int uplo, int trans_code, I n, I k, T alpha,
                const T* a, I lda, T beta, T* c, I ldc) {
  CblasCallScope<I> scope;
  const char t = trans_letter(trans_code);
  if (layout == col_major) {
    if (uplo != upper && uplo != lower) {
      return call_cblas_xerbla<I>(2, name, "Illegal Uplo setting, %d\n", uplo);
    }
    if (!t) return call_cblas_xerbla<I>(3, name, "Illegal Trans setting, %d\n", trans_code);
    syrk<T, I>(uplo == upper ? 'U' : 'L', t, n, k, alpha, a, lda, beta, c, ldc);
  } else if (layout == row_major) {
    scope.row_major();
    // Reference CBLAS numbers a bad UPLO 3 here, as it does a bad TRANS.
    if (uplo != upper && uplo != lower) {
      return call_cblas_xerbla<I>(3, name, "Illegal Uplo setting, %d\n", uplo);
    }
    if (!t) return call_cblas_xerbla<I>(3, name, "Illegal Trans setting, %d\n", trans_code);
    // The row-major C is the column-major C^T: the other triangle, A read transposed.
    syrk<T, I>(uplo == upper ? 'L' : 'U', t == 'N' ? 'T' : 'N', n, k, alpha, a, lda, beta, c, ldc);
  } else {
    call_cblas_xerbla<I>(1, name, "Illegal layout setting, %d\n", layout);
  }
}

template void cblas_gemm<float, int>(const char*, int, int, int, int, int, int, float,
                                     const float*, int, const float*, int, float, float*, int);
template void cblas_gemm<double, int>(const char*, int, int, int, int, int, int, double,
                                      const double*, int, const double*, int, double, double*,
                                      int);
template void cblas_gemm<float, std::int64_t>(const char*, int, int, int, std::int64_t,
                                              std::int64_t, std::int64_t, float, const float*,
                                              std::int64_t, const float*, std::int64_t, float,
                                              float*, std::int64_t);
template void cblas_gemm<double, std::int64_t>(const char*, int, int, int, std::int64_t,
                                               std::int64_t, std::int64_t, double, const double*,
                                               std::int64_t, const double*, std::int64_t, double,
                                               double*, std::int64_t);
template void cblas_syrk<float, int>(const char*, int, int, int, int, int, float, const float*,
                                     int, float, float*, int);
template void cblas_syrk<double, int>(const char*, int, int, int, int, int, double,
                                      const double*, int, double, double*, int);
template void cblas_syrk<float, std::int64_t>(const char*, int, int, int, std::int64_t,
                                              std::int64_t, float, const float*, std::int64_t,
                                              float, float*, std::int64_t);
template void cblas_syrk<double, std::int64_t>(const char*, int, int, int, std::int64_t,
                                               std::int64_t, double, const double*,
                                               std::int64_t, double, double*, std::int64_t);

}  // namespace switchyard
