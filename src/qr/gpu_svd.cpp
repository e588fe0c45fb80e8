#include "qr/gpu_svd.hpp"

#include <algorithm>
#include <cmath>
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

// Whether xGESDD and xGESVD scale A first (SMLNUM = sqrt(DLAMCH('S')) / DLAMCH('P'), BIGNUM its
// inverse), or stop at a NaN.
template <class T>
bool left_to_fallback(T norm) {
  const T small = std::sqrt(std::numeric_limits<T>::min()) / std::numeric_limits<T>::epsilon();
  if (std::isnan(norm)) return true;
  return (norm > T(0) && norm < small) || norm > T(1) / small;
}

// Q C for C (m x n, ld ldc) on the device: Q = Q_0 Q_1 ... of blocks of kGpuMaxReflectors
// reflectors, the last block applied first.
template <class T>
cudaError_t apply_q(int m, int n, const T* a, long long lda, const T* tau, T* c, long long ldc,
                    cudaStream_t stream) {
  const int last = (n - 1) / kGpuMaxReflectors * kGpuMaxReflectors;
  for (int first = last; first >= 0; first -= kGpuMaxReflectors) {
    const int k = std::min(kGpuMaxReflectors, n - first);
    const cudaError_t status = apply_q_on_device(false, m - first, n, k, a + first + first * lda,
                                                 lda, tau + first, c + first, ldc, stream);
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

}  // namespace

template <class T>
GelsOutcome singular_values_gpu(int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt,
                                const SmallSvd<T>& small, int* info, std::string& error) {
  if (m < n || n < 1 || n > kGpuMaxLeastSquaresColumns || lda < m || (u && ldu < m) ||
      (vt && ldvt < n) || !small) {
    error = "invalid arguments";
    return GelsOutcome::kFailed;
  }
  GelsOutcome outcome = GelsOutcome::kFailed;
  cuda::run_guarded(error, [&] {
    cuda::Stream stream;
    if (stream.status() != cudaSuccess) return cuda::fail(error, "no stream", stream.status());
    const cudaStream_t on = stream.get();
    std::optional<cuda::Staging> staging;
    const cuda::OnDevice<T> on_a(a, lda, m, n, stream, staging);
    if (on_a.status() != cudaSuccess) return cuda::fail(error, "no copy of A", on_a.status());

    cuda::DeviceBuffer scratch(sizeof(unsigned long long) + sizeof(T) * std::size_t(n), on);
    cudaError_t status = scratch.status();
    auto* bits = static_cast<unsigned long long*>(scratch.get());
    T* const tau = reinterpret_cast<T*>(bits + 1);
    unsigned long long host_bits = 0;
    if (status == cudaSuccess) status = cudaMemsetAsync(bits, 0, sizeof host_bits, on);
    if (status == cudaSuccess)
      status = kernels::max_abs_bits(m, n, on_a.get(), on_a.ld(), bits, on);
    if (status == cudaSuccess) {
      status = cudaMemcpyAsync(&host_bits, bits, sizeof host_bits, cudaMemcpyDeviceToHost, on);
    }
    status = cuda::wait(on, status);
    if (status != cudaSuccess) return cuda::fail(error, "the norm of A", status);
    if (left_to_fallback(kernels::magnitude_of_bits<T>(host_bits))) {
      outcome = GelsOutcome::kNeedsScaling;
      return false;
    }

    // A's QR; R to the host, zero below its diagonal.
    const std::size_t order = std::size_t(n);
    std::vector<T> r(order * order), u_r(u ? order * order : 1), s_r(order);
    std::vector<T> vt_r(vt ? order * order : 1);
    status = tsqr::enqueue_qr(m, n, on_a.get(), on_a.ld(), tau, on);
    if (status == cudaSuccess) {
      status = cudaMemcpy2DAsync(r.data(), sizeof(T) * order, on_a.get(), sizeof(T) * on_a.ld(),
                                 sizeof(T) * order, order, cudaMemcpyDeviceToHost, on);
    }
    status = cuda::wait(on, status);
    if (status != cudaSuccess) return cuda::fail(error, "QR on the device", status);
    for (std::size_t j = 0; j < order; ++j)
      std::fill(&r[j * order + j + 1], &r[(j + 1) * order], T(0));
    const int small_info = small(r.data(), s_r.data(), u_r.data(), vt_r.data());

    if (u && small_info >= 0) {
      // U = Q [U_R; 0], formed where U lies, or in a device copy that then goes to U.
      const bool in_place = cuda::device_accessible(u);
      std::optional<cuda::DeviceBuffer> copy;
      if (!in_place) copy.emplace(sizeof(T) * std::size_t(m) * order, on);
      status = copy ? copy->status() : cudaSuccess;
      T* const c = in_place ? u : static_cast<T*>(copy->get());
      const long long ldc = in_place ? ldu : m;
      if (status == cudaSuccess) {
        status = cudaMemset2DAsync(c, sizeof(T) * ldc, 0, sizeof(T) * std::size_t(m), order, on);
      }
      if (status == cudaSuccess) {
        status = cudaMemcpy2DAsync(c, sizeof(T) * ldc, u_r.data(), sizeof(T) * order,
                                   sizeof(T) * order, order, cudaMemcpyHostToDevice, on);
      }
      if (status == cudaSuccess) status = apply_q(m, n, on_a.get(), on_a.ld(), tau, c, ldc, on);
      status = cuda::wait(on, status);
      if (status != cudaSuccess) return cuda::fail(error, "the singular vectors", status);
      // U is overwritten from here on: a failure can no longer be undone.
      if (!in_place) {
        if (!staging) staging.emplace();
        cuda::write_back_rows(c, m, n, u, ldu, *staging, cuda::row_chunks(m, sizeof(T) * order, 1),
                              on);
      }
    }
    if (vt && small_info >= 0) {
      cudaMemcpy2D(vt, sizeof(T) * std::size_t(ldvt), vt_r.data(), sizeof(T) * order,
                   sizeof(T) * order, order, cudaMemcpyDefault);
    }
    cudaMemcpy(s, s_r.data(), sizeof(T) * order, cudaMemcpyDefault);
    *info = small_info;
    outcome = GelsOutcome::kSolved;
    return true;
  });
  return outcome;
}

template GelsOutcome singular_values_gpu<float>(int, int, float*, int, float*, float*, int, float*,
                                                int, const SmallSvd<float>&, int*, std::string&);
template GelsOutcome singular_values_gpu<double>(int, int, double*, int, double*, double*, int,
                                                 double*, int, const SmallSvd<double>&, int*,
                                                 std::string&);

}  // namespace switchyard::qr
