// y = A x on half-storage DIA: the CG's product without the CG, for the
// benchmark and the tests, with the rows per thread as a parameter. Rows
// of at most kBatchedDiagonals diagonals issue their loads at once
// (dia_row_batched), wider ones go diagonal by diagonal.
#include "cg_kernels.hpp"
#include "dia_rows.cuh"

namespace switchyard::cg::cuda {
namespace {

template <class V, int kDiagonals, int R>
__global__ void __launch_bounds__(kBlock) dia_spmv(DeviceDia<V> a, const double* __restrict__ x,
                                                   double* __restrict__ y) {
  for_each_row<R>(a.n, [&](long long i) {
    if constexpr (kDiagonals <= kBatchedDiagonals) {
      y[i] = dia_row_batched<V, kDiagonals>(a, i, __ldg(x + i),
                                            [&](long long j) { return __ldg(x + j); });
    } else {
      y[i] = dia_row<V, kDiagonals>(a, i, __ldg(x + i), [&](long long j) { return __ldg(x + j); });
    }
  });
}

// The batched rows need more registers than eight blocks per SM allow
// (40 to 56 for 13 diagonals): their grid is what fits.
template <int R, int kDiagonals, class V>
void launch_bucket(const DeviceDia<V>& a, const double* x, double* y, int max_blocks,
                   cudaStream_t stream) {
  constexpr auto kernel = dia_spmv<V, kDiagonals, R>;
  kernel<<<grid_for(a.n, R, resident_blocks<kernel>(max_blocks)), kBlock, 0, stream>>>(a, x, y);
}

template <int R, class V>
void launch(const DeviceDia<V>& a, const double* x, double* y, int max_blocks,
            cudaStream_t stream) {
  if (a.ndiag <= 4) {
    launch_bucket<R, 4>(a, x, y, max_blocks, stream);
  } else if (a.ndiag <= kBatchedDiagonals) {
    launch_bucket<R, kBatchedDiagonals>(a, x, y, max_blocks, stream);
  } else {
    with_bucket(a, [&](auto bucket) {
      launch_bucket<R, decltype(bucket)::value>(a, x, y, max_blocks, stream);
    });
  }
}

}  // namespace

template <class V>
void launch_dia_spmv(const DeviceDia<V>& a, const double* x, double* y, int rows_per_thread,
                     int max_blocks, cudaStream_t stream) {
  switch (rows_per_thread) {
    case 1: launch<1>(a, x, y, max_blocks, stream); break;
    case 4: launch<4>(a, x, y, max_blocks, stream); break;
    default: launch<2>(a, x, y, max_blocks, stream); break;
  }
}

template void launch_dia_spmv<double>(const DeviceDia<double>&, const double*, double*, int, int,
                                      cudaStream_t);
template void launch_dia_spmv<float>(const DeviceDia<float>&, const double*, double*, int, int,
                                     cudaStream_t);

}  // namespace switchyard::cg::cuda
