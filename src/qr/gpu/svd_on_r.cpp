#include "qr/gpu/svd_on_r.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "qr/gpu/blocked_qr.hpp"
#include "qr/gpu/magnitude.hpp"
#include "qr/gpu/residence.hpp"
#include "qr/gpu/wy_block.hpp"

namespace switchyard::qr::gpu {
namespace {

// Whether xGESDD and xGESVD scale A first (SMLNUM = sqrt(DLAMCH('S')) / DLAMCH('P'), BIGNUM its
// inverse), or stop at a NaN.
template <class T>
bool left_to_fallback(T norm) {
  const T small = std::sqrt(std::numeric_limits<T>::min()) / std::numeric_limits<T>::epsilon();
  if (std::isnan(norm)) return true;
  return (norm > T(0) && norm < small) || norm > T(1) / small;
}

}  // namespace

template <class T>
Outcome svd_on_r_gpu(int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt,
                     const SmallSvd<T>& small, int* info, std::string& error) {
  if (m < n || n < 1 || n > kMaxLeastSquaresColumns || lda < m || (u && ldu < m) ||
      (vt && ldvt < n) || !small) {
    error = "invalid arguments";
    return Outcome::kFailed;
  }
  Outcome outcome = Outcome::kFailed;
  cuda::run_guarded(error, [&] {
    Residence where;
    if (where.status() != cudaSuccess) return cuda::fail(error, "no stream", where.status());
    const cudaStream_t on = where.stream();
    // A's factors stay on the device: a copy of A is never written back.
    Operand<T> on_a(where, a, lda, m, n);
    cudaError_t status = on_a.status() == cudaSuccess ? on_a.arrive() : on_a.status();
    if (status != cudaSuccess) return cuda::fail(error, "no copy of A", status);

    const DeviceMatrix<T> operand{m, n, on_a.get(), on_a.ld()};
    T norm{};
    status = largest_magnitudes(1, &operand, &norm, on);
    if (status != cudaSuccess) return cuda::fail(error, "the norm of A", status);
    if (left_to_fallback(norm)) {
      outcome = Outcome::kNeedsScaling;
      return false;
    }

    // A's QR; R to the host, zero below its diagonal.
    const std::size_t order = std::size_t(n);
    cuda::DeviceBuffer device_tau(sizeof(T) * order, on);
    T* const tau = static_cast<T*>(device_tau.get());
    std::vector<T> r(order * order), u_r(u ? order * order : 1), s_r(order);
    std::vector<T> vt_r(vt ? order * order : 1);
    status = device_tau.status();
    if (status == cudaSuccess) status = enqueue_qr(m, n, on_a.get(), on_a.ld(), tau, on);
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
      Operand<T> on_u(where, u, ldu, m, n);
      status = on_u.status();
      if (status == cudaSuccess) {
        status = cudaMemset2DAsync(on_u.get(), sizeof(T) * on_u.ld(), 0, sizeof(T) * std::size_t(m),
                                   order, on);
      }
      if (status == cudaSuccess) {
        status = cudaMemcpy2DAsync(on_u.get(), sizeof(T) * on_u.ld(), u_r.data(), sizeof(T) * order,
                                   sizeof(T) * order, order, cudaMemcpyHostToDevice, on);
      }
      if (status == cudaSuccess) {
        status =
            apply_q_blocks(false, m, n, n, on_a.get(), on_a.ld(), tau, on_u.get(), on_u.ld(), on);
      }
      if (!finish_call(where, status, "the singular vectors", error, [&] { on_u.write_back(); })) {
        return false;
      }
    }
    if (vt && small_info >= 0) {
      cudaMemcpy2D(vt, sizeof(T) * std::size_t(ldvt), vt_r.data(), sizeof(T) * order,
                   sizeof(T) * order, order, cudaMemcpyDefault);
    }
    cudaMemcpy(s, s_r.data(), sizeof(T) * order, cudaMemcpyDefault);
    *info = small_info;
    outcome = Outcome::kSolved;
    return true;
  });
  return outcome;
}

template Outcome svd_on_r_gpu<float>(int, int, float*, int, float*, float*, int, float*, int,
                                     const SmallSvd<float>&, int*, std::string&);
template Outcome svd_on_r_gpu<double>(int, int, double*, int, double*, double*, int, double*, int,
                                      const SmallSvd<double>&, int*, std::string&);

}  // namespace switchyard::qr::gpu
