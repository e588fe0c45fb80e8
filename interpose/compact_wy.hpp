// The routed part of the entry points whose Q is stored in compact-WY form, reflectors with each
// block's T: xGEQRT/xGEMQRT, and xGEQR/xGEMQR when their T holds one such block column. Each is
// weighed as the xGEQRF or xORMQR it amounts to and traced under that name; a call the router
// keeps runs `keep`, the program's own call, in the fallback.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "calls.hpp"
#include "convention.hpp"
#include "dispatch.hpp"
#include "entry.hpp"
#include "qr/block_factors.hpp"

namespace switchyard {

template <class T>
inline constexpr Routine geqrf_routine = sizeof(T) == sizeof(float) ? Routine::sgeqrf
                                                                    : Routine::dgeqrf;
template <class T>
inline constexpr Routine ormqr_routine = sizeof(T) == sizeof(float) ? Routine::sormqr
                                                                    : Routine::dormqr;

// Switchyard's own xSYRK of convention C, as a BLAS function: the Gram products of
// form_block_factors go through the router too.
template <class C, class T>
void routed_syrk(const char* uplo, const char* trans, const Int<C>* n, const Int<C>* k,
                 const T* alpha, const T* a, const Int<C>* lda, const T* beta, T* c,
                 const Int<C>* ldc, std::size_t, std::size_t) {
  syrk<C, T>(*uplo, *trans, *n, *k, *alpha, a, *lda, *beta, c, *ldc);
}

// The fallback answers empty calls, as it answers xGEQRF's and xORMQR's.
inline const char* compact_wy_factor_quick_return(std::int64_t m, std::int64_t n) {
  return std::min(m, n) == 0 ? "quick return: empty A" : nullptr;
}
inline const char* compact_wy_apply_quick_return(std::int64_t m, std::int64_t n, std::int64_t k) {
  return m == 0 || n == 0 || k == 0 ? "quick return: empty C or no reflectors" : nullptr;
}

// A (m x n, checked arguments) factored in place into V and R as xGEQRF leaves them, and the
// upper triangle of each block of nb reflectors' T written to t (ldt >= nb) as xGEQRT writes it;
// the first work_size elements of WORK (at least n) serve the xGEQRF. True when a route ran it;
// false when the router kept the call and `keep` ran. A call with a `quick` reason (a workspace
// query, an empty A) goes to `keep` as such.
template <class C, class T, class Keep>
bool factor_compact_wy(Int<C> m, Int<C> n, Int<C> nb, T* a, Int<C> lda, T* t, Int<C> ldt, T* work,
                       std::int64_t work_size, Int<C>* info, const char* quick, Keep&& keep) {
  // The xGEQRF's tau is our own: T's diagonal holds it afterwards.
  std::vector<T> tau(static_cast<std::size_t>(std::min(m, n)));
  int checked_info = 0;
  bool kept = false;
  const int lwork = int(std::min<std::int64_t>(INT_MAX, work_size));
  const GeqrfCall<T> call{int(m), int(n), a, int(lda), tau.data(), work, lwork, &checked_info};
  dispatch(geqrf_routine<T>, Shape{m, n}, quick, C::figures, call, [&](const GeqrfCall<T>&) {
    kept = true;
    keep();
  });
  if (kept) return false;
  // T from V's Gram matrices, through the routed xSYRK, which the router weighs as any other:
  // a Gram product of NB columns over every row is the shape BLAS libraries run worst. On the
  // H200 host OpenBLAS's dsyrk made T of 2^22 x 64 (NB = 32) in about 650 ms, against 104 ms
  // for the factorization itself on the device.
  form_block_factors(&routed_syrk<C, T>, int(m), int(n), int(nb), a, int(lda), tau.data(), t,
                     int(ldt));
  *info = checked_info;
  return true;
}

// C <- op(Q) C or C op(Q) (checked arguments; side and trans upper case) for the k reflectors of
// V with their block factors (blocks of nb) in T, run as the xORMQR of the same Q: each
// reflector's tau read off T's diagonal. The first lwork elements of WORK serve the xORMQR. True
// when a route ran it; false when the router kept the call and `keep` ran. A call with a `quick`
// reason goes to `keep` as such, T unread (a workspace query's T may hold only its sizes).
template <class C, class T, class Keep>
bool apply_compact_wy(char side, char trans, Int<C> m, Int<C> n, Int<C> k, Int<C> nb, const T* v,
                      Int<C> ldv, const T* t, Int<C> ldt, T* c, Int<C> ldc, T* work,
                      std::int64_t lwork, Int<C>* info, const char* quick, Keep&& keep) {
  std::vector<T> tau;
  if (!quick) {
    tau.resize(static_cast<std::size_t>(k));
    taus_of_block_factors(int(k), int(nb), t, int(ldt), tau.data());
  }
  int checked_info = 0;
  const int work_size = int(std::min<std::int64_t>(INT_MAX, lwork));
  const OrmqrCall<T> call{side, trans,    int(m), int(n),    int(k),       v, int(ldv), tau.data(),
                          c,    int(ldc), work,   work_size, &checked_info};
  bool kept = false;
  dispatch(ormqr_routine<T>, Shape{m, n, k, side, trans}, quick, C::figures, call,
           [&](const OrmqrCall<T>&) {
             kept = true;
             keep();
           });
  if (kept) return false;
  *info = checked_info;
  return true;
}

}  // namespace switchyard
