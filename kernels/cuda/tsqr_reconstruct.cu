// The two single-block steps of the Householder reconstruction (LAPACK's xORHR_COL): the LU
// factorization of Q1 - S with its signs and inv(U), then the top n x n of the output and tau.
// They touch n x n matrices only, n <= 64.
#include "tsqr_kernels.hpp"

namespace switchyard::kernels {
namespace tsqr {
namespace {

constexpr int kThreads = 256;
constexpr int kStride = kTsqrMaxColumns + 1;

template <class T>
__global__ void __launch_bounds__(kThreads)
reconstruct(int n, const T* q1, long long ldq, T* lu, T* s, T* u_inverse) {
  __shared__ T f[kTsqrMaxColumns * kStride];  // Q1 - S, then its LU factors; (i, k) at i * kStride + k
  const int tid = int(threadIdx.x);
  for (int idx = tid; idx < n * n; idx += kThreads) {
    const int i = idx % n, k = idx / n;
    f[i * kStride + k] = q1[i + k * ldq];
  }
  __syncthreads();
  // s(j) = -sign(pivot) makes |pivot - s(j)| = |pivot| + 1 >= 1: no pivoting, no division by 0.
  for (int j = 0; j < n; ++j) {
    if (tid == 0) {
      const T pivot = f[j * kStride + j];
      const T sign = pivot >= T(0) ? T(-1) : T(1);
      f[j * kStride + j] = pivot - sign;
      s[j] = sign;
    }
    __syncthreads();
    for (int i = j + 1 + tid; i < n; i += kThreads) f[i * kStride + j] /= f[j * kStride + j];
    __syncthreads();
    const int rest = n - j - 1;
    for (int idx = tid; idx < rest * rest; idx += kThreads) {
      const int i = j + 1 + idx % rest, k = j + 1 + idx / rest;
      f[i * kStride + k] -= f[i * kStride + j] * f[j * kStride + k];
    }
    __syncthreads();
  }
  for (int idx = tid; idx < n * n; idx += kThreads) lu[idx] = f[(idx % n) * kStride + idx / n];
  // Column c of inv(U) by back substitution, by thread c alone.
  if (tid < n) {
    const int c = tid;
    T* w = u_inverse + c * n;
    for (int i = c + 1; i < n; ++i) w[i] = 0;
    for (int j = c; j >= 0; --j) {
      T sum = j == c ? T(1) : T(0);
      for (int l = j + 1; l <= c; ++l) sum -= f[j * kStride + l] * w[l];
      w[j] = sum / f[j * kStride + j];
    }
  }
}

// tau(j) = -s(j) U(j,j) (the diagonal of T V1^T = -U S) and R = S R.
template <class T>
__global__ void __launch_bounds__(kTsqrMaxColumns)
finish(int n, const T* lu, const T* s, const T* r, const int* nonzero_columns, T* a,
       long long lda, T* tau) {
  const int j = int(threadIdx.x);
  if (j >= n) return;
  bool flip_only = nonzero_columns[j] == 0;
  for (int i = j + 1; i < n; ++i) flip_only = flip_only && lu[i + j * n] == T(0);
  const T reconstructed = -s[j] * lu[j + j * n];
  // 1 + |pivot| exceeds 2 only by rounding; comparing this way lets NaN through.
  tau[j] = flip_only ? T(0) : reconstructed > T(2) ? T(2) : reconstructed;
  const T row_sign = flip_only ? -s[j] : s[j];
  for (int k = j; k < n; ++k) a[j + k * lda] = row_sign * r[j + k * n];
  for (int i = j + 1; i < n; ++i) a[i + j * lda] = lu[i + j * n];
}

}  // namespace
}  // namespace tsqr

template <class T>
cudaError_t tsqr_reconstruct(int n, const T* q1, long long ldq, T* lu, T* s, T* u_inverse,
                             cudaStream_t stream) {
  if (n < 1 || n > kTsqrMaxColumns) return cudaErrorInvalidValue;
  tsqr::reconstruct<T><<<1, tsqr::kThreads, 0, stream>>>(n, q1, ldq, lu, s, u_inverse);
  return cudaGetLastError();
}

template <class T>
cudaError_t tsqr_finish(int n, const T* lu, const T* s, const T* r, const int* nonzero_columns,
                        T* a, long long lda, T* tau, cudaStream_t stream) {
  if (n < 1 || n > kTsqrMaxColumns) return cudaErrorInvalidValue;
  tsqr::finish<T><<<1, kTsqrMaxColumns, 0, stream>>>(n, lu, s, r, nonzero_columns, a, lda, tau);
  return cudaGetLastError();
}

template cudaError_t tsqr_reconstruct<float>(int, const float*, long long, float*, float*, float*,
                                             cudaStream_t);
template cudaError_t tsqr_reconstruct<double>(int, const double*, long long, double*, double*,
                                              double*, cudaStream_t);
template cudaError_t tsqr_finish<float>(int, const float*, const float*, const float*, const int*,
                                        float*, long long, float*, cudaStream_t);
template cudaError_t tsqr_finish<double>(int, const double*, const double*, const double*,
                                         const int*, double*, long long, double*, cudaStream_t);

}  // namespace switchyard::kernels
