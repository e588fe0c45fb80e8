// The checked xGEQR and xGEMQR of the Fortran entry points, in every convention: LAPACK's
// tall-skinny QR API (docs/qr-apply.md, "xGEQR, xGEMQR and xGETSLS").
//
// xGEQR stores Q in A and T, whose first five elements are a header: T(1) its size, T(2) and T(3)
// the block sizes MB and NB. With MB >= M, T(6:) holds xGEQRT's block factors (NB x N), and with
// MB < M, xLATSQR's blocks of MB rows each. Any xGEMQR reads either. A call the router sends to
// an xGEQRF route therefore writes the first layout, whatever MB the fallback would have chosen:
// V and R in A as xGEQRF leaves them, T(2) = M (MB where the fallback's own MB gives that layout
// too), T(1) and T(3) as the fallback would write them. xGEMQR of that layout is routed as the
// xORMQR it amounts to; of the other layout, made by the fallback's xGEQR, it is the fallback's.
// Both are traced under xGEQRF's and xORMQR's names, as xGEQRT and xGEMQRT are.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "checks.hpp"
#include "compact_wy.hpp"
#include "convention.hpp"
#include "entry.hpp"
#include "xerbla.hpp"

namespace switchyard {
namespace {

template <class T>
struct GeqrTraits;
template <>
struct GeqrTraits<float> {
  static constexpr const char* gemqr_name = "SGEMQR";
  template <class C>
  static GeqrFn<float, Int<C>>* next_geqr() {
    return required(C::next().sgeqr, "sgeqr_");
  }
  template <class C>
  static GemqrFn<float, Int<C>>* next_gemqr() {
    return required(C::next().sgemqr, "sgemqr_");
  }
};
template <>
struct GeqrTraits<double> {
  static constexpr const char* gemqr_name = "DGEMQR";
  template <class C>
  static GeqrFn<double, Int<C>>* next_geqr() {
    return required(C::next().dgeqr, "dgeqr_");
  }
  template <class C>
  static GemqrFn<double, Int<C>>* next_gemqr() {
    return required(C::next().dgemqr, "dgemqr_");
  }
};

// A block size stored in T, read as Fortran's INT reads it; a value no block size can be (not a
// number, past 2^62) reads as 0.
template <class T>
std::int64_t stored_size(T x) {
  return std::isfinite(x) && std::abs(x) < T(4.6e18) ? std::int64_t(x) : 0;
}

// Whether xGEQR's T with block sizes MB holds one block column (xGEQRT's layout) for an m x n A.
bool one_block_column(std::int64_t m, std::int64_t n, std::int64_t mb) {
  return m <= n || mb <= n || mb >= m;
}

// What the fallback's xGEQR makes of a valid call that factors: its block sizes, and the size it
// writes to T(1).
template <class I>
struct GeqrPlan {
  I mb, nb, t_size;
};

// The plan of the call as reference xGEQR 3.11 makes it: the block sizes of the fallback's
// workspace query (its ILAENV's, or the program's own ILAENV where it has one), taken down to
// NB = 1 (and MB = M) where TSIZE or LWORK is short of them but holds the minimum. Nothing for a
// call the fallback answers itself: an argument error, a query, an empty A.
template <class C, class T>
std::optional<GeqrPlan<Int<C>>> plan_of(Int<C> m, Int<C> n, T* a, Int<C> lda, Int<C> tsize,
                                        Int<C> lwork) {
  using I = Int<C>;
  if (m < 0 || n < 0 || lda < std::max<I>(1, m)) return std::nullopt;
  if (tsize == -1 || tsize == -2 || lwork == -1 || lwork == -2) return std::nullopt;
  if (std::min(m, n) == 0) return std::nullopt;
  T sizes[5] = {}, work_size = 0;
  const I query = -1;
  I info = 0;
  GeqrTraits<T>::template next_geqr<C>()(&m, &n, a, &lda, sizes, &query, &work_size, &query, &info);
  if (info != 0) return std::nullopt;
  const std::int64_t full_t = stored_size(sizes[0]), mb = stored_size(sizes[1]),
                     nb = stored_size(sizes[2]);
  if (nb < 1 || full_t < 5) return std::nullopt;
  const std::int64_t blocks = (full_t - 5) / (nb * n);
  GeqrPlan<I> plan{I(mb), I(nb), I(full_t)};
  bool minimal = false;
  if ((tsize < full_t || lwork < nb * n) && lwork >= n && tsize >= n + 5) {
    if (tsize < full_t) {
      minimal = true;
      plan.nb = 1;
      plan.mb = m;
    }
    if (lwork < std::int64_t(plan.nb) * n) {
      minimal = true;
      plan.nb = 1;
    }
  }
  if (!minimal && (tsize < full_t || lwork < nb * n)) return std::nullopt;  // its INFO -6 or -8
  plan.t_size = I(std::int64_t(plan.nb) * n * blocks + 5);
  return plan;
}

}  // namespace

template <class C, class T>
void geqr(Int<C> m, Int<C> n, T* a, Int<C> lda, T* t, Int<C> tsize, T* work, Int<C> lwork,
          Int<C>* info) {
  C::check_library();
  *info = 0;
  const auto run_next = [&] {
    GeqrTraits<T>::template next_geqr<C>()(&m, &n, a, &lda, t, &tsize, work, &lwork, info);
  };
  const std::optional<GeqrPlan<Int<C>>> plan = plan_of<C>(m, n, a, lda, tsize, lwork);
  if (!plan) return run_next();  // its checks, its INFO and XERBLA, its queries
  if (!fits_int<C>(m, n, lda, tsize, lwork)) {
    return run_too_wide(geqrf_routine<T>, Shape{m, n}, run_next);
  }
  // The block factors start at T(6), NB x N (ldt NB): TSIZE holds them (plan_of). WORK (at least
  // N) serves the xGEQRF, whose routes write only WORK(1).
  if (!factor_compact_wy<C>(m, n, plan->nb, a, lda, t + 5, plan->nb, work, lwork, info, nullptr,
                            run_next)) {
    return;
  }
  t[0] = T(plan->t_size);
  t[1] = T(one_block_column(m, n, plan->mb) ? plan->mb : m);
  t[2] = T(plan->nb);
  work[0] = T(std::max<std::int64_t>(1, std::int64_t(plan->nb) * n));
}

template <class C, class T>
void gemqr(char side, char trans, Int<C> m, Int<C> n, Int<C> k, const T* a, Int<C> lda, const T* t,
           Int<C> tsize, T* c, Int<C> ldc, T* work, Int<C> lwork, Int<C>* info) {
  C::check_library();
  *info = 0;
  // As the reference reads them, before its checks.
  const std::int64_t mb = stored_size(t[1]), nb = stored_size(t[2]);
  const bool left = same_letter(side, 'L');
  const std::int64_t lw = left ? std::int64_t(n) * nb : mb * nb;
  if (int bad = gemqr_argument_error(side, trans, m, n, k, lda, tsize, ldc, lwork, lw)) {
    *info = -bad;
    call_xerbla<C>(GeqrTraits<T>::gemqr_name, bad);
    return;
  }
  const char s = upper_letter(side), tr = upper_letter(trans);
  const auto run_next = [&] {
    GeqrTraits<T>::template next_gemqr<C>()(&s, &tr, &m, &n, &k, a, &lda, t, &tsize, c, &ldc, work,
                                            &lwork, info, 1, 1);
  };
  const Shape shape{m, n, k, s, tr};
  if (!fits_int<C>(m, n, k, lda, tsize, ldc, lwork)) {
    return run_too_wide(ormqr_routine<T>, shape, run_next);
  }
  // Reference xGEMQR's choice between xGEMQRT and xLAMTSQR: T in one block column.
  const bool compact_wy =
      (left && m <= k) || (!left && n <= k) || mb <= k || mb >= std::max<std::int64_t>({m, n, k});
  // An NB that xGEMQRT would refuse (T not written by an xGEQR of these reflectors) is left to
  // the fallback too, whose xGEMQRT reports it.
  const bool block_size_valid = nb >= 1 && (nb <= k || k == 0);
  const char* quick = lwork == -1   ? "workspace query"
                      : !compact_wy ? "no route takes T in xLATSQR's blocks: the fallback's xGEMQR"
                      : !block_size_valid
                          ? "no route takes an NB that xGEMQRT refuses: the fallback's xGEMQR"
                          : compact_wy_apply_quick_return(m, n, k);
  if (apply_compact_wy<C>(s, tr, m, n, k, Int<C>(nb), a, lda, t + 5, Int<C>(nb), c, ldc, work,
                          lwork, info, quick, run_next)) {
    work[0] = T(lw);
  }
}

// Every convention's entries.
template decltype(geqr<Lp64, float>) geqr<Lp64, float>;
template decltype(geqr<Lp64, double>) geqr<Lp64, double>;
template decltype(gemqr<Lp64, float>) gemqr<Lp64, float>;
template decltype(gemqr<Lp64, double>) gemqr<Lp64, double>;
template decltype(geqr<Ilp64, float>) geqr<Ilp64, float>;
template decltype(geqr<Ilp64, double>) geqr<Ilp64, double>;
template decltype(gemqr<Ilp64, float>) gemqr<Ilp64, float>;
template decltype(gemqr<Ilp64, double>) gemqr<Ilp64, double>;
template decltype(geqr<ScipyOpenblas32, float>) geqr<ScipyOpenblas32, float>;
template decltype(geqr<ScipyOpenblas32, double>) geqr<ScipyOpenblas32, double>;
template decltype(gemqr<ScipyOpenblas32, float>) gemqr<ScipyOpenblas32, float>;
template decltype(gemqr<ScipyOpenblas32, double>) gemqr<ScipyOpenblas32, double>;
template decltype(geqr<ScipyOpenblas64, float>) geqr<ScipyOpenblas64, float>;
template decltype(geqr<ScipyOpenblas64, double>) geqr<ScipyOpenblas64, double>;
template decltype(gemqr<ScipyOpenblas64, float>) gemqr<ScipyOpenblas64, float>;
template decltype(gemqr<ScipyOpenblas64, double>) gemqr<ScipyOpenblas64, double>;

}  // namespace switchyard
