// LAPACKE entry points: LAPACKE_sgeqrf, LAPACKE_dgeqrf and their _work forms,
// with reference LAPACKE's behaviour: layout check, the optional NaN check
// of A, workspace query and allocation, and row-major by transposition.
#include <cmath>
#include <cstdlib>

#include "entry.hpp"
#include "export.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

// LAPACKE's constants.
constexpr int row_major = 101, col_major = 102;
constexpr int work_memory_error = -1010, transpose_memory_error = -1011;

template <class T>
bool has_nan(int layout, int m, int n, const T* a, int lda) {
  const int outer = layout == col_major ? n : m, inner = layout == col_major ? m : n;
  for (int j = 0; j < outer; ++j) {
    for (int i = 0; i < inner; ++i) {
      if (std::isnan(a[std::size_t(j) * lda + i])) return true;
    }
  }
  return false;
}

// Copies the m x n matrix `from` (layout `from_layout`, leading dimension
// ldf) into the other layout, as LAPACKE_xge_trans does.
template <class T>
void transpose(int from_layout, int m, int n, const T* from, int ldf, T* to, int ldt) {
  const int rows = from_layout == col_major ? m : n, cols = from_layout == col_major ? n : m;
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < rows; ++i) to[std::size_t(i) * ldt + j] = from[std::size_t(j) * ldf + i];
  }
}

template <class T>
int geqrf_work(const char* name, int layout, int m, int n, T* a, int lda, T* tau, T* work,
               int lwork) {
  int info = 0;
  if (layout == col_major) {
    geqrf(m, n, a, lda, tau, work, lwork, &info);
    return info < 0 ? info - 1 : info;
  }
  if (layout != row_major) {
    call_lapacke_xerbla(name, -1);
    return -1;
  }
  const int lda_t = m > 1 ? m : 1;
  if (lda < n) {
    call_lapacke_xerbla(name, -5);
    return -5;
  }
  if (lwork == -1) {
    geqrf(m, n, a, lda_t, tau, work, lwork, &info);
    return info < 0 ? info - 1 : info;
  }
  T* a_t = static_cast<T*>(std::malloc(sizeof(T) * std::size_t(lda_t) * (n > 1 ? n : 1)));
  if (!a_t) {
    call_lapacke_xerbla(name, transpose_memory_error);
    return transpose_memory_error;
  }
  transpose(row_major, m, n, a, lda, a_t, lda_t);
  geqrf(m, n, a_t, lda_t, tau, work, lwork, &info);
  if (info < 0) info -= 1;
  transpose(col_major, m, n, a_t, lda_t, a, lda);
  std::free(a_t);
  return info;
}

template <class T>
int geqrf_driver(const char* name, const char* work_name, int layout, int m, int n, T* a,
                 int lda, T* tau) {
  if (layout != col_major && layout != row_major) {
    call_lapacke_xerbla(name, -1);
    return -1;
  }
  if (lapacke_nancheck() && has_nan(layout, m, n, a, lda)) return -4;
  T query = 0;
  int info = geqrf_work(work_name, layout, m, n, a, lda, tau, &query, -1);
  if (info != 0) return info;
  const int lwork = int(query);
  T* work = static_cast<T*>(std::malloc(sizeof(T) * std::size_t(lwork)));
  if (!work) {
    call_lapacke_xerbla(name, work_memory_error);
    return work_memory_error;
  }
  info = geqrf_work(work_name, layout, m, n, a, lda, tau, work, lwork);
  std::free(work);
  return info;
}

}  // namespace
}  // namespace switchyard

SWITCHYARD_EXPORT int LAPACKE_sgeqrf(int layout, int m, int n, float* a, int lda, float* tau) {
  return switchyard::geqrf_driver("LAPACKE_sgeqrf", "LAPACKE_sgeqrf_work", layout, m, n, a, lda,
                                  tau);
}

SWITCHYARD_EXPORT int LAPACKE_dgeqrf(int layout, int m, int n, double* a, int lda, double* tau) {
  return switchyard::geqrf_driver("LAPACKE_dgeqrf", "LAPACKE_dgeqrf_work", layout, m, n, a, lda,
                                  tau);
}

SWITCHYARD_EXPORT int LAPACKE_sgeqrf_work(int layout, int m, int n, float* a, int lda,
                                          float* tau, float* work, int lwork) {
  return switchyard::geqrf_work("LAPACKE_sgeqrf_work", layout, m, n, a, lda, tau, work, lwork);
}

SWITCHYARD_EXPORT int LAPACKE_dgeqrf_work(int layout, int m, int n, double* a, int lda,
                                          double* tau, double* work, int lwork) {
  return switchyard::geqrf_work("LAPACKE_dgeqrf_work", layout, m, n, a, lda, tau, work, lwork);
}
