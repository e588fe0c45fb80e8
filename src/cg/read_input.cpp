#include "cg/read_input.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace switchyard::cg {
namespace {

InputError error(int status, long long where = -1) { return {status, where}; }

// Two stored copies of one entry of a full symmetric matrix agree when they
// differ by no more than rounding in their last few bits. A NaN agrees with
// anything: the solve reports it as such.
template <class V>
bool mirror_values_agree(V a, V b) {
  if (a == b || std::isnan(a) || std::isnan(b)) return true;
  const V scale = std::max(std::abs(a), std::abs(b));
  return std::abs(a - b) <= V(64) * std::numeric_limits<V>::epsilon() * scale;
}

// One entry of the input: 0-based row and column, and its position in the
// input's entry arrays (for bad_entry).
struct Entry {
  int row, col;
  long long pos;
};

// Structural checks of each format, in input order, stopping at the first
// problem; on success calls visit(entry) for every entry.
template <class Visit>
InputError scan_csr(const switchyard_cg_matrix& a, Visit&& visit) {
  const int base = a.index_base;
  if (a.row_ptr[0] != base) return error(SWITCHYARD_CG_ERR_INDEX, 0);
  for (int i = 0; i < a.n; ++i) {
    if (a.row_ptr[i + 1] < a.row_ptr[i]) return error(SWITCHYARD_CG_ERR_INDEX, i + 1);
  }
  const long long nnz = (long long)a.row_ptr[a.n] - base;
  if (nnz > 0 && (!a.col_idx || !a.values)) return error(SWITCHYARD_CG_ERR_ARGUMENT);
  for (int i = 0; i < a.n; ++i) {
    for (long long k = a.row_ptr[i] - base; k < a.row_ptr[i + 1] - base; ++k) {
      const int c = a.col_idx[k] - base;
      if (c < 0 || c >= a.n) return error(SWITCHYARD_CG_ERR_INDEX, k);
      if (k > a.row_ptr[i] - base) {
        const int previous = a.col_idx[k - 1] - base;
        if (c == previous) return error(SWITCHYARD_CG_ERR_DUPLICATE, k);
        if (c < previous) return error(SWITCHYARD_CG_ERR_UNSORTED, k);
      }
    }
  }
  for (int i = 0; i < a.n; ++i) {
    for (long long k = a.row_ptr[i] - base; k < a.row_ptr[i + 1] - base; ++k) {
      visit(Entry{i, a.col_idx[k] - base, k});
    }
  }
  return {};
}

template <class Visit>
InputError scan_slap_triad(const switchyard_cg_matrix& a, Visit&& visit) {
  for (long long k = 0; k < a.nelt; ++k) {
    if (a.ia[k] < 1 || a.ia[k] > a.n || a.ja[k] < 1 || a.ja[k] > a.n) {
      return error(SWITCHYARD_CG_ERR_INDEX, k);
    }
  }
  for (long long k = 0; k < a.nelt; ++k) visit(Entry{a.ia[k] - 1, a.ja[k] - 1, k});
  return {};
}

// SLAP column format: ja holds the column pointers (ja[0] = 1, ja[n] =
// nelt + 1), and every column starts with its diagonal entry.
template <class Visit>
InputError scan_slap_column(const switchyard_cg_matrix& a, Visit&& visit) {
  if (a.ja[0] != 1) return error(SWITCHYARD_CG_ERR_INDEX, 0);
  if (a.ja[a.n] != (long long)a.nelt + 1) return error(SWITCHYARD_CG_ERR_INDEX, a.n);
  for (int j = 0; j < a.n; ++j) {
    if (a.ja[j + 1] < a.ja[j]) return error(SWITCHYARD_CG_ERR_INDEX, j + 1);
  }
  for (int j = 0; j < a.n; ++j) {
    const long long first = a.ja[j] - 1, end = a.ja[j + 1] - 1;
    for (long long k = first; k < end; ++k) {
      if (a.ia[k] < 1 || a.ia[k] > a.n) return error(SWITCHYARD_CG_ERR_INDEX, k);
    }
    if (first == end || a.ia[first] != j + 1) return error(SWITCHYARD_CG_ERR_UNSORTED, first);
  }
  for (int j = 0; j < a.n; ++j) {
    for (long long k = a.ja[j] - 1; k < a.ja[j + 1] - 1; ++k) visit(Entry{a.ia[k] - 1, j, k});
  }
  return {};
}

template <class Visit>
InputError scan_sparse(const switchyard_cg_matrix& a, Visit&& visit) {
  switch (a.format) {
    case SWITCHYARD_CG_CSR: return scan_csr(a, visit);
    case SWITCHYARD_CG_SLAP_TRIAD: return scan_slap_triad(a, visit);
    default: return scan_slap_column(a, visit);
  }
}

// Sorts each row of `out` by column (carrying values and input positions)
// and reports the first repeated column.
template <class V>
InputError sort_rows(LowerCsr<V>& out, std::vector<long long>& pos) {
  std::vector<Index> order;
  std::vector<int> col;
  std::vector<V> val;
  std::vector<long long> where;
  for (int i = 0; i < out.n; ++i) {
    const Index begin = out.row_ptr[i], end = out.row_ptr[i + 1];
    if (!std::is_sorted(out.col.begin() + begin, out.col.begin() + end)) {
      order.resize(std::size_t(end - begin));
      std::iota(order.begin(), order.end(), begin);
      std::stable_sort(order.begin(), order.end(),
                       [&](Index x, Index y) { return out.col[x] < out.col[y]; });
      col.clear(), val.clear(), where.clear();
      for (Index k : order) {
        col.push_back(out.col[k]);
        val.push_back(out.val[k]);
        where.push_back(pos[k]);
      }
      std::copy(col.begin(), col.end(), out.col.begin() + begin);
      std::copy(val.begin(), val.end(), out.val.begin() + begin);
      std::copy(where.begin(), where.end(), pos.begin() + begin);
    }
    for (Index k = begin + 1; k < end; ++k) {
      if (out.col[k] == out.col[k - 1]) {
        return error(SWITCHYARD_CG_ERR_DUPLICATE, std::max(pos[k], pos[k - 1]));
      }
    }
  }
  return {};
}

// Full storage: every entry above the diagonal must mirror one below it with
// the same value (up to rounding), and every entry below must be mirrored.
// Explicit zeros need no mirror.
template <class V>
InputError check_mirrors(const LowerCsr<V>& lower, const std::vector<long long>& pos,
                         const std::vector<Entry>& upper, const V* values) {
  std::vector<char> matched(lower.col.size(), 0);
  for (const Entry& e : upper) {
    // a(row, col) with row < col mirrors a(col, row), in lower row `col`.
    const auto first = lower.col.begin() + lower.row_ptr[e.col];
    const auto last = lower.col.begin() + lower.row_ptr[e.col + 1];
    const auto it = std::lower_bound(first, last, e.row);
    const V v = values[e.pos];
    if (it == last || *it != e.row) {
      if (v != V(0)) return error(SWITCHYARD_CG_ERR_NOT_SYMMETRIC, e.pos);
      continue;
    }
    const std::size_t k = std::size_t(it - lower.col.begin());
    if (matched[k]) return error(SWITCHYARD_CG_ERR_DUPLICATE, e.pos);
    matched[k] = 1;
    if (!mirror_values_agree(v, lower.val[k])) {
      return error(SWITCHYARD_CG_ERR_NOT_SYMMETRIC, e.pos);
    }
  }
  for (int i = 0; i < lower.n; ++i) {
    for (Index k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
      if (lower.col[k] != i && !matched[k] && lower.val[k] != V(0)) {
        return error(SWITCHYARD_CG_ERR_NOT_SYMMETRIC, pos[k]);
      }
    }
  }
  return {};
}

}  // namespace

InputError check_descriptor(const switchyard_cg_matrix& a) {
  if (a.format < SWITCHYARD_CG_CSR || a.format > SWITCHYARD_CG_DIA) {
    return error(SWITCHYARD_CG_ERR_ARGUMENT);
  }
  if (a.symmetry != SWITCHYARD_CG_FULL && a.symmetry != SWITCHYARD_CG_TRIANGLE) {
    return error(SWITCHYARD_CG_ERR_ARGUMENT);
  }
  if (a.value_type != SWITCHYARD_CG_DOUBLE && a.value_type != SWITCHYARD_CG_FLOAT) {
    return error(SWITCHYARD_CG_ERR_ARGUMENT);
  }
  if (a.n <= 0) return error(SWITCHYARD_CG_ERR_N);
  switch (a.format) {
    case SWITCHYARD_CG_CSR:
      if (a.index_base != 0 && a.index_base != 1) return error(SWITCHYARD_CG_ERR_ARGUMENT);
      if (!a.row_ptr) return error(SWITCHYARD_CG_ERR_ARGUMENT);
      return {};
    case SWITCHYARD_CG_SLAP_TRIAD:
    case SWITCHYARD_CG_SLAP_COLUMN:
      if (a.nelt < 1) return error(SWITCHYARD_CG_ERR_N);
      if (!a.ia || !a.ja || !a.values) return error(SWITCHYARD_CG_ERR_ARGUMENT);
      return {};
    default:
      if (a.ndiag < 1) return error(SWITCHYARD_CG_ERR_N);
      if (!a.offsets || !a.values) return error(SWITCHYARD_CG_ERR_ARGUMENT);
      return {};
  }
}

template <class V>
InputError read_sparse(const switchyard_cg_matrix& a, LowerCsr<V>& out) {
  const V* values = static_cast<const V*>(a.values);
  const bool triangle = a.symmetry == SWITCHYARD_CG_TRIANGLE;
  // One triangle: each entry stands for itself and its mirror, and is kept
  // as the one below the diagonal. Full: the lower entries are kept, the
  // upper ones only checked against them.
  const auto kept = [&](Entry e) {
    if (triangle && e.col > e.row) std::swap(e.row, e.col);
    return e;
  };
  std::vector<Index> count(std::size_t(a.n) + 1, 0);
  std::size_t upper_count = 0;
  InputError e = scan_sparse(a, [&](Entry x) {
    x = kept(x);
    if (x.col <= x.row) {
      ++count[std::size_t(x.row) + 1];
    } else {
      ++upper_count;
    }
  });
  if (e.status) return e;

  out.n = a.n;
  out.row_ptr.assign(count.begin(), count.end());
  std::partial_sum(out.row_ptr.begin(), out.row_ptr.end(), out.row_ptr.begin());
  const std::size_t lower_count = std::size_t(out.row_ptr[std::size_t(a.n)]);
  out.col.resize(lower_count);
  out.val.resize(lower_count);
  std::vector<long long> pos(lower_count);
  std::vector<Entry> upper;
  upper.reserve(upper_count);
  std::vector<Index> fill(out.row_ptr.begin(), out.row_ptr.end() - 1);
  scan_sparse(a, [&](Entry x) {
    x = kept(x);
    if (x.col > x.row) {
      upper.push_back(x);
      return;
    }
    const Index k = fill[std::size_t(x.row)]++;
    out.col[std::size_t(k)] = x.col;
    out.val[std::size_t(k)] = values[x.pos];
    pos[std::size_t(k)] = x.pos;
  });
  if ((e = sort_rows(out, pos)).status) return e;
  if (!triangle) return check_mirrors(out, pos, upper, values);
  return {};
}

template <class V>
InputError read_dia(const switchyard_cg_matrix& a, DiaHalf<V>& out) {
  const int n = a.n;
  const V* values = static_cast<const V*>(a.values);
  // slot[n - 1 + o]: which input diagonal has offset o, or -1.
  std::vector<int> slot(2 * std::size_t(n) - 1, -1);
  for (int d = 0; d < a.ndiag; ++d) {
    const int o = a.offsets[d];
    if (o <= -n || o >= n) return error(SWITCHYARD_CG_ERR_INDEX, d);
    if (slot[std::size_t(n - 1 + o)] >= 0) return error(SWITCHYARD_CG_ERR_DUPLICATE, d);
    slot[std::size_t(n - 1 + o)] = d;
  }
  const auto input = [&](int o) -> const V* {
    const int d = slot[std::size_t(n - 1 + o)];
    return d < 0 ? nullptr : values + std::size_t(d) * std::size_t(n);
  };
  const bool triangle = a.symmetry == SWITCHYARD_CG_TRIANGLE;
  for (int m = 1; m < n; ++m) {
    const V* below = input(-m);  // below[i] = a(i, i - m), i >= m
    const V* above = input(m);   // above[i] = a(i, i + m), i < n - m
    if (!below && !above) continue;
    if (triangle && below && above) {
      return error(SWITCHYARD_CG_ERR_DUPLICATE, std::max(slot[std::size_t(n - 1 - m)],
                                                         slot[std::size_t(n - 1 + m)]));
    }
    if (!triangle) {
      // Full storage: a(i, i - m) = a(i - m, i) = above[i - m] for every row.
      for (int i = m; i < n; ++i) {
        const V lo = below ? below[i] : V(0), hi = above ? above[i - m] : V(0);
        if (!mirror_values_agree(lo, hi)) {
          return error(SWITCHYARD_CG_ERR_NOT_SYMMETRIC, slot[std::size_t(n - 1 + (below ? -m : m))]);
        }
      }
    }
  }

  out.n = n;
  out.diag.assign(std::size_t(n), V(0));
  if (const V* d0 = input(0)) std::copy(d0, d0 + n, out.diag.begin());
  out.offsets.clear();
  for (int m = 1; m < n; ++m) {
    if (input(-m) || input(m)) out.offsets.push_back(m);
  }
  out.lower.assign(out.offsets.size() * std::size_t(n), V(0));
  for (int d = 0; d < out.ndiag(); ++d) {
    const int m = out.offsets[std::size_t(d)];
    V* l = out.lower.data() + std::size_t(d) * std::size_t(n);
    if (const V* below = input(-m)) {
      std::copy(below + m, below + n, l + m);
    } else {
      const V* above = input(m);
      std::copy(above, above + (n - m), l + m);
    }
  }
  return {};
}

template InputError read_sparse<double>(const switchyard_cg_matrix&, LowerCsr<double>&);
template InputError read_sparse<float>(const switchyard_cg_matrix&, LowerCsr<float>&);
template InputError read_dia<double>(const switchyard_cg_matrix&, DiaHalf<double>&);
template InputError read_dia<float>(const switchyard_cg_matrix&, DiaHalf<float>&);

}  // namespace switchyard::cg
