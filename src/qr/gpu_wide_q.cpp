#include "qr/gpu_wide_q.hpp"

#include <algorithm>
#include <optional>

#include "device/cuda_runtime.hpp"
#include "device/row_streaming.hpp"

namespace switchyard::qr {
namespace {

constexpr int kGroup = kGpuMaxReflectors;

int last_group(int k) { return (k - 1) / kGroup * kGroup; }

template <class T>
cudaError_t enqueue_form(long long m, int n, int k, T* a, long long lda, const T* tau,
                         cudaStream_t stream) {
  const auto at = [&](long long i, long long j) { return a + i + j * lda; };
  // Q's columns from `column` on are zero above row `column`, where their reflectors start.
  const auto zero_above = [&](int column, int columns) {
    if (column == 0) return cudaSuccess;
    return cudaMemset2DAsync(at(0, column), sizeof(T) * lda, 0, sizeof(T) * column, columns,
                             stream);
  };
  const int last = last_group(k);
  cudaError_t status =
      form_q_on_device(m - last, n - last, k - last, at(last, last), lda, tau + last, stream);
  if (status == cudaSuccess) status = zero_above(last, n - last);
  for (int g = last - kGroup; g >= 0 && status == cudaSuccess; g -= kGroup) {
    status = apply_q_wide_on_device(false, m - g, n - g - kGroup, kGroup, at(g, g), lda, tau + g,
                           at(g, g + kGroup), lda, stream);
    if (status == cudaSuccess) {
      status = form_q_on_device(m - g, kGroup, kGroup, at(g, g), lda, tau + g, stream);
    }
    if (status == cudaSuccess) status = zero_above(g, kGroup);
  }
  return status;
}

template <class T>
bool form_q(int m, int n, int k, T* a, int lda, const T* tau, std::string& error) {
  cuda::Stream stream;
  if (stream.status() != cudaSuccess) return cuda::fail(error, "no stream", stream.status());
  std::optional<cuda::Staging> staging;
  const cuda::OnDevice<T> q(a, lda, m, n, stream, staging);
  cudaError_t status = q.status();
  if (status == cudaSuccess) status = enqueue_form(m, n, k, q.get(), q.ld(), tau, stream.get());
  status = cuda::wait(stream.get(), status);
  if (status != cudaSuccess) return cuda::fail(error, "the GPU failed", status);
  q.write_back();
  return true;
}

template <class T>
bool apply_q(bool transpose, int m, int nc, int k, const T* a, int lda, const T* tau, T* c,
             int ldc, std::string& error) {
  cuda::Stream stream;
  if (stream.status() != cudaSuccess) return cuda::fail(error, "no stream", stream.status());
  std::optional<cuda::Staging> staging;
  // V is only read: its copy is never written back.
  const cuda::OnDevice<T> v(const_cast<T*>(a), lda, m, k, stream, staging);
  cudaError_t status = v.status();
  std::optional<cuda::OnDevice<T>> cd;
  if (status == cudaSuccess) status = cd.emplace(c, ldc, m, nc, stream, staging).status();
  if (status == cudaSuccess) {
    status = apply_q_wide_on_device(transpose, m, nc, k, static_cast<const T*>(v.get()), v.ld(),
                                    tau, cd->get(), cd->ld(), stream.get());
  }
  status = cuda::wait(stream.get(), status);
  if (status != cudaSuccess) return cuda::fail(error, "the GPU failed", status);
  cd->write_back();
  return true;
}

}  // namespace

template <class T>
cudaError_t apply_q_wide_on_device(bool transpose, long long m, int nc, int k, const T* a,
                                   long long lda, const T* tau, T* c, long long ldc,
                                   cudaStream_t stream) {
  const int groups = (k + kGroup - 1) / kGroup;
  cudaError_t status = cudaSuccess;
  for (int step = 0; step < groups && status == cudaSuccess; ++step) {
    const int g = (transpose ? step : groups - 1 - step) * kGroup;
    status = apply_q_on_device(transpose, m - g, nc, std::min(kGroup, k - g), a + g + g * lda,
                               lda, tau + g, c + g, ldc, stream);
  }
  return status;
}

bool wide_q_fits(int n, int k) { return k >= 1 && n - last_group(k) <= kGpuMaxColumns; }

template <class T>
bool orgqr_gpu(int m, int n, int k, T* a, int lda, const T* tau, std::string& error) {
  if (n <= kGpuMaxColumns) return form_q_gpu(m, n, k, a, lda, tau, error);
  if (k < 1 || k > n || n > kGpuMaxWide || n > m || lda < m || !wide_q_fits(n, k)) {
    error = "invalid arguments";
    return false;
  }
  return cuda::run_guarded(error, [&] { return form_q(m, n, k, a, lda, tau, error); });
}

template <class T>
bool ormqr_gpu(bool transpose, int m, int nc, int k, const T* a, int lda, const T* tau, T* c,
               int ldc, std::string& error) {
  if (k <= kGpuMaxReflectors && nc <= kGpuMaxColumns) {
    return apply_q_gpu(transpose, m, nc, k, a, lda, tau, c, ldc, error);
  }
  if (k < 1 || k > kGpuMaxWide || k > m || nc < 1 || nc > kGpuMaxWide || lda < m || ldc < m) {
    error = "invalid arguments";
    return false;
  }
  return cuda::run_guarded(
      error, [&] { return apply_q(transpose, m, nc, k, a, lda, tau, c, ldc, error); });
}

template cudaError_t apply_q_wide_on_device<float>(bool, long long, int, int, const float*,
                                                   long long, const float*, float*, long long,
                                                   cudaStream_t);
template cudaError_t apply_q_wide_on_device<double>(bool, long long, int, int, const double*,
                                                    long long, const double*, double*,
                                                    long long, cudaStream_t);
template bool orgqr_gpu<float>(int, int, int, float*, int, const float*, std::string&);
template bool orgqr_gpu<double>(int, int, int, double*, int, const double*, std::string&);
template bool ormqr_gpu<float>(bool, int, int, int, const float*, int, const float*, float*, int,
                               std::string&);
template bool ormqr_gpu<double>(bool, int, int, int, const double*, int, const double*, double*,
                                int, std::string&);

}  // namespace switchyard::qr
