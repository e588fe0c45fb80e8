#include "cpu_apply_q.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <vector>

#include "qr/cpu_products.hpp"
#include "tsqr/cpu_row_blocks.hpp"

namespace switchyard::qr {
namespace {

using Index = std::ptrdiff_t;

// Rows a thread's products take at a time, so that those rows of V and of C stay in its L2
// cache (256 KiB) for every column of V that meets them.
Index chunk_rows(int columns, std::size_t element) {
  return std::max<Index>(64, Index(262144 / (element * std::size_t(std::max(1, columns)))));
}

// A thread's share of the rows below a block's top: contiguous, at least kMinRows.
constexpr Index kMinRows = 2048;

struct RowRange {
  Index first, last;
};

// The upper triangle (with a little below it) of out += V^T V over h rows, V h x kb: all that
// T's formation reads of it, in half the flops of the whole. Strips of 3 columns, the products'
// tile width.
template <class T>
void add_upper_gram(Index h, int kb, const T* v, Index ldv, T* out) {
  constexpr int kStrip = 3;
  for (int j0 = 0; j0 < kb; j0 += kStrip) {
    const int width = std::min(kStrip, kb - j0);
    add_transposed_product(h, j0 + width, v, ldv, width, v + Index{j0} * ldv, ldv,
                           out + Index{j0} * kb, kb);
  }
}

// Applies blocks of reflectors of the m x k matrix V (A's strict lower part, unit diagonal
// implicit; lda) to columns of a matrix X on the same rows.
template <class T>
class BlockApplier {
 public:
  // Blocks of `block` reflectors (the last one maybe fewer).
  BlockApplier(Index m, int k, const T* v, Index lda, const T* tau, int threads, int block,
               int max_columns)
      : m_(m),
        v_(v),
        lda_(lda),
        tau_(tau),
        threads_(threads),
        block_(std::min(k, block)),
        max_columns_(max_columns) {}

  // Everything that can fail happens here, before any data is touched.
  int allocate() {
    try {
      const std::size_t b = std::size_t(block_), width = b + std::size_t(max_columns_);
      partial_.resize(std::size_t(threads_) * b * width);
      products_.resize(b * width);
      t_.resize(b * b);
      top_.resize(b * b);
      w_.resize(b * std::size_t(std::max(max_columns_, block_)));
      top_result_.resize(b * b);
      rows_.resize(std::size_t(threads_) * std::size_t(chunk_rows(block_, sizeof(T))) * b);
    } catch (const std::bad_alloc&) {
      return kCpuOutOfMemory;
    } catch (const std::length_error&) {
      return kCpuOutOfMemory;
    }
    return kCpuApplied;
  }

  int block() const { return block_; }

  // X's rows from j0 down become B X, or B^T X with `transpose`, B = I - V T V^T the block of
  // reflectors j0..j0+kb-1; X has nx columns (ldx).
  void apply(int j0, int kb, bool transpose, T* x, Index ldx, int nx) {
    load_top(j0, kb);
    products(j0, kb, x, ldx, nx);
    form_t(j0, kb);
    const T* const p = products_.data() + std::size_t(kb) * kb;  // V^T X, kb x nx
    for (int c = 0; c < nx; ++c) {
      for (int i = 0; i < kb; ++i) {
        T sum = 0;
        if (transpose) {
          for (int l = 0; l <= i; ++l) sum += t(l, i) * p[l + std::size_t(c) * kb];
        } else {
          for (int l = i; l < kb; ++l) sum += t(i, l) * p[l + std::size_t(c) * kb];
        }
        w_[i + std::size_t(c) * kb] = sum;
      }
    }
    subtract_product(kb, kb, top_.data(), kb, nx, w_.data(), kb, x + j0, ldx);
    for_rows_below(j0, kb, [&](int, RowRange r) {
      subtract_product(r.last - r.first, kb, v_at(r.first, j0), lda_, nx, w_.data(), kb,
                       x + r.first, ldx);
    });
  }

  // Overwrites the block's own columns of A, rows j0 down, with B's columns j0..j0+kb-1,
  // E - V (T V1^T), and those columns' rows above j0 with zeros; needs apply's products of the
  // block (its T), or load_top and products with no columns of X first.
  void form_in_place(int j0, int kb, T* a) {
    // W2 = T V1^T, kb x kb.
    for (int c = 0; c < kb; ++c) {
      for (int i = 0; i < kb; ++i) {
        T sum = 0;
        for (int l = i; l <= c; ++l) sum += t(i, l) * top_[c + std::size_t(l) * kb];
        w_[i + std::size_t(c) * kb] = sum;
      }
    }
    // The top rows: I - V1 W2.
    for (int c = 0; c < kb; ++c) {
      for (int r = 0; r < kb; ++r) top_result_[r + std::size_t(c) * kb] = r == c ? T(1) : T(0);
    }
    subtract_product(kb, kb, top_.data(), kb, kb, w_.data(), kb, top_result_.data(), kb);
    const Index chunk = chunk_rows(block_, sizeof(T));
    for_rows_below(j0, kb, [&](int worker, RowRange r) {
      T* const rows = rows_.data() + std::size_t(worker) * std::size_t(chunk) * std::size_t(block_);
      for (Index first = r.first; first < r.last; first += chunk) {
        const Index count = std::min(chunk, r.last - first);
        for (int l = 0; l < kb; ++l) {
          T* const column = a + first + Index{j0 + l} * lda_;
          std::copy_n(column, count, rows + Index{l} * count);
          std::fill_n(column, count, T(0));
        }
        subtract_product(count, kb, rows, count, kb, w_.data(), kb, a + first + Index{j0} * lda_,
                         lda_);
      }
    });
    for (int c = 0; c < kb; ++c) {
      T* const column = a + Index{j0 + c} * lda_;
      std::fill_n(column, j0, T(0));
      std::copy_n(top_result_.data() + std::size_t(c) * kb, kb, column + j0);
    }
  }

  // The block's T alone (its V^T V), for form_in_place with nothing right of the block.
  void prepare(int j0, int kb) {
    load_top(j0, kb);
    products(j0, kb, nullptr, 0, 0);
    form_t(j0, kb);
  }

 private:
  const T* v_at(Index row, int column) const { return v_ + row + Index{column} * lda_; }
  T& t(int i, int j) { return t_[i + std::size_t(j) * block_]; }

  // V1, the block's top kb x kb: unit lower triangular, explicit.
  void load_top(int j0, int kb) {
    for (int c = 0; c < kb; ++c) {
      for (int r = 0; r < kb; ++r) {
        top_[r + std::size_t(c) * kb] = r < c ? T(0) : r == c ? T(1) : *v_at(j0 + r, j0 + c);
      }
    }
  }

  // How many threads share the rows below the block's top, [j0 + kb, m).
  int parts_below(int j0, int kb) const {
    const Index rows = m_ - (Index{j0} + kb);
    return rows <= 0 ? 0 : int(std::clamp<Index>(rows / kMinRows, 1, threads_));
  }

  // Those rows, in one contiguous range per thread.
  template <class Task>
  void for_rows_below(int j0, int kb, const Task& task) {
    const Index first = Index{j0} + kb, rows = m_ - first;
    const int parts = parts_below(j0, kb);
    if (parts == 0) return;
    tsqr::run_parallel(parts, parts, [&](int, int part) {
      task(part, RowRange{first + rows * part / parts, first + rows * (part + 1) / parts});
    });
  }

  // products_ = V^T [V X] over rows j0.., kb x (kb + nx) (ld kb): the top's, then each
  // thread's share added in thread order.
  void products(int j0, int kb, const T* x, Index ldx, int nx) {
    const std::size_t size = std::size_t(kb) * std::size_t(kb + nx);
    std::fill_n(products_.data(), size, T(0));
    T* const p = products_.data() + std::size_t(kb) * kb;
    add_upper_gram<T>(kb, kb, top_.data(), kb, products_.data());
    if (nx > 0) add_transposed_product(kb, kb, top_.data(), kb, nx, x + j0, ldx, p, kb);
    const Index chunk = chunk_rows(kb + nx, sizeof(T));
    for_rows_below(j0, kb, [&](int part, RowRange r) {
      T* const own = partial_.data() + std::size_t(part) * size;
      std::fill_n(own, size, T(0));
      for (Index first = r.first; first < r.last; first += chunk) {
        const Index count = std::min(chunk, r.last - first);
        const T* const v = v_at(first, j0);
        add_upper_gram(count, kb, v, lda_, own);
        if (nx > 0)
          add_transposed_product(count, kb, v, lda_, nx, x + first, ldx, own + kb * kb, kb);
      }
    });
    for (int part = 0; part < parts_below(j0, kb); ++part) {
      const T* const own = partial_.data() + std::size_t(part) * size;
      for (std::size_t i = 0; i < size; ++i) products_[i] += own[i];
    }
  }

  // T from V^T V (the first kb x kb of products_) and tau, column by column as xLARFT
  // ('F', 'C') forms it: T(0:i-1, i) = -tau(i) T(0:i-1, 0:i-1) V(:, 0:i-1)^T v(i); where
  // tau(i) = 0 the column is zero.
  void form_t(int j0, int kb) {
    for (int i = 0; i < kb; ++i) {
      const T tau_i = tau_[j0 + i];
      for (int r = 0; r < block_; ++r) t(r, i) = T(0);
      t(i, i) = tau_i;
      if (tau_i == T(0)) continue;
      for (int r = 0; r < i; ++r) {
        T sum = 0;
        for (int l = r; l < i; ++l) sum += t(r, l) * products_[l + std::size_t(i) * kb];
        t(r, i) = -tau_i * sum;
      }
    }
  }

  const Index m_;
  const T* const v_;
  const Index lda_;
  const T* const tau_;
  const int threads_;
  const int block_;
  const int max_columns_;
  std::vector<T> partial_;     // each thread's share of products_
  std::vector<T> products_;    // V^T V, then V^T X
  std::vector<T> t_;           // block_ x block_
  std::vector<T> top_;         // the block's unit lower triangular top
  std::vector<T> w_;           // op(T) V^T X, or T V1^T
  std::vector<T> top_result_;  // the formed block's top rows
  std::vector<T> rows_;        // per thread: a chunk of the block's rows of V
};

}  // namespace

int apply_q_block(int nc) { return std::clamp((4 * nc + 7) / 8 * 8, 8, kCpuBlock); }

// A block of b reflectors from row j0 on: its V^T V's upper half (m' b^2 flops over its m' rows),
// then 4 m' b flops per column it is applied to.
double form_q_flops(double m, int n, int k) {
  double flops = 0;
  const int block = std::min(k, kCpuBlock);
  for (int j0 = 0; j0 < k; j0 += block) {
    const double b = std::min(block, k - j0), rows = m - j0, right = n - j0 - b;
    flops += rows * b * b + 4 * rows * b * right + 2 * rows * b * b;  // the last: its own columns
  }
  return flops;
}

double apply_q_flops(double m, int nc, int k) {
  double flops = 0;
  const int block = std::min(k, apply_q_block(nc));
  for (int j0 = 0; j0 < k; j0 += block) {
    const double b = std::min(block, k - j0), rows = m - j0;
    flops += rows * b * b + 4 * rows * b * nc;
  }
  return flops;
}

template <class T>
int form_q_cpu(Index m, int n, int k, T* a, Index lda, const T* tau, int threads) {
  BlockApplier<T> applier(m, k, a, lda, tau, threads, kCpuBlock, n);
  if (applier.allocate() != kCpuApplied) return kCpuOutOfMemory;
  // Columns k.. are the identity's.
  for (int c = k; c < n; ++c) {
    T* const column = a + Index{c} * lda;
    std::fill_n(column, m, T(0));
    column[c] = T(1);
  }
  const int block = applier.block();
  for (int j0 = block == 0 ? -1 : (k - 1) / block * block; j0 >= 0; j0 -= block) {
    const int kb = std::min(block, k - j0);
    const int right = j0 + kb;
    if (right < n) {
      applier.apply(j0, kb, false, a + Index{right} * lda, lda, n - right);
    } else {
      applier.prepare(j0, kb);
    }
    applier.form_in_place(j0, kb, a);
  }
  return kCpuApplied;
}

template <class T>
int apply_q_cpu(bool transpose, Index m, int nc, int k, const T* a, Index lda, const T* tau, T* c,
                Index ldc, int threads) {
  BlockApplier<T> applier(m, k, a, lda, tau, threads, apply_q_block(nc), nc);
  if (applier.allocate() != kCpuApplied) return kCpuOutOfMemory;
  if (k == 0) return kCpuApplied;
  const int last = (k - 1) / applier.block() * applier.block();
  // Q^T C = B(p)^T ... B(1)^T C: the first block first; Q C the last first.
  for (int step = 0; step <= last / applier.block(); ++step) {
    const int j0 = transpose ? step * applier.block() : last - step * applier.block();
    applier.apply(j0, std::min(applier.block(), k - j0), transpose, c, ldc, nc);
  }
  return kCpuApplied;
}

template int form_q_cpu<float>(Index, int, int, float*, Index, const float*, int);
template int form_q_cpu<double>(Index, int, int, double*, Index, const double*, int);
template int apply_q_cpu<float>(bool, Index, int, int, const float*, Index, const float*, float*,
                                Index, int);
template int apply_q_cpu<double>(bool, Index, int, int, const double*, Index, const double*,
                                 double*, Index, int);

}  // namespace switchyard::qr
