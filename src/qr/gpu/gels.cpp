// The gpu route of sgels/dgels (TRANS = 'N', m >= n): the whole call on a CUDA device in one
// trip (least_squares.hpp), taken automatically for tall-skinny shapes that pay (src/route.cpp)
// when a CUDA device is present. Weighed as a streamed QR that moves A up and back and B up and
// back, against the fallback's xGEQRF and xORMQR of the shape (calibration.cpp). The steps
// shared with xGELSD's route (gelsd.cpp) are here too.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "calls.hpp"
#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "dispatch.hpp"
#include "optimal_lwork.hpp"
#include "qr/gpu/blocked_qr.hpp"
#include "qr/gpu/cost.hpp"
#include "qr/gpu/fallback_on_host.hpp"
#include "qr/gpu/least_squares.hpp"
#include "qr/gpu/magnitude.hpp"
#include "qr/gpu/outcome.hpp"
#include "qr/gpu/residence.hpp"
#include "qr/gpu/wy_block.hpp"

namespace switchyard {
namespace qr::gpu {
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
Outcome least_squares_on_r_gpu(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* tau,
                               const SmallSolve<T>& solve_small, int* info, std::string& error) {
  if (m < n || n < 1 || n > kMaxLeastSquaresColumns || nrhs < 1 || lda < m || ldb < m) {
    error = "invalid arguments";
    return Outcome::kFailed;
  }
  Outcome outcome = Outcome::kFailed;
  cuda::run_guarded(error, [&] {
    Residence where;
    if (where.status() != cudaSuccess) return cuda::fail(error, "no stream", where.status());
    const cudaStream_t stream = where.stream();
    Operand<T> on_a(where, a, lda, m, n);
    if (on_a.status() != cudaSuccess) return cuda::fail(error, "no copy of A", on_a.status());
    cudaError_t status = on_a.arrive();
    if (status != cudaSuccess) return cuda::fail(error, "no copy of A", status);
    Operand<T> on_b(where, b, ldb, m, nrhs);
    status = on_b.status() == cudaSuccess ? on_b.arrive() : on_b.status();
    if (status != cudaSuccess) return cuda::fail(error, "no copy of B", status);

    const DeviceMatrix<T> operands[2] = {{m, n, on_a.get(), on_a.ld()},
                                         {m, nrhs, on_b.get(), on_b.ld()}};
    T norms[2] = {};
    status = largest_magnitudes(2, operands, norms, stream);
    if (status != cudaSuccess) return cuda::fail(error, "the norms of A and B", status);
    if (scaled(norms[0], true) || scaled(norms[1], false)) {
      outcome = Outcome::kNeedsScaling;
      return false;
    }

    cuda::DeviceBuffer device_tau(sizeof(T) * std::size_t(n), stream);
    status = device_tau.status();
    T* const tau_on_device = static_cast<T*>(device_tau.get());
    if (status == cudaSuccess) {
      status = enqueue_qr(m, n, on_a.get(), on_a.ld(), tau_on_device, stream);
    }
    if (status == cudaSuccess) {
      status = apply_q_blocks(true, m, nrhs, n, on_a.get(), on_a.ld(), tau_on_device, on_b.get(),
                              on_b.ld(), stream);
    }
    // R and the top n rows of Q^T B come to the host for the problem left on R.
    const std::size_t order = std::size_t(n);
    std::vector<T> r(order * order), top(order * std::size_t(nrhs)), host_tau;
    if (status == cudaSuccess)
      status = copy_top(true, n, n, on_a.get(), on_a.ld(), r.data(), stream);
    if (status == cudaSuccess) {
      status = copy_top(true, n, nrhs, on_b.get(), on_b.ld(), top.data(), stream);
    }
    if (status == cudaSuccess) status = to_host(tau_on_device, n, host_tau, stream);
    status = cuda::wait(stream, status);
    if (status != cudaSuccess) return cuda::fail(error, "least squares on the device", status);

    const int solve_info = solve_small(r.data(), top.data());
    status = copy_top(false, n, nrhs, on_b.get(), on_b.ld(), top.data(), stream);
    return finish_call(where, status, "the solution to the device", error, [&] {
      on_a.write_back();
      on_b.write_back();
      std::copy(host_tau.begin(), host_tau.end(), tau);
      *info = solve_info;
      outcome = Outcome::kSolved;
    });
  });
  return outcome;
}

template <class T>
Outcome gels_gpu(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* tau, TrtrsFn<T>* trtrs,
                 int* info, std::string& error) {
  if (!trtrs) {
    error = "no xTRTRS";
    return Outcome::kFailed;
  }
  // xTRTRS checks R's diagonal before it solves: with INFO > 0, `top` is as it came.
  const SmallSolve<T> solve = [&](T* r, T* top) {
    int solve_info = 0;
    trtrs("U", "N", "N", &n, &nrhs, r, &n, top, &n, &solve_info, 1, 1, 1);
    return solve_info;
  };
  return least_squares_on_r_gpu(m, n, nrhs, a, lda, b, ldb, tau, solve, info, error);
}

template Outcome least_squares_on_r_gpu<float>(int, int, int, float*, int, float*, int, float*,
                                               const SmallSolve<float>&, int*, std::string&);
template Outcome least_squares_on_r_gpu<double>(int, int, int, double*, int, double*, int, double*,
                                                const SmallSolve<double>&, int*, std::string&);
template Outcome gels_gpu<float>(int, int, int, float*, int, float*, int, float*, TrtrsFn<float>*,
                                 int*, std::string&);
template Outcome gels_gpu<double>(int, int, int, double*, int, double*, int, double*,
                                  TrtrsFn<double>*, int*, std::string&);

}  // namespace qr::gpu

namespace {

template <class T>
const char* declines(const GelsCall<T>& g) {
  if (g.trans != 'N') return "the GPU least squares takes TRANS = 'N'";
  if (g.m < g.n) return "the GPU least squares takes m >= n";
  if (g.n > qr::gpu::kMaxLeastSquaresColumns)
    return "the GPU least squares takes at most 256 columns";
  if (sizeof(T) == sizeof(float) ? !fallback().strtrs : !fallback().dtrtrs) {
    return "the fallback has no xTRTRS";
  }
  return nullptr;
}

template <class T>
bool run(const GelsCall<T>& g) {
  TrtrsFn<T>* trtrs;
  if constexpr (sizeof(T) == sizeof(float)) {
    trtrs = fallback().strtrs;
  } else {
    trtrs = fallback().dtrtrs;
  }
  const T work1 = g.optimal_lwork != 0 ? g.optimal_lwork : optimal_lwork(g);
  std::vector<T> tau(std::size_t(g.n));
  int info = 0;
  std::string error;
  const qr::gpu::Outcome outcome =
      qr::gpu::gels_gpu(g.m, g.n, g.nrhs, g.a, g.lda, g.b, g.ldb, tau.data(), trtrs, &info, error);
  if (!qr::gpu::solved(outcome, qr::gpu::of_precision<T>(Routine::sgels, Routine::dgels),
                       "A or B to be scaled first, or A zero: the fallback's", error)) {
    return false;
  }
  // As xGELS leaves WORK: tau in its first n elements, WORK(1) the optimal LWORK once solved.
  cudaMemcpy(g.work, tau.data(), sizeof(T) * tau.size(), cudaMemcpyDefault);
  if (info == 0) cuda::store(g.work, work1);
  *g.info = info;
  return true;
}

template <class T>
bool resident(const GelsCall<T>& g) {
  return cuda_device_pointer(g.a) || cuda_device_pointer(g.b);
}

template <class T>
const RouteCost cost{
    device::Family::cuda,
    qr::gpu::least_squares_seconds<T, qr::gpu::of_precision<T>(Routine::sgels, Routine::dgels)>};

template <class T>
const Implementation<GelsCall<T>> gpu_gels{
    cuda::unavailable, declines<T>, run<T>,      nullptr,
    nullptr,           &cost<T>,    resident<T>, qr::gpu::fallback_on_host<GelsCall<T>>};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<GelsCall<float>>::gpu = &gpu_gels<float>;
  Implementations<GelsCall<double>>::gpu = &gpu_gels<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
