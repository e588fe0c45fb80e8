// The gpu route of sgeqp3/dgeqp3 (m >= n, n <= 64): one TSQR on a CUDA device whose R is
// pivoted on the host by the fallback's xGEQP3 between the reduction and the reconstruction
// (drivers.hpp), taken automatically for tall-skinny shapes that pay (src/route.cpp). Like the
// cpu route it is weighed as the xGEQRF of its shape on both sides (the fallback's xGEQP3
// takes at least its xGEQRF's time).
#include <algorithm>
#include <new>
#include <string>
#include <vector>

#include "calls.hpp"
#include "device/probe.hpp"
#include "dispatch.hpp"
#include "qr/gpu/cost.hpp"
#include "qr/gpu/drivers.hpp"
#include "qr/gpu/fallback_on_host.hpp"
#include "qr/gpu/outcome.hpp"
#include "qr/gpu/residence.hpp"
#include "tsqr/small_pivoted_qr.hpp"

namespace switchyard {
namespace qr::gpu {
namespace {

// The pivoted factorization's steps on the host. The root's R comes to the host and goes back
// as R2, R P = Q2 R2, with Q2 (in `small_q` on the device) for the top of the tree, so that
// block 0's rows of Q [Q2; 0] give the reconstruction's Q1; after the reconstruction Q2 inv(U)
// takes Q2's place, so that the pass down the tree writes V2 of A P. JPVT is worked on in a
// copy, given back only once everything has run.
template <class T>
class HostPivoting {
 public:
  HostPivoting(int n, const int* jpvt, const tsqr::Lapack<T>& lapack)
      : n_(n), jpvt_(jpvt, jpvt + n), small_(n, jpvt_.data(), lapack) {}

  bool allocate() {
    try {
      r_.resize(std::size_t(n_) * n_);
      q_.resize(std::size_t(n_) * n_);
    } catch (const std::bad_alloc&) {
      return false;
    }
    return small_.allocate() == tsqr::kOk;
  }

  cudaError_t pivot_root(T* root_r, T* small_q, cudaStream_t stream) {
    cudaError_t status =
        cudaMemcpyAsync(r_.data(), root_r, bytes(), cudaMemcpyDeviceToHost, stream);
    if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
    if (status != cudaSuccess) return status;
    small_.run(r_.data(), q_.data());
    status = cudaMemcpyAsync(root_r, r_.data(), bytes(), cudaMemcpyHostToDevice, stream);
    if (status != cudaSuccess) return status;
    return cudaMemcpyAsync(small_q, q_.data(), bytes(), cudaMemcpyHostToDevice, stream);
  }

  // inv(U) is upper triangular: column j of Q2 inv(U) needs Q2's columns 0..j.
  cudaError_t fold_u_inverse(const T* u_inverse, T* small_q, cudaStream_t stream) {
    cudaError_t status =
        cudaMemcpyAsync(r_.data(), u_inverse, bytes(), cudaMemcpyDeviceToHost, stream);
    if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
    if (status != cudaSuccess) return status;
    const std::size_t n = std::size_t(n_);
    folded_.assign(n * n, T(0));
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t l = 0; l <= j; ++l) {
        const T u = r_[l + j * n];
        for (std::size_t i = 0; i < n; ++i) folded_[i + j * n] += q_[i + l * n] * u;
      }
    }
    return cudaMemcpyAsync(small_q, folded_.data(), bytes(), cudaMemcpyHostToDevice, stream);
  }

  void give(int* jpvt, T* work1) const {
    std::copy(jpvt_.begin(), jpvt_.end(), jpvt);
    *work1 = small_.work1();
  }

 private:
  std::size_t bytes() const { return sizeof(T) * std::size_t(n_) * std::size_t(n_); }

  const int n_;
  std::vector<int> jpvt_;
  tsqr::SmallPivotedQr<T> small_;
  std::vector<T> r_;       // the root's R, R2, then inv(U)
  std::vector<T> q_;       // Q2
  std::vector<T> folded_;  // Q2 inv(U)
};

}  // namespace

template <class T>
bool geqp3_gpu(int m, int n, T* a, int lda, int* jpvt, T* tau, const tsqr::Lapack<T>& lapack,
               T* work1, std::string& error) {
  if (m < n || n < 1 || n > kMaxPivotedColumns || lda < m || !jpvt || !work1) {
    error = "invalid arguments";
    return false;
  }
  if (!lapack.complete_for_pivoting()) {
    error = "no xGEQP3 and xORGQR to pivot R with";
    return false;
  }
  HostPivoting<T> pivoting(n, jpvt, lapack);
  if (!pivoting.allocate()) {
    error = "no workspace for the pivoted QR of R";
    return false;
  }
  return cuda::run_guarded(error, [&] {
    Residence where;
    if (where.status() != cudaSuccess) return cuda::fail(error, "no stream", where.status());
    const cudaStream_t stream = where.stream();
    Operand<T> on_a(where, a, lda, m, n);
    if (on_a.status() != cudaSuccess) return cuda::fail(error, "no copy of A", on_a.status());
    const std::size_t order = std::size_t(n);
    // tau, then Q2 (later Q2 inv(U)), n x n.
    cuda::DeviceBuffer scratch(sizeof(T) * (order + order * order), stream);
    TsqrTree<T> tree(m, n, on_a.get(), on_a.ld(), stream);
    cudaError_t status = scratch.status() != cudaSuccess ? scratch.status() : tree.status();
    T* const tau_out = static_cast<T*>(scratch.get());
    T* const small_q = tau_out + order;
    if (status == cudaSuccess) {
      status = on_a.arrive(n, kTsqrBlockRows, [&](long long first, long long rows) {
        return tree.factor_leaves(first, rows);
      });
    }
    if (status == cudaSuccess) status = tree.reduce();
    if (status == cudaSuccess) status = pivoting.pivot_root(tree.root_r(), small_q, stream);
    if (status == cudaSuccess) status = tree.form_first_rows(small_q);
    if (status == cudaSuccess) status = tree.reconstruct();
    if (status == cudaSuccess) status = pivoting.fold_u_inverse(tree.u_inverse(), small_q, stream);
    if (status == cudaSuccess) status = tree.write_factors(small_q, tau_out);
    std::vector<T> host_tau;
    if (status == cudaSuccess) status = to_host(tau_out, n, host_tau, stream);
    return finish_call(where, status, on_a.in_place() ? "QR on device data" : "QR on host data",
                       error, [&] {
                         on_a.write_back();
                         cudaMemcpy(tau, host_tau.data(), sizeof(T) * order, cudaMemcpyDefault);
                         pivoting.give(jpvt, work1);
                       });
  });
}

template bool geqp3_gpu<float>(int, int, float*, int, int*, float*, const tsqr::Lapack<float>&,
                               float*, std::string&);
template bool geqp3_gpu<double>(int, int, double*, int, int*, double*, const tsqr::Lapack<double>&,
                                double*, std::string&);

}  // namespace qr::gpu

namespace {

template <class T>
const char* declines(const Geqp3Call<T>& g) {
  if (g.m < g.n) return "TSQR needs m >= n";
  if (g.n > qr::gpu::kMaxPivotedColumns) return "the GPU pivoted QR takes at most 64 columns";
  return nullptr;
}

template <class T>
bool run(const Geqp3Call<T>& g) {
  std::string error;
  T work1{};
  if (!qr::gpu::ran(qr::gpu::geqp3_gpu(g.m, g.n, g.a, g.lda, g.jpvt, g.tau,
                                       tsqr::fallback_lapack<T>(), &work1, error),
                    qr::gpu::of_precision<T>(Routine::sgeqp3, Routine::dgeqp3), error)) {
    return false;
  }
  cuda::store(g.work, work1);
  *g.info = 0;
  return true;
}

template <class T>
bool resident(const Geqp3Call<T>& g) {
  return cuda_device_pointer(g.a);
}

// Weighed as the xGEQRF of its shape.
template <class T>
const RouteCost cost{
    device::Family::cuda,
    qr::gpu::device_seconds<T, qr::gpu::of_precision<T>(Routine::sgeqrf, Routine::dgeqrf)>};

template <class T>
const Implementation<Geqp3Call<T>> gpu_geqp3{
    cuda::unavailable, declines<T>, run<T>,      nullptr,
    nullptr,           &cost<T>,    resident<T>, qr::gpu::fallback_on_host<Geqp3Call<T>>};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<Geqp3Call<float>>::gpu = &gpu_geqp3<float>;
  Implementations<Geqp3Call<double>>::gpu = &gpu_geqp3<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
