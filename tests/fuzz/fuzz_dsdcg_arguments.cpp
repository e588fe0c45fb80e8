// Calls SLATEC's DSDCG entry point (cg/dsdcg.cpp) with arguments of the
// input's choosing: N and NELT (also out of range), a matrix in SLAP triad
// or SLAP column format (mostly a symmetric, diagonally dominant one with a
// few entries broken, else any indices and values), ISYM, ITOL, TOL, ITMAX,
// IUNIT, LENW and LENIW. Every array has exactly the length its argument
// declares (IA and A: NELT; JA: NELT as a triad, N + 1 in column format;
// B and X: N; RWORK: LENW; IWORK: LENIW) and the part of COMMON /DSLBLK/
// past N is poisoned, so any access outside them is an ASan finding. Then
// what DSDCG documents is held: IERR in 0..6; B never written; RWORK never
// touched and IWORK only at 9 and 10; on IERR 1 and 3 X untouched; ITER,
// ERR and TOL as each IERR says; and a triad converted in place holds the
// same entries in column format, each column's diagonal first.
#include <fuzzer/FuzzedDataProvider.h>
#include <sanitizer/asan_interface.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <vector>

#include "switchyard.h"

// COMMON /DSLBLK/ SOLN(*), which ITOL = 11 measures the error against.
constexpr int kMaxN = 12;
extern "C" {
double dslblk_[kMaxN];
}

namespace {

// Small enough that one solve costs microseconds.
constexpr int kMaxNelt = 4 * kMaxN * kMaxN;
constexpr int kMaxItmax = 40;
constexpr int kMaxWork = 256;  // RWORK and IWORK past this are not allocated
constexpr double kTolFloor = 500.0 * DBL_EPSILON / 2.0;

#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      __builtin_printf("fuzz_dsdcg_arguments: %s failed\n", #cond); \
      std::abort();                                                  \
    }                                                                \
  } while (0)

// An array of exactly `count` elements on the heap (new T[0] for none), so
// that ASan reports the first element past its end.
template <class T>
struct Array {
  std::unique_ptr<T[]> p;
  std::size_t count;
  explicit Array(std::size_t c) : p(new T[c]), count(c) {}
  T* data() { return p.get(); }
  T& operator[](std::size_t i) { return p[i]; }
  std::vector<T> copy() const { return std::vector<T>(p.get(), p.get() + count); }
  bool same_bits(const std::vector<T>& v) const {
    return v.size() == count && (count == 0 || std::memcmp(v.data(), p.get(), count * sizeof(T)) == 0);
  }
};

// An index near [-1, limit + 2], now and then any int.
int index_near(FuzzedDataProvider& in, int limit) {
  if (in.ConsumeIntegralInRange(0, 15) == 0) return in.ConsumeIntegral<int>();
  return in.ConsumeIntegralInRange(-1, limit + 2);
}

double value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0: return in.ConsumeFloatingPoint<double>();
    case 1: return std::nan("");
    case 2: return INFINITY;
    default: return double(in.ConsumeIntegralInRange(-3, 3));
  }
}

struct Entry {
  int row, col;
  double value;
};

// A symmetric, strictly diagonally dominant matrix (so SPD): all its
// entries (ISYM = 0) or its lower triangle (ISYM = 1), in the input's order.
std::vector<Entry> spd_entries(FuzzedDataProvider& in, int n, bool lower_only) {
  std::vector<Entry> e;
  std::vector<double> offdiag_sum(std::size_t(n), 0.0);
  for (int j = 1; j <= n; ++j) {
    for (int i = j + 1; i <= n; ++i) {
      if (!in.ConsumeBool()) continue;
      const double v = double(in.ConsumeIntegralInRange(-2, 2));
      offdiag_sum[std::size_t(i - 1)] += std::abs(v);
      offdiag_sum[std::size_t(j - 1)] += std::abs(v);
      e.push_back({i, j, v});
      if (!lower_only) e.push_back({j, i, v});
    }
  }
  for (int i = 1; i <= n; ++i) {
    e.push_back({i, i, offdiag_sum[std::size_t(i - 1)] + 1.0 + in.ConsumeIntegralInRange(0, 3)});
  }
  for (std::size_t k = e.size(); k > 1; --k) {  // shuffled
    std::swap(e[k - 1], e[in.ConsumeIntegralInRange<std::size_t>(0, k - 1)]);
  }
  return e;
}

// The entries of a SLAP column matrix (JA(N+1) = NELT + 1 taken as given
// where JA has only N entries), or false if its pointers are not ordered.
bool column_entries(int n, int nelt, const int* ia, const int* ja, const double* a, bool ja_has_last,
                    std::vector<std::tuple<int, int, std::uint64_t>>& out) {
  auto pointer = [&](int j) { return j == n && !ja_has_last ? nelt + 1 : ja[j]; };
  if (pointer(0) != 1 || pointer(n) != nelt + 1) return false;
  for (int j = 0; j < n; ++j) {
    if (pointer(j + 1) < pointer(j)) return false;
    for (int k = pointer(j) - 1; k < pointer(j + 1) - 1; ++k) {
      std::uint64_t bits;
      std::memcpy(&bits, &a[k], sizeof bits);
      out.emplace_back(j + 1, ia[k], bits);
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  int n, nelt;
  const bool huge = in.ConsumeIntegralInRange(0, 31) == 0;
  if (huge) {
    // Any N with NELT < 1 (or any NELT with N < 1): rejected before any
    // array is looked at, so none is given.
    n = in.ConsumeIntegral<int>();
    nelt = n < 1 ? in.ConsumeIntegral<int>() : in.ConsumeIntegralInRange(INT_MIN, 0);
  } else {
    n = in.ConsumeIntegralInRange(-1, kMaxN);
  }
  const bool column = in.ConsumeBool();
  int isym = in.ConsumeIntegralInRange(0, 7) == 0 ? in.ConsumeIntegralInRange(-1, 2)
                                                  : in.ConsumeIntegralInRange(0, 1);

  // The matrix: a well-formed one with a few entries broken, or any.
  std::vector<int> ia_in, ja_in;
  std::vector<double> a_in;
  if (!huge) {
    if (n >= 1 && in.ConsumeIntegralInRange(0, 3) != 0) {
      std::vector<Entry> e = spd_entries(in, n, isym == 1);
      if (column) {
        std::stable_sort(e.begin(), e.end(), [](const Entry& x, const Entry& y) {
          if (x.col != y.col) return x.col < y.col;
          if ((x.row == x.col) != (y.row == y.col)) return x.row == x.col;
          return x.row < y.row;
        });
      }
      for (const Entry& x : e) {
        ia_in.push_back(x.row);
        ja_in.push_back(x.col);
        a_in.push_back(x.value);
      }
      nelt = int(e.size());
      if (column) {
        ja_in.assign(std::size_t(n) + 1, 1);
        for (const Entry& x : e) ++ja_in[std::size_t(x.col)];
        for (int j = 1; j <= n; ++j) ja_in[std::size_t(j)] += ja_in[std::size_t(j) - 1];
      }
      for (int m = in.ConsumeIntegralInRange(0, 3); m > 0 && nelt > 0; --m) {
        const std::size_t k = in.ConsumeIntegralInRange<std::size_t>(0, std::size_t(nelt) - 1);
        switch (in.ConsumeIntegralInRange(0, 4)) {
          case 0: ia_in[k] = index_near(in, n); break;
          case 1: {
            std::vector<int>& v = ja_in;
            v[in.ConsumeIntegralInRange<std::size_t>(0, v.size() - 1)] = index_near(in, column ? nelt : n);
            break;
          }
          case 2: a_in[k] = value(in); break;
          case 3: nelt = in.ConsumeIntegralInRange(0, nelt); break;  // fewer entries
          default: std::swap(ia_in[k], ia_in[in.ConsumeIntegralInRange<std::size_t>(0, std::size_t(nelt) - 1)]);
        }
      }
    } else {
      nelt = in.ConsumeIntegralInRange(-1, kMaxNelt);
      const std::size_t count = std::size_t(std::max(nelt, 0));
      for (std::size_t k = 0; k < count; ++k) {
        ia_in.push_back(index_near(in, n));
        if (!column) ja_in.push_back(index_near(in, n));
        a_in.push_back(value(in));
      }
      if (column && n >= 0) {
        long long p = 1;
        for (int j = 0; j <= n; ++j) {
          ja_in.push_back(in.ConsumeIntegralInRange(0, 7) == 0 ? index_near(in, nelt) : int(p));
          p = std::min<long long>(INT_MAX, (long long)ja_in.back() + in.ConsumeIntegralInRange(0, 3));
        }
      }
    }
    // Column format is what JA(N+1) = NELT + 1 says; JA holds N + 1 pointers.
    if (column && n >= 0) ja_in[std::size_t(n)] = nelt + 1;
  }

  // The arrays, exactly as long as the arguments declare.
  const std::size_t un = huge ? 0 : std::size_t(std::max(n, 0));
  const std::size_t unelt = huge ? 0 : std::size_t(std::max(nelt, 0));
  Array<int> ia(unelt), ja(huge ? 0 : column ? un + 1 : unelt);
  Array<double> a(unelt), b(un), x(un);
  ia_in.resize(ia.count, 0);
  ja_in.resize(ja.count, 0);
  a_in.resize(a.count, 0.0);
  std::copy_n(ia_in.begin(), ia.count, ia.data());
  std::copy_n(ja_in.begin(), ja.count, ja.data());
  std::copy_n(a_in.begin(), a.count, a.data());
  for (std::size_t i = 0; i < un; ++i) b[i] = value(in);
  for (std::size_t i = 0; i < un; ++i) x[i] = in.ConsumeBool() ? 0.0 : value(in);
  for (std::size_t i = 0; i < un && i < std::size_t(kMaxN); ++i) dslblk_[i] = value(in);

  int itol;
  switch (in.ConsumeIntegralInRange(0, 4)) {
    case 0: itol = 2; break;
    case 1: itol = 11; break;
    case 2: itol = in.ConsumeIntegral<int>(); break;
    default: itol = 1;
  }
  double tol;
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0: tol = kTolFloor / 2; break;  // below the floor: reset, IERR = 4
    case 1: tol = in.ConsumeFloatingPoint<double>(); break;
    case 2: tol = std::nan(""); break;
    case 3: tol = 0.0; break;
    default: tol = std::ldexp(1.0, -in.ConsumeIntegralInRange(1, 40));
  }
  int itmax = in.ConsumeIntegralInRange(-1, kMaxItmax);
  if (in.ConsumeIntegralInRange(0, 15) == 0) {
    // Any ITMAX, with a NaN in B so that the solve stops at once.
    itmax = in.ConsumeIntegral<int>();
    if (un > 0) b[0] = std::nan("");
  }
  int iunit = in.ConsumeIntegral<int>();
  const int five_n = int(std::min<long long>(INT_MAX - 2, 5LL * std::max(n, 0)));
  int lenw = in.ConsumeIntegralInRange(0, 3) == 0 ? in.ConsumeIntegral<int>()
                                                  : in.ConsumeIntegralInRange(five_n - 2, five_n + 2);
  int leniw = in.ConsumeIntegralInRange(0, 3) == 0 ? in.ConsumeIntegral<int>()
                                                   : in.ConsumeIntegralInRange(8, 12);
  Array<double> rwork(std::size_t(std::clamp(lenw, 0, kMaxWork)));
  Array<int> iwork(std::size_t(std::clamp(leniw, 0, kMaxWork)));
  for (std::size_t i = 0; i < rwork.count; ++i) rwork[i] = double(i) + 0.5;
  for (std::size_t i = 0; i < iwork.count; ++i) iwork[i] = -int(i) - 7;

  const std::vector<int> ia0 = ia.copy(), ja0 = ja.copy(), iwork0 = iwork.copy();
  const std::vector<double> a0 = a.copy(), b0 = b.copy(), x0 = x.copy(), rwork0 = rwork.copy();
  const double tol0 = tol;
  int iter = INT_MIN + 5, ierr = INT_MIN + 7;
  double err = -12345.0;

  // SOLN past N is not the caller's.
  if (un < std::size_t(kMaxN)) ASAN_POISON_MEMORY_REGION(dslblk_ + un, (kMaxN - un) * sizeof(double));
  dsdcg_(&n, b.data(), x.data(), &nelt, ia.data(), ja.data(), a.data(), &isym, &itol, &tol, &itmax,
         &iter, &err, &ierr, &iunit, rwork.data(), &lenw, iwork.data(), &leniw);
  ASAN_UNPOISON_MEMORY_REGION(dslblk_, sizeof dslblk_);

  CHECK(ierr >= 0 && ierr <= 6);
  CHECK(b.same_bits(b0));
  CHECK(rwork.same_bits(rwork0));
  for (std::size_t i = 0; i < iwork.count; ++i) {
    if (i != 8 && i != 9) CHECK(iwork[i] == iwork0[i]);
  }
  if (n < 1 || nelt < 1) {
    CHECK(ierr == 3);
    CHECK(ia.same_bits(ia0) && ja.same_bits(ja0) && a.same_bits(a0));
  }
  if (ierr == 1 || ierr == 3) CHECK(x.same_bits(x0));
  if (ierr == 1) CHECK(iter == 0 && err == DBL_MAX);
  if (ierr == 3 || ierr == 1) {
    CHECK(tol == tol0 || (std::isnan(tol) && std::isnan(tol0)) || (tol0 < kTolFloor && tol == kTolFloor));
  } else {
    // Past the argument checks: the workspace was large enough.
    CHECK(lenw >= five_n && leniw >= 10);
    CHECK(iwork[8] == 11 && iwork[9] == 5 * n + 1);
    CHECK(itol == 1 || itol == 2 || itol == 11);
    CHECK(isym == 0 || isym == 1);
    if (tol0 < kTolFloor) {
      CHECK(tol == kTolFloor);
    } else {
      CHECK(tol == tol0);
    }
  }
  if (ierr == 4) CHECK(tol0 < kTolFloor);
  if (ierr == 0 || ierr == 4) CHECK(err <= tol && iter >= 0 && iter <= std::max(itmax, 0));
  if (ierr == 2) CHECK((long long)iter == std::min<long long>(INT_MAX, (long long)itmax + 1));
  if (ierr == 5 || ierr == 6) CHECK(iter >= 1 && (long long)iter <= std::max(itmax, 0) + 1LL);

  // The matrix: a triad whose indices are in range is now in column format
  // with the same entries, each column's diagonal first where it has one.
  if (n >= 1 && nelt >= 1 && !huge) {
    // JA(N+1) is read only where NELT > N (a triad's JA has NELT entries):
    // with NELT = N both formats are read as a triad, which must then be a
    // diagonal matrix; in column format only IA(K) = JA(K) = K is one.
    const bool read_as_column = nelt != n && (column || (unelt > un && ja0[un] == nelt + 1));
    bool in_range = true;
    for (std::size_t k = 0; k < unelt; ++k) {
      in_range = in_range && ia0[k] >= 1 && ia0[k] <= n;
      if (!read_as_column) in_range = in_range && ja0[k] >= 1 && ja0[k] <= n;
    }
    if (read_as_column) {
      CHECK(ia.same_bits(ia0) && ja.same_bits(ja0) && a.same_bits(a0));
    } else if (!in_range) {
      CHECK(ierr == 3);
    } else if (ierr != 3 || !ia.same_bits(ia0) || !ja.same_bits(ja0) || !a.same_bits(a0)) {
      std::vector<std::tuple<int, int, std::uint64_t>> before, after;
      for (std::size_t k = 0; k < unelt; ++k) {
        std::uint64_t bits;
        std::memcpy(&bits, &a0[k], sizeof bits);
        before.emplace_back(ja0[k], ia0[k], bits);
      }
      CHECK(column_entries(n, nelt, ia.data(), ja.data(), a.data(), unelt > un, after));
      std::vector<std::tuple<int, int, std::uint64_t>> sorted_after = after;
      std::sort(before.begin(), before.end());
      std::sort(sorted_after.begin(), sorted_after.end());
      CHECK(before == sorted_after);
      // Within each column: the diagonal first if present, then rows ascending.
      for (std::size_t k = 1; k < after.size(); ++k) {
        const auto& [c0, r0, v0] = after[k - 1];
        const auto& [c1, r1, v1] = after[k];
        if (c0 != c1) continue;
        if (r1 == c1) CHECK(r0 == c0);  // diagonal entries (repeated too) first
        if (r0 != c0) CHECK(r0 <= r1);
      }
    }
  }
  return 0;
}
