#include <cub/device/device_scan.cuh>

#include "dia_compare.hpp"

namespace switchyard::bench {
namespace {

using cg::cuda::DeviceDia;

constexpr int kThreads = 256;

unsigned blocks_for(long long n) { return unsigned((n + kThreads - 1) / kThreads); }

__device__ long long row_of() { return static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; }

template <class V>
__global__ void expand(DeviceDia<V> h, DeviceDiaFull<V> f) {
  const long long i = row_of();
  if (i >= h.n) return;
  const int lower = h.ndiag;
  f.values[lower * h.n + i] = h.diag[i];
  for (int d = 0; d < lower; ++d) {
    const long long m = h.offsets[d];
    // below: offset -m, position lower - 1 - d; above: offset +m, position lower + 1 + d
    f.values[(lower - 1 - d) * h.n + i] = i >= m ? h.lower[d * h.n + i] : V(0);
    f.values[(lower + 1 + d) * h.n + i] = i + m < h.n ? h.lower[d * h.n + i + m] : V(0);
  }
}

// One row per thread, every stored diagonal read once: the straightforward
// full-storage DIA kernel.
template <class V, int K>
__global__ void __launch_bounds__(kThreads) full_spmv(DeviceDiaFull<V> a,
                                                      const double* __restrict__ x,
                                                      double* __restrict__ y) {
  const long long i = row_of();
  if (i >= a.n) return;
  double s = 0.0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k < a.ndiag) {
      const long long j = i + a.offsets[k];
      if (j >= 0 && j < a.n) s += double(__ldg(a.values + k * a.n + i)) * __ldg(x + j);
    }
  }
  y[i] = s;
}

// Calls f(column, value) for the nonzero entries of row i, columns ascending.
template <class V, class F>
__device__ void for_each_entry(const DeviceDia<V>& h, long long i, F&& f) {
  for (int d = h.ndiag - 1; d >= 0; --d) {
    const long long m = h.offsets[d];
    if (i >= m && h.lower[d * h.n + i] != V(0)) f(i - m, h.lower[d * h.n + i]);
  }
  f(i, h.diag[i]);
  for (int d = 0; d < h.ndiag; ++d) {
    const long long m = h.offsets[d];
    if (i + m < h.n && h.lower[d * h.n + i + m] != V(0)) f(i + m, h.lower[d * h.n + i + m]);
  }
}

template <class V>
__global__ void count_entries(DeviceDia<V> h, long long* counts) {
  const long long i = row_of();
  if (i > h.n) return;
  long long c = 0;
  if (i < h.n) for_each_entry(h, i, [&](long long, V) { ++c; });
  counts[i] = c;  // counts[n] = 0: the scan's last entry is nnz
}

template <class V>
__global__ void fill_entries(DeviceDia<V> h, const long long* starts, DeviceCsr<V> csr) {
  const long long i = row_of();
  if (i > h.n) return;
  csr.row_ptr[i] = int(starts[i]);
  if (i == h.n) return;
  long long k = starts[i];
  for_each_entry(h, i, [&](long long j, V v) {
    csr.col[k] = int(j);
    csr.val[k] = v;
    ++k;
  });
}

template <class V>
__global__ void invert(const V* d, double* inverse, long long n) {
  const long long i = row_of();
  if (i < n) inverse[i] = 1.0 / double(d[i]);
}

}  // namespace

template <class V>
DeviceDiaFull<V> full_from_half(const DeviceDia<V>& half, V* values) {
  DeviceDiaFull<V> f{};
  f.n = half.n;
  f.ndiag = 2 * half.ndiag + 1;
  for (int d = 0; d < half.ndiag; ++d) {
    f.offsets[half.ndiag - 1 - d] = -half.offsets[d];
    f.offsets[half.ndiag + 1 + d] = half.offsets[d];
  }
  f.offsets[half.ndiag] = 0;
  f.values = values;
  expand<<<blocks_for(half.n), kThreads>>>(half, f);
  return f;
}

template <class V>
void full_dia_spmv(const DeviceDiaFull<V>& a, const double* x, double* y, cudaStream_t stream) {
  if (a.ndiag <= 32) {
    full_spmv<V, 32><<<blocks_for(a.n), kThreads, 0, stream>>>(a, x, y);
  } else {
    full_spmv<V, kMaxFullDiagonals><<<blocks_for(a.n), kThreads, 0, stream>>>(a, x, y);
  }
}

template <class V>
bool csr_from_half(const DeviceDia<V>& half, DeviceCsr<V>& csr) {
  const long long n = half.n;
  long long* starts = nullptr;
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  bool ok = cudaMalloc(&starts, (n + 1) * sizeof(long long)) == cudaSuccess;
  if (ok) {
    count_entries<<<blocks_for(n + 1), kThreads>>>(half, starts);
    cub::DeviceScan::ExclusiveSum(nullptr, scratch_bytes, starts, starts, n + 1);
    ok = cudaMalloc(&scratch, scratch_bytes) == cudaSuccess;
  }
  if (ok) {
    cub::DeviceScan::ExclusiveSum(scratch, scratch_bytes, starts, starts, n + 1);
    cudaMemcpy(&csr.nnz, starts + n, sizeof(long long), cudaMemcpyDeviceToHost);
    csr.n = int(n);
    ok = csr.nnz < (1ll << 31) &&
         cudaMalloc(&csr.row_ptr, (n + 1) * sizeof(int)) == cudaSuccess &&
         cudaMalloc(&csr.col, csr.nnz * sizeof(int)) == cudaSuccess &&
         cudaMalloc(&csr.val, csr.nnz * sizeof(V)) == cudaSuccess;
  }
  if (ok) fill_entries<<<blocks_for(n + 1), kThreads>>>(half, starts, csr);
  cudaDeviceSynchronize();
  cudaFree(scratch);
  cudaFree(starts);
  if (!ok) {
    cudaGetLastError();
    free_csr(csr);
  }
  return ok;
}

template <class V>
void free_csr(DeviceCsr<V>& csr) {
  cudaFree(csr.row_ptr);
  cudaFree(csr.col);
  cudaFree(csr.val);
  csr.row_ptr = nullptr, csr.col = nullptr, csr.val = nullptr;
}

template <class V>
void invert_diagonal(const V* diag, double* inverse, long long n) {
  invert<<<blocks_for(n), kThreads>>>(diag, inverse, n);
}

#define SWITCHYARD_BENCH_INSTANTIATE(V)                                                     \
  template DeviceDiaFull<V> full_from_half<V>(const DeviceDia<V>&, V*);                     \
  template void full_dia_spmv<V>(const DeviceDiaFull<V>&, const double*, double*,           \
                                 cudaStream_t);                                             \
  template bool csr_from_half<V>(const DeviceDia<V>&, DeviceCsr<V>&);                       \
  template void free_csr<V>(DeviceCsr<V>&);                                                 \
  template void invert_diagonal<V>(const V*, double*, long long);
SWITCHYARD_BENCH_INSTANTIATE(double)
SWITCHYARD_BENCH_INSTANTIATE(float)
#undef SWITCHYARD_BENCH_INSTANTIATE

}  // namespace switchyard::bench
