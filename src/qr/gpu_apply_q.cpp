#include "qr/gpu_apply_q.hpp"

#include <algorithm>
#include <optional>

#include "device/cuda_runtime.hpp"
#include "device/row_streaming.hpp"

namespace switchyard::qr {
namespace {

using kernels::kWyBlockRows;
using kernels::Reflectors;

int row_blocks(long long m) { return int((m + kWyBlockRows - 1) / kWyBlockRows); }

// The device memory of one call: the partial sums of the first pass, the small matrices,
// a copy of tau, and copies of V and C where they live in host memory.
template <class T>
struct Workspace {
  T* partials;
  T* gram;     // V^T V, k x k
  T* product;  // V^T C, k x nc
  T* w;        // W, k x (n or nc)
  T* tau;
  T* v;        // m x v_columns copy of V (and of Q, for xORGQR), or null
  T* c;        // m x nc copy of C, or null
};

struct Sizes {
  long long m;
  int k, w;          // reflectors; columns of W
  int v_columns;     // columns of the copy of V, 0 for none
  int c_columns;     // columns of the copy of C, 0 for none
};

// Lays the workspace out from `base` (null: only measures it) and returns its size in bytes.
template <class T>
std::size_t lay_out(const Sizes& s, Workspace<T>& ws, char* base) {
  std::size_t used = 0;
  const auto take = [&](long long count) {
    T* at = base ? reinterpret_cast<T*>(base + used) : nullptr;
    used += (std::size_t(count) * sizeof(T) + 255) / 256 * 256;
    return at;
  };
  ws.partials = take((long long)row_blocks(s.m) * s.k * std::max(s.k, s.w));
  ws.gram = take((long long)s.k * s.k);
  ws.product = take((long long)s.k * s.w);
  ws.w = take((long long)s.k * s.w);
  ws.tau = take(s.k);
  ws.v = s.v_columns ? take(s.m * s.v_columns) : nullptr;
  ws.c = s.c_columns ? take(s.m * s.c_columns) : nullptr;
  return used;
}

// One call's stream (its own, or the caller's), workspace and (for host data) staging slots.
template <class T>
class Job {
 public:
  Job() : own_stream_(std::in_place), stream_(own_stream_->get()) {}
  explicit Job(cudaStream_t stream) : stream_(stream) {}

  // Lays the workspace out, ordered on the stream.
  cudaError_t allocate(const Sizes& sizes) {
    buffer_.emplace(lay_out<T>(sizes, ws_, nullptr), stream_);
    if (buffer_->status() != cudaSuccess) return buffer_->status();
    lay_out<T>(sizes, ws_, static_cast<char*>(buffer_->get()));
    return cudaSuccess;
  }

  bool start(const Sizes& sizes, bool needs_staging, std::string& error) {
    const cudaError_t stream_status = own_stream_ ? own_stream_->status() : cudaSuccess;
    if (stream_status != cudaSuccess) {
      return cuda::fail(error, "no stream", stream_status);
    }
    const cudaError_t allocated = allocate(sizes);
    if (allocated != cudaSuccess) return cuda::fail(error, "no device workspace", allocated);
    if (needs_staging) staging_.emplace();
    return true;
  }
  const Workspace<T>& ws() const { return ws_; }
  cudaStream_t stream() const { return stream_; }

  // `pass(first, rows)` over all m rows of the matrix x (m x n, ldx): at once where x is on
  // the device, else chunk by chunk as x streams to `copy`.
  template <class Pass>
  cudaError_t over_rows(const T* x, long long ldx, long long m, int n, T* copy, Pass&& pass) {
    if (!copy) return pass(0, m);
    return cuda::upload_rows(x, ldx, m, n, copy, *staging_,
                             cuda::row_chunks(m, sizeof(T) * n, kWyBlockRows), stream(), pass);
  }

  // Waits for the device; true when everything enqueued succeeded.
  bool finish(cudaError_t status, std::string& error) {
    status = cuda::wait(stream(), status);
    return status == cudaSuccess || cuda::fail(error, "the GPU failed", status);
  }

  // Sends the m x n result in `copy` back to the caller's x (a failure ends the process).
  void write_back(const T* copy, long long m, int n, T* x, long long ldx) {
    cuda::write_back_rows(copy, m, n, x, ldx, *staging_, cuda::row_chunks(m, sizeof(T) * n, 1),
                          stream());
  }

 private:
  std::optional<cuda::Stream> own_stream_;
  cudaStream_t stream_;
  Workspace<T> ws_{};
  std::optional<cuda::DeviceBuffer> buffer_;
  std::optional<cuda::Staging> staging_;
};

// G = V^T V into ws.gram, V streaming from the caller's a where it is in host memory.
template <class T>
cudaError_t gram_pass(Job<T>& job, const Reflectors<T>& v, long long m, const T* a,
                      long long lda) {
  const Workspace<T>& ws = job.ws();
  const auto partial_gram = [&](long long first, long long rows) {
    return kernels::wy_tall_product(v, false, m, static_cast<const T*>(nullptr), 0, v.k, first,
                                    rows, ws.partials, job.stream());
  };
  cudaError_t status = job.over_rows(a, lda, m, v.k, ws.v, partial_gram);
  if (status != cudaSuccess) return status;
  return kernels::wy_sum_partials(ws.partials, row_blocks(m), v.k * v.k, ws.gram, job.stream());
}

// tau (k values, anywhere) into the workspace.
template <class T>
cudaError_t enqueue_tau(Job<T>& job, const T* tau, int k) {
  return cudaMemcpyAsync(job.ws().tau, tau, sizeof(T) * k, cudaMemcpyDefault, job.stream());
}

// Enqueues what every use of the reflectors needs first: tau in the workspace, and
// G = V^T V (gram_pass).
template <class T>
cudaError_t enqueue_gram(Job<T>& job, const Reflectors<T>& v, long long m, const T* a,
                         long long lda, const T* tau) {
  const cudaError_t status = enqueue_tau(job, tau, v.k);
  return status == cudaSuccess ? gram_pass(job, v, m, a, lda) : status;
}

// Enqueues xORGQR on the job's stream, over a where the job has no copy of it, else over the
// copy as a streams into it.
template <class T>
cudaError_t enqueue_form_q(Job<T>& job, long long m, int n, int k, T* a, long long lda,
                           const T* tau) {
  const Workspace<T>& ws = job.ws();
  T* q = ws.v ? ws.v : a;
  const long long ldq = ws.v ? m : lda;
  const Reflectors<T> v{q, ldq, k};
  cudaError_t status = enqueue_gram(job, v, m, a, lda, tau);
  if (status == cudaSuccess) {
    status = kernels::wy_form_w(v, ws.tau, ws.gram, static_cast<const T*>(nullptr), n, false,
                                ws.w, job.stream());
  }
  if (status == cudaSuccess) {
    status = kernels::wy_apply(v, m, ws.w, n, 0, m, true, q, ldq, job.stream());
  }
  return status;
}

template <class T>
bool form_q(int m, int n, int k, T* a, int lda, const T* tau, std::string& error) {
  const bool in_place = cuda::device_accessible(a);
  Job<T> job;
  if (!job.start({m, k, n, in_place ? 0 : n, 0}, !in_place, error)) return false;
  const cudaError_t status = enqueue_form_q(job, m, n, k, a, lda, tau);
  if (!job.finish(status, error)) return false;
  if (!in_place) job.write_back(job.ws().v, m, n, a, lda);
  return true;
}

// Enqueues op(Q) C for nc <= kGpuMaxColumns columns of C on the job's stream, once
// enqueue_gram has run for V; or, `with_gram` (k + nc <= kGpuMaxColumns, tau in the workspace,
// V and C on the device), forming V^T V in the same pass over V as V^T C, beside it in the
// product. C is the caller's where the job has no copy of it, else it streams into the copy
// first.
template <class T>
cudaError_t enqueue_apply_q(Job<T>& job, bool transpose, const Reflectors<T>& v, long long m,
                            int nc, T* c, long long ldc, bool with_gram) {
  const Workspace<T>& ws = job.ws();
  const int k = v.k;
  T* cd = ws.c ? ws.c : c;
  const long long ldcd = ws.c ? m : ldc;
  // X = V^T C, C streaming in after V where it is in host memory.
  const auto partial_product = [&](long long first, long long rows) {
    return kernels::wy_tall_product(v, with_gram, m, static_cast<const T*>(cd), ldcd, nc, first,
                                    rows, ws.partials, job.stream());
  };
  cudaError_t status = job.over_rows(c, ldc, m, nc, ws.c, partial_product);
  const int columns = with_gram ? k + nc : nc;
  if (status == cudaSuccess) {
    status = kernels::wy_sum_partials(ws.partials, row_blocks(m), k * columns, ws.product,
                                      job.stream());
  }
  const T* gram = with_gram ? ws.product : ws.gram;
  const T* product = with_gram ? ws.product + k * k : ws.product;
  if (status == cudaSuccess) {
    status = kernels::wy_form_w(v, ws.tau, gram, product, nc, transpose, ws.w, job.stream());
  }
  if (status == cudaSuccess) {
    status = kernels::wy_apply(v, m, ws.w, nc, 0, m, false, cd, ldcd, job.stream());
  }
  return status;
}

template <class T>
bool apply_q(bool transpose, int m, int nc, int k, const T* a, int lda, const T* tau, T* c,
             int ldc, std::string& error) {
  const bool v_in_place = cuda::device_accessible(a), c_in_place = cuda::device_accessible(c);
  Job<T> job;
  if (!job.start({m, k, nc, v_in_place ? 0 : k, c_in_place ? 0 : nc},
                 !v_in_place || !c_in_place, error)) {
    return false;
  }
  const Reflectors<T> v{v_in_place ? a : job.ws().v, v_in_place ? lda : m, k};
  cudaError_t status = enqueue_gram(job, v, m, a, lda, tau);
  if (status == cudaSuccess) status = enqueue_apply_q(job, transpose, v, m, nc, c, ldc, false);
  if (!job.finish(status, error)) return false;
  if (!c_in_place) job.write_back(job.ws().c, m, nc, c, ldc);
  return true;
}

}  // namespace

template <class T>
bool form_q_gpu(int m, int n, int k, T* a, int lda, const T* tau, std::string& error) {
  if (k < 1 || k > n || n > kGpuMaxColumns || n > m || lda < m) {
    error = "invalid arguments";
    return false;
  }
  return cuda::run_guarded(error, [&] { return form_q(m, n, k, a, lda, tau, error); });
}

template <class T>
bool apply_q_gpu(bool transpose, int m, int nc, int k, const T* a, int lda, const T* tau, T* c,
                 int ldc, std::string& error) {
  if (k < 1 || k > kGpuMaxReflectors || k > m || nc < 1 || nc > kGpuMaxColumns || lda < m ||
      ldc < m) {
    error = "invalid arguments";
    return false;
  }
  return cuda::run_guarded(
      error, [&] { return apply_q(transpose, m, nc, k, a, lda, tau, c, ldc, error); });
}

template <class T>
cudaError_t form_q_on_device(long long m, int n, int k, T* a, long long lda, const T* tau,
                             cudaStream_t stream) {
  Job<T> job(stream);
  const cudaError_t allocated = job.allocate({m, k, n, 0, 0});
  if (allocated != cudaSuccess) return allocated;
  return enqueue_form_q(job, m, n, k, a, lda, tau);
}

template <class T>
cudaError_t apply_q_on_device(bool transpose, long long m, int nc, int k, const T* a,
                              long long lda, const T* tau, T* c, long long ldc,
                              cudaStream_t stream) {
  Job<T> job(stream);
  const Reflectors<T> v{a, lda, k};
  if (k + nc <= kGpuMaxColumns) {
    // V^T V beside V^T C: one pass over V fewer.
    cudaError_t status = job.allocate({m, k, k + nc, 0, 0});
    if (status == cudaSuccess) status = enqueue_tau(job, tau, k);
    if (status == cudaSuccess) status = enqueue_apply_q(job, transpose, v, m, nc, c, ldc, true);
    return status;
  }
  const int block = std::min(nc, kGpuMaxColumns);
  cudaError_t status = job.allocate({m, k, block, 0, 0});
  if (status == cudaSuccess) status = enqueue_gram(job, v, m, a, lda, tau);
  for (int first = 0; first < nc && status == cudaSuccess; first += block) {
    status = enqueue_apply_q(job, transpose, v, m, std::min(block, nc - first),
                             c + first * ldc, ldc, false);
  }
  return status;
}

template bool form_q_gpu<float>(int, int, int, float*, int, const float*, std::string&);
template bool form_q_gpu<double>(int, int, int, double*, int, const double*, std::string&);
template bool apply_q_gpu<float>(bool, int, int, int, const float*, int, const float*, float*, int,
                                 std::string&);
template bool apply_q_gpu<double>(bool, int, int, int, const double*, int, const double*, double*,
                                  int, std::string&);
template cudaError_t form_q_on_device<float>(long long, int, int, float*, long long, const float*,
                                             cudaStream_t);
template cudaError_t form_q_on_device<double>(long long, int, int, double*, long long,
                                              const double*, cudaStream_t);
template cudaError_t apply_q_on_device<float>(bool, long long, int, int, const float*, long long,
                                              const float*, float*, long long, cudaStream_t);
template cudaError_t apply_q_on_device<double>(bool, long long, int, int, const double*,
                                               long long, const double*, double*, long long,
                                               cudaStream_t);

}  // namespace switchyard::qr
