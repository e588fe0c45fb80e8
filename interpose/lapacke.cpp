// The checked LAPACKE_xgeqrf and its _work form, in every convention, with reference
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

template <class C, class T>
Int<C> lapacke_geqrf_work(const char* name, int layout, Int<C> m, Int<C> n, T* a, Int<C> lda,
                          T* tau, T* work, Int<C> lwork) {
  Int<C> info = 0;
  if (layout == col_major) {
    geqrf<C, T>(m, n, a, lda, tau, work, lwork, &info);
    return info < 0 ? info - 1 : info;
  }
  if (layout != row_major) {
    call_lapacke_xerbla<C>(name, -1);
    return -1;
  }
  const Int<C> lda_t = m > 1 ? m : 1;
  if (lda < n) {
    call_lapacke_xerbla<C>(name, -5);
    return -5;
  }
  if (lwork == -1) {
    geqrf<C, T>(m, n, a, lda_t, tau, work, lwork, &info);
    return info < 0 ? info - 1 : info;
  }
  T* a_t = static_cast<T*>(std::malloc(sizeof(T) * std::size_t(lda_t) * (n > 1 ? n : 1)));
  if (!a_t) {
    call_lapacke_xerbla<C>(name, transpose_memory_error);
    return transpose_memory_error;
  }
  transpose(row_major, m, n, a, lda, a_t, lda_t);
  geqrf<C, T>(m, n, a_t, lda_t, tau, work, lwork, &info);
  if (info < 0) info -= 1;
  transpose(col_major, m, n, a_t, lda_t, a, lda);
  std::free(a_t);
  return info;
}

template <class C, class T>
Int<C> lapacke_geqrf(const char* name, const char* work_name, int layout, Int<C> m, Int<C> n, T* a,
                     Int<C> lda, T* tau) {
  if (layout != col_major && layout != row_major) {
    call_lapacke_xerbla<C>(name, -1);
    return -1;
  }
  if (lapacke_nancheck<C>() && has_nan(layout, m, n, a, lda)) return -4;
  T query = 0;
  Int<C> info = lapacke_geqrf_work<C, T>(work_name, layout, m, n, a, lda, tau, &query, -1);
  if (info != 0) return info;
  const Int<C> lwork = Int<C>(query);
  T* work = static_cast<T*>(std::malloc(sizeof(T) * std::size_t(lwork)));
  if (!work) {
    call_lapacke_xerbla<C>(name, work_memory_error);
    return work_memory_error;
  }
  info = lapacke_geqrf_work<C, T>(work_name, layout, m, n, a, lda, tau, work, lwork);
  std::free(work);
  return info;
}

// Every convention's entries.
template decltype(lapacke_geqrf_work<Lp64, float>) lapacke_geqrf_work<Lp64, float>;
template decltype(lapacke_geqrf_work<Lp64, double>) lapacke_geqrf_work<Lp64, double>;
template decltype(lapacke_geqrf<Lp64, float>) lapacke_geqrf<Lp64, float>;
template decltype(lapacke_geqrf<Lp64, double>) lapacke_geqrf<Lp64, double>;
template decltype(lapacke_geqrf_work<Ilp64, float>) lapacke_geqrf_work<Ilp64, float>;
template decltype(lapacke_geqrf_work<Ilp64, double>) lapacke_geqrf_work<Ilp64, double>;
template decltype(lapacke_geqrf<Ilp64, float>) lapacke_geqrf<Ilp64, float>;
template decltype(lapacke_geqrf<Ilp64, double>) lapacke_geqrf<Ilp64, double>;
template decltype(lapacke_geqrf_work<ScipyOpenblas32, float>)
    lapacke_geqrf_work<ScipyOpenblas32, float>;
template decltype(lapacke_geqrf_work<ScipyOpenblas32, double>)
    lapacke_geqrf_work<ScipyOpenblas32, double>;
template decltype(lapacke_geqrf<ScipyOpenblas32, float>) lapacke_geqrf<ScipyOpenblas32, float>;
template decltype(lapacke_geqrf<ScipyOpenblas32, double>) lapacke_geqrf<ScipyOpenblas32, double>;
template decltype(lapacke_geqrf_work<ScipyOpenblas64, float>)
    lapacke_geqrf_work<ScipyOpenblas64, float>;
template decltype(lapacke_geqrf_work<ScipyOpenblas64, double>)
    lapacke_geqrf_work<ScipyOpenblas64, double>;
template decltype(lapacke_geqrf<ScipyOpenblas64, float>) lapacke_geqrf<ScipyOpenblas64, float>;
template decltype(lapacke_geqrf<ScipyOpenblas64, double>) lapacke_geqrf<ScipyOpenblas64, double>;

}  // namespace switchyard
