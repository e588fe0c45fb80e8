// The forms `switchyard bench cg` sets against the library's half-storage
// DIA: full-storage DIA (every diagonal stored, no mirrored reads) with its
// SpMV kernel, and CSR (for cuSPARSE), both built on the device from the
// half-storage matrix. Also the Jacobi inverse diagonal of the reference CG.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cg_kernels.hpp"

namespace switchyard::bench {

inline constexpr int kMaxFullDiagonals = 2 * cg::cuda::kMaxGpuDiagonals + 1;

template <class V>
struct DeviceDiaFull {
  long long n;
  int ndiag;                        // 2 * lower + 1
  int offsets[kMaxFullDiagonals];   // ascending, negative below the diagonal
  V* values;                        // ndiag x n, values[k n + i] = a(i, i + offsets[k]), 0 outside
};

// Fills full.values (ndiag x n, allocated by the caller) from the half form.
template <class V>
DeviceDiaFull<V> full_from_half(const cg::cuda::DeviceDia<V>& half, V* values);

template <class V>
void full_dia_spmv(const DeviceDiaFull<V>& a, const double* x, double* y, cudaStream_t stream);

// CSR of the nonzero entries (diagonal always), 32-bit indices, columns
// ascending. The arrays are cudaMalloc'ed here; false (nothing allocated)
// when there are 2^31 entries or more or memory runs out.
template <class V>
struct DeviceCsr {
  int n = 0;
  long long nnz = 0;
  int* row_ptr = nullptr;
  int* col = nullptr;
  V* val = nullptr;
};
template <class V>
bool csr_from_half(const cg::cuda::DeviceDia<V>& half, DeviceCsr<V>& csr);
template <class V>
void free_csr(DeviceCsr<V>& csr);

// inverse[i] = 1 / diag[i].
template <class V>
void invert_diagonal(const V* diag, double* inverse, long long n);

}  // namespace switchyard::bench
