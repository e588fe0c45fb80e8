#include "tsqr/gpu_tsqr.hpp"

#include <algorithm>
#include <new>
#include <optional>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "device/row_streaming.hpp"
#include "tsqr/gpu_panels.hpp"
#include "tsqr/small_pivoted_qr.hpp"
#include "tsqr_kernels.hpp"

namespace switchyard::tsqr {
namespace {

using kernels::kTsqrBlockRows;

int blocks_of(long long rows) { return int((rows + kTsqrBlockRows - 1) / kTsqrBlockRows); }

// One level of the reduction tree: its matrix (A itself at level 0, the stacked R factors of
// the level below otherwise) and the per-block outputs of its factorization.
template <class T>
struct Level {
  long long rows, ld;
  int blocks;
  T* data;
  T* tau;
  T* gram;
};

template <class T>
struct Plan {
  int n;
  std::vector<Level<T>> levels;  // levels.back() is the root, a single block
  T* r;                          // the root's R
  T* chain;                      // block 0's explicit Q, level by level (kTsqrBlockRows x n)
  T* lu;                         // Q1 - S = L U
  T* s;                          // the reconstruction signs
  T* u_inverse;
  T* small_q;    // pivoted: Q2, then Q2 inv(U) (HostPivoting)
  T* tau;        // tau, for a copy of A from host memory
  int* nonzero;  // per column: V2 has a nonzero
};

// Lays the plan's workspace out from `base` (null: only measures it) and returns its size in
// bytes. A copy of A (ld m) comes first when `copy_a`.
template <class T>
std::size_t lay_out(Plan<T>& p, int m, int n, bool copy_a, char* base) {
  std::size_t used = 0;
  const auto take = [&](std::size_t bytes) {
    char* at = base ? base + used : nullptr;
    used += (bytes + 255) / 256 * 256;
    return at;
  };
  const auto elements = [&](long long count) {
    return reinterpret_cast<T*>(take(std::size_t(count) * sizeof(T)));
  };
  p.n = n;
  p.levels.clear();
  T* a_copy = copy_a ? elements((long long)m * n) : nullptr;
  long long rows = m;
  for (;;) {
    const int blocks = blocks_of(rows);
    p.levels.push_back({rows, rows, blocks, nullptr, elements((long long)blocks * n),
                        elements((long long)blocks * n * n)});
    if (blocks == 1) break;
    rows = (long long)blocks * n;
  }
  p.levels[0].data = a_copy;
  for (std::size_t level = 1; level < p.levels.size(); ++level) {
    p.levels[level].data = elements(p.levels[level].rows * n);
  }
  p.r = elements((long long)n * n);
  p.chain = elements((long long)kTsqrBlockRows * n);
  p.lu = elements((long long)n * n);
  p.s = elements(n);
  p.u_inverse = elements((long long)n * n);
  p.small_q = elements((long long)n * n);
  p.tau = elements(n);
  p.nonzero = reinterpret_cast<int*>(take(sizeof(int) * std::size_t(n)));
  return used;
}

// Factors blocks [first, first + count) of a level, writing their R factors to the next.
template <class T>
cudaError_t factor_level(const Plan<T>& p, std::size_t level, int first, int count,
                         cudaStream_t stream) {
  const Level<T>& l = p.levels[level];
  const bool root = level + 1 == p.levels.size();
  return kernels::tsqr_factor_blocks(int(l.rows), p.n, l.data, l.ld, first, count, l.tau, l.gram,
                                     root ? p.r : p.levels[level + 1].data,
                                     root ? p.n : p.levels[level + 1].ld, stream);
}

// The pivoted factorization's steps on the host (factor_pivoted_gpu). The root's R comes to the
// host and goes back as R2, R P = Q2 R2, with Q2 for the top of the tree, so that block 0's
// rows of Q [Q2; 0] give the reconstruction's Q1; after the reconstruction Q2 inv(U) takes Q2's
// place, so that the pass down the tree writes V2 of A P. JPVT is worked on in a copy, given
// back only once everything has run.
template <class T>
class HostPivoting {
 public:
  HostPivoting(int n, const int* jpvt, const Lapack<T>& lapack)
      : n_(n), jpvt_(jpvt, jpvt + n), small_(n, jpvt_.data(), lapack) {}

  bool allocate() {
    try {
      r_.resize(std::size_t(n_) * n_);
      q_.resize(std::size_t(n_) * n_);
    } catch (const std::bad_alloc&) {
      return false;
    }
    return small_.allocate() == kOk;
  }

  cudaError_t pivot_root(const Plan<T>& p, cudaStream_t stream) {
    cudaError_t status = cudaMemcpyAsync(r_.data(), p.r, bytes(), cudaMemcpyDeviceToHost, stream);
    if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
    if (status != cudaSuccess) return status;
    small_.run(r_.data(), q_.data());
    status = cudaMemcpyAsync(p.r, r_.data(), bytes(), cudaMemcpyHostToDevice, stream);
    if (status != cudaSuccess) return status;
    return cudaMemcpyAsync(p.small_q, q_.data(), bytes(), cudaMemcpyHostToDevice, stream);
  }

  // inv(U) is upper triangular: column j of Q2 inv(U) needs Q2's columns 0..j.
  cudaError_t fold_u_inverse(const Plan<T>& p, cudaStream_t stream) {
    cudaError_t status =
        cudaMemcpyAsync(r_.data(), p.u_inverse, bytes(), cudaMemcpyDeviceToHost, stream);
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
    return cudaMemcpyAsync(p.small_q, folded_.data(), bytes(), cudaMemcpyHostToDevice, stream);
  }

  void give(int* jpvt, T* work1) const {
    std::copy(jpvt_.begin(), jpvt_.end(), jpvt);
    *work1 = small_.work1();
  }

 private:
  std::size_t bytes() const { return sizeof(T) * std::size_t(n_) * std::size_t(n_); }

  const int n_;
  std::vector<int> jpvt_;
  SmallPivotedQr<T> small_;
  std::vector<T> r_;       // the root's R, R2, then inv(U)
  std::vector<T> q_;       // Q2
  std::vector<T> folded_;  // Q2 inv(U)
};

// Everything after the leaves are factored: the upper levels, the reconstruction, and the
// pass that writes V and R over level 0 and tau to `tau`; with `pivoting`, of A P.
template <class T>
cudaError_t finish_factorization(const Plan<T>& p, T* tau, cudaStream_t stream,
                                 HostPivoting<T>* pivoting) {
  const int n = p.n;
  const std::size_t top = p.levels.size() - 1;
  cudaError_t status = cudaSuccess;
  const auto check = [&](cudaError_t s) { return (status = s) == cudaSuccess; };
  for (std::size_t level = 1; level <= top; ++level) {
    if (!check(factor_level(p, level, 0, p.levels[level].blocks, stream))) return status;
  }
  if (pivoting && !check(pivoting->pivot_root(p, stream))) return status;
  // Q1: block 0's rows of the explicit Q, from the root down.
  for (std::size_t level = top + 1; level-- > 0;) {
    const Level<T>& l = p.levels[level];
    const bool root = level == top;
    const T* x = root ? (pivoting ? p.small_q : nullptr) : p.chain;
    const long long ldx = root ? n : kTsqrBlockRows;
    if (!check(kernels::tsqr_form_blocks(int(l.rows), n, l.data, l.ld, 0, 1, l.tau, l.gram, x, ldx,
                                         p.chain, kTsqrBlockRows, nullptr, stream))) {
      return status;
    }
  }
  if (!check(
          kernels::tsqr_reconstruct(n, p.chain, kTsqrBlockRows, p.lu, p.s, p.u_inverse, stream))) {
    return status;
  }
  if (pivoting && !check(pivoting->fold_u_inverse(p, stream))) return status;
  // Q inv(U) down the tree: at level 0 that is V2, written over the leaves' reflectors.
  if (!check(cudaMemsetAsync(p.nonzero, 0, sizeof(int) * std::size_t(n), stream))) return status;
  for (std::size_t level = top + 1; level-- > 0;) {
    const Level<T>& l = p.levels[level];
    const bool root = level == top;
    const T* x = root ? (pivoting ? p.small_q : p.u_inverse) : p.levels[level + 1].data;
    const long long ldx = root ? n : p.levels[level + 1].ld;
    if (!check(kernels::tsqr_form_blocks(int(l.rows), n, l.data, l.ld, 0, l.blocks, l.tau, l.gram,
                                         x, ldx, l.data, l.ld, level == 0 ? p.nonzero : nullptr,
                                         stream))) {
      return status;
    }
  }
  const Level<T>& leaves = p.levels[0];
  return kernels::tsqr_finish(n, p.lu, p.s, p.r, p.nonzero, leaves.data, leaves.ld, tau, stream);
}

// Lays the plan out in workspace from the device pool, ordered on `stream`.
template <class T>
bool allocate(Plan<T>& plan, int m, int n, bool copy_a, const cuda::Stream& stream,
              std::optional<cuda::DeviceBuffer>& workspace, std::string& error) {
  if (stream.status() != cudaSuccess) return cuda::fail(error, "no stream", stream.status());
  workspace.emplace(lay_out<T>(plan, m, n, copy_a, nullptr), stream.get());
  if (workspace->status() != cudaSuccess) {
    return cuda::fail(error, "no device workspace", workspace->status());
  }
  lay_out<T>(plan, m, n, copy_a, static_cast<char*>(workspace->get()));
  return true;
}

// One TSQR of device-accessible A, as enqueue_tsqr; with `pivoting`, of A P.
template <class T>
cudaError_t enqueue_one_tsqr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream,
                             HostPivoting<T>* pivoting) {
  Plan<T> plan;
  cuda::DeviceBuffer workspace(lay_out<T>(plan, m, n, false, nullptr), stream);
  if (workspace.status() != cudaSuccess) return workspace.status();
  lay_out<T>(plan, m, n, false, static_cast<char*>(workspace.get()));
  plan.levels[0].data = a;
  plan.levels[0].ld = lda;
  const cudaError_t status = factor_level(plan, 0, 0, plan.levels[0].blocks, stream);
  return status == cudaSuccess ? finish_factorization(plan, tau, stream, pivoting) : status;
}

// Device-accessible A factored where it lies: pivoted by one TSQR, else as enqueue_qr.
template <class T>
bool factor_in_place(int m, int n, T* a, int lda, T* tau, HostPivoting<T>* pivoting,
                     std::string& error) {
  cuda::Stream stream;
  if (stream.status() != cudaSuccess) return cuda::fail(error, "no stream", stream.status());
  const bool tau_on_device = cuda::device_accessible(tau);
  std::optional<cuda::DeviceBuffer> device_tau;
  if (!tau_on_device) device_tau.emplace(sizeof(T) * n, stream.get());
  cudaError_t status = device_tau ? device_tau->status() : cudaSuccess;
  T* tau_out = device_tau ? static_cast<T*>(device_tau->get()) : tau;
  if (status == cudaSuccess) {
    status = pivoting ? enqueue_one_tsqr(m, n, a, lda, tau_out, stream.get(), pivoting)
                      : enqueue_qr(m, n, a, lda, tau_out, stream.get());
  }
  if (status == cudaSuccess && device_tau) {
    status = cudaMemcpyAsync(tau, tau_out, sizeof(T) * n, cudaMemcpyDeviceToHost, stream.get());
  }
  status = cuda::wait(stream.get(), status);
  return status == cudaSuccess || cuda::fail(error, "QR on device data", status);
}

// Waits for the factorization of a copy of host A enqueued on `stream` (`status`: the
// enqueueing's), then hands its tau (on the device) to the caller and has
// `write_back_a()` return A.
template <class T, class WriteBackA>
bool write_back(const T* device_tau, int n, T* tau, const cuda::Stream& stream, cudaError_t status,
                std::string& error, WriteBackA&& write_back_a) {
  status = cuda::wait(stream.get(), status);
  if (status != cudaSuccess) return cuda::fail(error, "QR on host data", status);
  std::vector<T> host_tau(static_cast<std::size_t>(n));
  status = cudaMemcpy(host_tau.data(), device_tau, sizeof(T) * n, cudaMemcpyDeviceToHost);
  if (status != cudaSuccess) return cuda::fail(error, "QR on host data", status);

  // A is being overwritten from here on: a failure can no longer be undone.
  write_back_a();
  std::copy(host_tau.begin(), host_tau.end(), tau);
  return true;
}

// Nothing is written back to the caller's A until every kernel has succeeded, so a failure
// before that leaves A as it was. One TSQR factors each chunk's leaves as the chunk arrives.
template <class T>
bool factor_streamed_tsqr(int m, int n, T* a, int lda, T* tau, HostPivoting<T>* pivoting,
                          std::string& error) {
  cuda::Stream stream;
  Plan<T> plan;
  std::optional<cuda::DeviceBuffer> workspace;
  if (!allocate(plan, m, n, true, stream, workspace, error)) return false;
  cuda::Staging staging;
  const cuda::RowChunks chunks = cuda::row_chunks(m, sizeof(T) * n, kTsqrBlockRows);
  const auto factor_leaves = [&](long long first, long long rows) {
    const int first_block = int(first / kTsqrBlockRows);
    return factor_level(plan, 0, first_block, blocks_of(first + rows) - first_block, stream.get());
  };
  cudaError_t status = cuda::upload_rows(a, lda, m, n, plan.levels[0].data, staging, chunks,
                                         stream.get(), factor_leaves);
  if (status == cudaSuccess) {
    status = finish_factorization(plan, plan.tau, stream.get(), pivoting);
  }
  return write_back(plan.tau, n, tau, stream, status, error, [&] {
    cuda::write_back_rows(plan.levels[0].data, m, n, a, lda, staging, chunks, stream.get());
  });
}

// The same for a matrix wider than one panel: the panels need all of A on the device first.
template <class T>
bool factor_streamed_panels(int m, int n, T* a, int lda, T* tau, std::string& error) {
  cuda::Stream stream;
  if (stream.status() != cudaSuccess) return cuda::fail(error, "no stream", stream.status());
  std::optional<cuda::Staging> staging;
  const cuda::OnDevice<T> copy(a, lda, m, n, stream, staging);
  if (copy.status() != cudaSuccess) return cuda::fail(error, "no copy of A", copy.status());
  cuda::DeviceBuffer device_tau(sizeof(T) * n, stream.get());
  if (device_tau.status() != cudaSuccess) {
    return cuda::fail(error, "no device workspace", device_tau.status());
  }
  T* tau_out = static_cast<T*>(device_tau.get());
  const cudaError_t status =
      enqueue_panel_qr(m, n, copy.get(), copy.ld(), tau_out, panel_width(), stream.get());
  return write_back(tau_out, n, tau, stream, status, error, [&] { copy.write_back(); });
}

}  // namespace

template <class T>
cudaError_t enqueue_tsqr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream) {
  return enqueue_one_tsqr<T>(m, n, a, lda, tau, stream, nullptr);
}

template <class T>
cudaError_t enqueue_qr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream) {
  const int width = panel_width();
  if (n <= width) return enqueue_tsqr(m, n, a, lda, tau, stream);
  return enqueue_panel_qr(m, n, a, lda, tau, width, stream);
}

template <class T>
bool factor_gpu(int m, int n, T* a, int lda, T* tau, std::string& error) {
  if (m < n || n < 1 || n > kGpuMaxColumns || lda < m) {
    error = "invalid arguments";
    return false;
  }
  return cuda::run_guarded(error, [&] {
    if (cuda::device_accessible(a)) return factor_in_place<T>(m, n, a, lda, tau, nullptr, error);
    if (n <= panel_width()) return factor_streamed_tsqr<T>(m, n, a, lda, tau, nullptr, error);
    return factor_streamed_panels(m, n, a, lda, tau, error);
  });
}

template <class T>
bool factor_pivoted_gpu(int m, int n, T* a, int lda, int* jpvt, T* tau, const Lapack<T>& lapack,
                        T* work1, std::string& error) {
  if (m < n || n < 1 || n > kGpuMaxPivotedColumns || lda < m || !jpvt || !work1) {
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
  const bool done = cuda::run_guarded(error, [&] {
    if (cuda::device_accessible(a)) return factor_in_place(m, n, a, lda, tau, &pivoting, error);
    return factor_streamed_tsqr(m, n, a, lda, tau, &pivoting, error);
  });
  if (done) pivoting.give(jpvt, work1);
  return done;
}

template cudaError_t enqueue_tsqr<float>(int, int, float*, long long, float*, cudaStream_t);
template cudaError_t enqueue_tsqr<double>(int, int, double*, long long, double*, cudaStream_t);
template cudaError_t enqueue_qr<float>(int, int, float*, long long, float*, cudaStream_t);
template cudaError_t enqueue_qr<double>(int, int, double*, long long, double*, cudaStream_t);
template bool factor_gpu<float>(int, int, float*, int, float*, std::string&);
template bool factor_gpu<double>(int, int, double*, int, double*, std::string&);
template bool factor_pivoted_gpu<float>(int, int, float*, int, int*, float*, const Lapack<float>&,
                                        float*, std::string&);
template bool factor_pivoted_gpu<double>(int, int, double*, int, int*, double*,
                                         const Lapack<double>&, double*, std::string&);

}  // namespace switchyard::tsqr
