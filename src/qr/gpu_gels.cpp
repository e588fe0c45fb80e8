#include "qr/gpu_gels.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "device/row_streaming.hpp"
#include "max_abs.hpp"
#include "qr/gpu_apply_q.hpp"
#include "tsqr/gpu_tsqr.hpp"

namespace switchyard::qr {
namespace {

// Whether xGELS scales a matrix whose largest magnitude is `norm` before it factors: below
// SMLNUM = DLAMCH('S') / DLAMCH('P') or above its inverse, or A zero (xGELS then returns a zero
// solution). A NaN compares false, and xGELS goes on unscaled.
template <class T>
bool scaled(T norm, bool zero_too) {
  const T small = std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  const T big = T(1) / small;
  if (norm == T(0)) return zero_too;
  return norm < small || norm > big;
}

// The largest magnitudes of A and B, computed where they lie on the device.
template <class T>
cudaError_t largest_magnitudes(int m, int n, int nrhs, const cuda::OnDevice<T>& a,
                               const cuda::OnDevice<T>& b, cudaStream_t stream, T& a_norm,
                               T& b_norm) {
  cuda::DeviceBuffer bits(2 * sizeof(unsigned long long), stream);
  cudaError_t status = bits.status();
  auto* device_bits = static_cast<unsigned long long*>(bits.get());
  if (status == cudaSuccess) {
    status = cudaMemsetAsync(device_bits, 0, 2 * sizeof(unsigned long long), stream);
  }
  if (status == cudaSuccess) {
    status = kernels::max_abs_bits(m, n, a.get(), a.ld(), device_bits, stream);
  }
  if (status == cudaSuccess) {
    status = kernels::max_abs_bits(m, nrhs, b.get(), b.ld(), device_bits + 1, stream);
  }
  unsigned long long host_bits[2] = {};
  if (status == cudaSuccess) {
    status =
        cudaMemcpyAsync(host_bits, device_bits, sizeof host_bits, cudaMemcpyDeviceToHost, stream);
  }
  status = cuda::wait(stream, status);
  a_norm = kernels::magnitude_of_bits<T>(host_bits[0]);
  b_norm = kernels::magnitude_of_bits<T>(host_bits[1]);
  return status;
}

// Q^T B, the n reflectors applied kGpuMaxReflectors at a time, as xORMQR blocks them.
template <class T>
cudaError_t apply_q_transposed(int m, int n, int nrhs, const T* a, long long lda, const T* tau,
                               T* b, long long ldb, cudaStream_t stream) {
  for (int first = 0; first < n; first += kGpuMaxReflectors) {
    const int k = std::min(kGpuMaxReflectors, n - first);
    const cudaError_t status = apply_q_on_device(true, m - first, nrhs, k, a + first + first * lda,
                                                 lda, tau + first, b + first, ldb, stream);
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

// Copies rows [0, rows) of the device matrix (ld `ld`) to or from a host matrix of ld rows.
template <class T>
cudaError_t copy_top(bool to_host, int rows, int cols, T* device, long long ld, T* host,
                     cudaStream_t stream) {
  const std::size_t width = sizeof(T) * std::size_t(rows);
  const std::size_t device_pitch = sizeof(T) * std::size_t(ld);
  return to_host ? cudaMemcpy2DAsync(host, width, device, device_pitch, width, cols,
                                     cudaMemcpyDeviceToHost, stream)
                 : cudaMemcpy2DAsync(device, device_pitch, host, width, width, cols,
                                     cudaMemcpyHostToDevice, stream);
}

}  // namespace

template <class T>
GelsOutcome least_squares_on_r_gpu(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* tau,
                                   const SmallSolve<T>& solve_small, int* info,
                                   std::string& error) {
  if (m < n || n < 1 || n > kGpuMaxLeastSquaresColumns || nrhs < 1 || lda < m || ldb < m) {
    error = "invalid arguments";
    return GelsOutcome::kFailed;
  }
  GelsOutcome outcome = GelsOutcome::kFailed;
  cuda::run_guarded(error, [&] {
    cuda::Stream stream;
    if (stream.status() != cudaSuccess) return cuda::fail(error, "no stream", stream.status());
    std::optional<cuda::Staging> staging;
    const cuda::OnDevice<T> on_a(a, lda, m, n, stream, staging);
    if (on_a.status() != cudaSuccess) return cuda::fail(error, "no copy of A", on_a.status());
    const cuda::OnDevice<T> on_b(b, ldb, m, nrhs, stream, staging);
    if (on_b.status() != cudaSuccess) return cuda::fail(error, "no copy of B", on_b.status());

    T a_norm{}, b_norm{};
    cudaError_t status = largest_magnitudes(m, n, nrhs, on_a, on_b, stream.get(), a_norm, b_norm);
    if (status != cudaSuccess) return cuda::fail(error, "the norms of A and B", status);
    if (scaled(a_norm, true) || scaled(b_norm, false)) {
      outcome = GelsOutcome::kNeedsScaling;
      return false;
    }

    cuda::DeviceBuffer device_tau(sizeof(T) * std::size_t(n), stream.get());
    status = device_tau.status();
    T* const tau_on_device = static_cast<T*>(device_tau.get());
    if (status == cudaSuccess) {
      status = tsqr::enqueue_qr(m, n, on_a.get(), on_a.ld(), tau_on_device, stream.get());
    }
    if (status == cudaSuccess) {
      status = apply_q_transposed(m, n, nrhs, on_a.get(), on_a.ld(), tau_on_device, on_b.get(),
                                  on_b.ld(), stream.get());
    }
    // R and the top n rows of Q^T B come to the host for the problem left on R.
    const std::size_t order = std::size_t(n);
    std::vector<T> r(order * order), top(order * std::size_t(nrhs)), host_tau(order);
    if (status == cudaSuccess) {
      status = copy_top(true, n, n, on_a.get(), on_a.ld(), r.data(), stream.get());
    }
    if (status == cudaSuccess) {
      status = copy_top(true, n, nrhs, on_b.get(), on_b.ld(), top.data(), stream.get());
    }
    if (status == cudaSuccess) {
      status = cudaMemcpyAsync(host_tau.data(), tau_on_device, sizeof(T) * std::size_t(n),
                               cudaMemcpyDeviceToHost, stream.get());
    }
    status = cuda::wait(stream.get(), status);
    if (status != cudaSuccess) return cuda::fail(error, "least squares on the device", status);

    const int solve_info = solve_small(r.data(), top.data());
    status = copy_top(false, n, nrhs, on_b.get(), on_b.ld(), top.data(), stream.get());
    status = cuda::wait(stream.get(), status);
    if (status != cudaSuccess) return cuda::fail(error, "the solution to the device", status);

    // A and B are overwritten from here on: a failure can no longer be undone.
    on_a.write_back();
    on_b.write_back();
    std::copy(host_tau.begin(), host_tau.end(), tau);
    *info = solve_info;
    outcome = GelsOutcome::kSolved;
    return true;
  });
  return outcome;
}

template <class T>
GelsOutcome solve_least_squares_gpu(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* tau,
                                    TrtrsFn<T>* trtrs, int* info, std::string& error) {
  if (!trtrs) {
    error = "no xTRTRS";
    return GelsOutcome::kFailed;
  }
  // xTRTRS checks R's diagonal before it solves: with INFO > 0, `top` is as it came.
  const SmallSolve<T> solve = [&](T* r, T* top) {
    int solve_info = 0;
    trtrs("U", "N", "N", &n, &nrhs, r, &n, top, &n, &solve_info, 1, 1, 1);
    return solve_info;
  };
  return least_squares_on_r_gpu(m, n, nrhs, a, lda, b, ldb, tau, solve, info, error);
}

template GelsOutcome least_squares_on_r_gpu<float>(int, int, int, float*, int, float*, int, float*,
                                                   const SmallSolve<float>&, int*, std::string&);
template GelsOutcome least_squares_on_r_gpu<double>(int, int, int, double*, int, double*, int,
                                                    double*, const SmallSolve<double>&, int*,
                                                    std::string&);
template GelsOutcome solve_least_squares_gpu<float>(int, int, int, float*, int, float*, int, float*,
                                                    TrtrsFn<float>*, int*, std::string&);
template GelsOutcome solve_least_squares_gpu<double>(int, int, int, double*, int, double*, int,
                                                     double*, TrtrsFn<double>*, int*, std::string&);

}  // namespace switchyard::qr
