#include "gemm/finish_blocks.hpp"

#include <cstddef>

namespace switchyard::gemm {

template <class T>
void finish_blocks(GemmFn<T>* gemm, const GemmCall<T>& g, const std::vector<CBlock>& blocks) {
  const char ta[2] = {g.transa, 0}, tb[2] = {g.transb, 0};
  for (const CBlock& x : blocks) {
    // Rows of op(A) are rows of A, or columns of A when it is transposed; likewise columns of
    // op(B).
    const T* a = g.a + (g.transa == 'N' ? std::size_t(x.row) : std::size_t(x.row) * g.lda);
    const T* b = g.b + (g.transb == 'N' ? std::size_t(x.col) * g.ldb : std::size_t(x.col));
    T* c = g.c + x.row + std::size_t(x.col) * g.ldc;
    gemm(ta, tb, &x.rows, &x.cols, &g.k, &g.alpha, a, &g.lda, b, &g.ldb, &g.beta, c, &g.ldc, 1, 1);
  }
}

template void finish_blocks<float>(GemmFn<float>*, const GemmCall<float>&,
                                   const std::vector<CBlock>&);
template void finish_blocks<double>(GemmFn<double>*, const GemmCall<double>&,
                                    const std::vector<CBlock>&);

}  // namespace switchyard::gemm
