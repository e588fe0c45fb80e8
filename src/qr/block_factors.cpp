#include "qr/block_factors.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard {
namespace {

// The upper triangle of the Gram matrix G = V^T V (ib x ib, column-major) of the ib reflectors
// whose unit triangle starts at v (lda) and which reach `rows` rows down from it.
template <class T, class I>
void gram(SyrkFn<T, I>* syrk, int rows, int ib, const T* v, int lda, T* g) {
  // The rows below the unit triangle: full columns, one xSYRK.
  if (rows > ib) {
    const I n = ib, k = rows - ib, ld = lda, ldg = ib;
    const T one = 1, zero = 0;
    syrk("U", "T", &n, &k, &one, v + ib, &ld, &zero, g, &ldg, 1, 1);
  } else {
    std::fill(g, g + std::size_t(ib) * ib, T(0));
  }
  // The unit triangle's part: V1(r, p) V1(r, q) over the rows r >= q it has in both columns.
  for (int q = 0; q < ib; ++q) {
    for (int p = 0; p <= q; ++p) {
      T sum = p == q ? T(1) : v[q + std::size_t(p) * lda];  // row q: V1(q, q) = 1
      for (int r = q + 1; r < ib; ++r) {
        sum += v[r + std::size_t(p) * lda] * v[r + std::size_t(q) * lda];
      }
      g[p + std::size_t(q) * ib] += sum;
    }
  }
}

}  // namespace

template <class T, class I>
void form_block_factors(SyrkFn<T, I>* syrk, int m, int n, int nb, const T* a, int lda, const T* tau,
                        T* t, int ldt) {
  const int k = std::min(m, n);
  std::vector<T> g(std::size_t(nb) * nb), w(nb);
  for (int j0 = 0; j0 < k; j0 += nb) {
    const int ib = std::min(nb, k - j0);
    const T* v = a + j0 + std::size_t(j0) * lda;
    // A block of one reflector has T = tau and needs no Gram matrix: xGEQR's reference block
    // size is NB = 1, where a Gram product per column would cost a pass over A for each.
    if (ib > 1) gram(syrk, m - j0, ib, v, lda, g.data());
    T* tb = t + std::size_t(j0) * ldt;  // this block's T(0:ib, 0:ib)
    for (int i = 0; i < ib; ++i) {
      T* col = tb + std::size_t(i) * ldt;
      const T tau_i = tau[j0 + i];
      if (tau_i == T(0)) {
        std::fill(col, col + i + 1, T(0));
        continue;
      }
      for (int p = 0; p < i; ++p) w[p] = -tau_i * g[p + std::size_t(i) * ib];
      // T(0:i, i) = T(0:i, 0:i) w, the upper triangle times a vector, top row first so that
      // each row reads only w.
      for (int p = 0; p < i; ++p) {
        T sum = 0;
        for (int q = p; q < i; ++q) sum += tb[p + std::size_t(q) * ldt] * w[q];
        col[p] = sum;
      }
      col[i] = tau_i;
    }
  }
}

template void form_block_factors<float, int>(SyrkFn<float, int>*, int, int, int, const float*, int,
                                             const float*, float*, int);
template void form_block_factors<double, int>(SyrkFn<double, int>*, int, int, int, const double*,
                                              int, const double*, double*, int);
template void form_block_factors<float, std::int64_t>(SyrkFn<float, std::int64_t>*, int, int, int,
                                                      const float*, int, const float*, float*, int);
template void form_block_factors<double, std::int64_t>(SyrkFn<double, std::int64_t>*, int, int, int,
                                                       const double*, int, const double*, double*,
                                                       int);

}  // namespace switchyard
