// The checked LAPACKE_xgeqrf and its _work form, 32-bit and 64-bit, with reference
// LAPACKE's behaviour: layout check, the optional NaN check of A, workspace query and
// allocation, and row-major by transposition.
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "entry.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

// LAPACKE's constants.
constexpr int row_major = 101, col_major = 102;
constexpr int work_memory_error = -1010, transpose_memory_error = -1011;

template <class T, class I>
bool has_nan(int layout, I m, I n, const T* a, I lda) {
  const I outer = layout == col_major ? n : m, inner = layout == col_major ? m : n;
  for (I j = 0; j < outer; ++j) {
    for (I i = 0; i < inner; ++i) {
      if (std::isnan(a[std::size_t(j) * lda + i])) return true;
    }
  }
  return false;
}

// Copies the m x n matrix `from` (layout `from_layout`, leading dimension
// ldf) into the other layout, as LAPACKE_xge_trans does.
template <class T, class I>
void transpose(int from_layout, I m, I n, const T* from, I ldf, T* to, I ldt) {
  const I rows = from_layout == col_major ? m : n, cols = from_layout == col_major ? n : m;
  for (I j = 0; j < cols; ++j) {
    for (I i = 0; i < rows; ++i) to[std::size_t(i) * ldt + j] = from[std::size_t(j) * ldf + i];
  }
}

}  // namespace

template <class T, class I>
I lapacke_geqrf_work(const char* name, int layout, I m, I n, T* a, I lda, T* tau, T* work,
                     I lwork) {
  I info = 0;
  if (layout == col_major) {
    geqrf<T, I>(m, n, a, lda, tau, work, lwork, &info);
    return info < 0 ? info - 1 : info;
  }
  if (layout != row_major) {
    call_lapacke_xerbla<I>(name, -1);
    return -1;
  }
  const I lda_t = m > 1 ? m : 1;
  if (lda < n) {
    call_lapacke_xerbla<I>(name, -5);
    return -5;
  }
  if (lwork == -1) {
    geqrf<T, I>(m, n, a, lda_t, tau, work, lwork, &info);
    return info < 0 ? info - 1 : info;
  }
  T* a_t = static_cast<T*>(std::malloc(sizeof(T) * std::size_t(lda_t) * (n > 1 ? n : 1)));
  if (!a_t) {
    call_lapacke_xerbla<I>(name, transpose_memory_error);
    return transpose_memory_error;
  }
  transpose(row_major, m, n, a, lda, a_t, lda_t);
  geqrf<T, I>(m, n, a_t, lda_t, tau, work, lwork, &info);
  if (info < 0) info -= 1;
  transpose(col_major, m, n, a_t, lda_t, a, lda);
  std::free(a_t);
  return info;
}

template <class T, class I>
I lapacke_geqrf(const char* name, const char* work_name, int layout, I m, I n, T* a, I lda,
                T* tau) {
  if (layout != col_major && layout != row_major) {
    call_lapacke_xerbla<I>(name, -1);
    return -1;
  }
  if (lapacke_nancheck<I>() && has_nan(layout, m, n, a, lda)) return -4;
  T query = 0;
  I info = lapacke_geqrf_work<T, I>(work_name, layout, m, n, a, lda, tau, &query, -1);
  if (info != 0) return info;
  const I lwork = I(query);
  T* work = static_cast<T*>(std::malloc(sizeof(T) * std::size_t(lwork)));
  if (!work) {
    call_lapacke_xerbla<I>(name, work_memory_error);
    return work_memory_error;
  }
  info = lapacke_geqrf_work<T, I>(work_name, layout, m, n, a, lda, tau, work, lwork);
  std::free(work);
  return info;
}

template int lapacke_geqrf<float, int>(const char*, const char*, int, int, int, float*, int,
                                       float*);
template int lapacke_geqrf<double, int>(const char*, const char*, int, int, int, double*, int,
                                        double*);
template std::int64_t lapacke_geqrf<float, std::int64_t>(const char*, const char*, int,
                                                         std::int64_t, std::int64_t, float*,
                                                         std::int64_t, float*);
template std::int64_t lapacke_geqrf<double, std::int64_t>(const char*, const char*, int,
                                                          std::int64_t, std::int64_t, double*,
                                                          std::int64_t, double*);
template int lapacke_geqrf_work<float, int>(const char*, int, int, int, float*, int, float*,
                                            float*, int);
template int lapacke_geqrf_work<double, int>(const char*, int, int, int, double*, int, double*,
                                             double*, int);
template std::int64_t lapacke_geqrf_work<float, std::int64_t>(const char*, int, std::int64_t,
                                                              std::int64_t, float*, std::int64_t,
                                                              float*, float*, std::int64_t);
template std::int64_t lapacke_geqrf_work<double, std::int64_t>(const char*, int, std::int64_t,
                                                               std::int64_t, double*,
                                                               std::int64_t, double*, double*,
                                                               std::int64_t);

}  // namespace switchyard
