// y = A x on half-storage DIA: the CG's product without the CG, for the
// benchmark and the tests, with the rows per thread as a parameter.
#include "cg_kernels.hpp"
#include "dia_rows.cuh"

namespace switchyard::cg::cuda {
namespace {

template <class V, int kDiagonals, int R>
__global__ void __launch_bounds__(kBlock) dia_spmv(DeviceDia<V> a, const double* __restrict__ x,
                                                   double* __restrict__ y) {
  for_each_row<R>(a.n, [&](long long i) {
    y[i] = dia_row<V, kDiagonals>(a, i, __ldg(x + i), [&](long long j) { return __ldg(x + j); });
  });
}

template <int R, class V>
void launch(const DeviceDia<V>& a, const double* x, double* y, int max_blocks,
            cudaStream_t stream) {
  with_bucket(a, [&](auto bucket) {
    dia_spmv<V, decltype(bucket)::value, R>
        <<<grid_for(a.n, R, max_blocks), kBlock, 0, stream>>>(a, x, y);
  });
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
