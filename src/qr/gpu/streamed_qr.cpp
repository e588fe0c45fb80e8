#include "qr/gpu/streamed_qr.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "device/row_streaming.hpp"
#include "fallback.hpp"
#include "qr/gpu/blocked_qr.hpp"
#include "qr/gpu/residence.hpp"
#include "tsqr/lapack_table.hpp"

namespace switchyard::qr::gpu {
namespace {

// One event per panel, destroyed with the call.
class PanelEvents {
 public:
  explicit PanelEvents(int count) : events_(std::size_t(count), nullptr) {
    for (cudaEvent_t& e : events_) {
      if (status_ == cudaSuccess) status_ = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    }
  }
  ~PanelEvents() {
    for (cudaEvent_t e : events_) {
      if (e) cudaEventDestroy(e);
    }
  }
  PanelEvents(const PanelEvents&) = delete;
  PanelEvents& operator=(const PanelEvents&) = delete;
  cudaError_t status() const { return status_; }
  cudaEvent_t operator[](int p) const { return events_[std::size_t(p)]; }

 private:
  std::vector<cudaEvent_t> events_;
  cudaError_t status_ = cudaSuccess;
};

// What the thread that sends the panels up tells the one that returns them: how many panels
// have their work enqueued, and when no more will come.
class Handoff {
 public:
  void enqueued_one() {
    const std::lock_guard<std::mutex> hold(mutex_);
    ++enqueued_;
    changed_.notify_one();
  }
  void close() {
    const std::lock_guard<std::mutex> hold(mutex_);
    closed_ = true;
    changed_.notify_one();
  }
  // Waits until panel p's work is enqueued (true) or none more will be (false).
  bool wait_for(int p) {
    std::unique_lock<std::mutex> hold(mutex_);
    changed_.wait(hold, [&] { return enqueued_ > p || closed_; });
    return enqueued_ > p;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int enqueued_ = 0;
  bool closed_ = false;
};

// Closes a handoff when the sending thread leaves, whichever way it leaves.
struct CloseOnExit {
  Handoff& handoff;
  ~CloseOnExit() { handoff.close(); }
};

// Waits, whichever way the call leaves, for the uploads still in flight after a failure: they
// write into the copy of A, which the call's stream frees.
struct SynchronizeOnExit {
  cudaStream_t stream;
  ~SynchronizeOnExit() { cudaStreamSynchronize(stream); }
};

// tau of a returned panel to host memory. Like its columns, it is part of a result being
// returned, and a failure here ends the process (cuda::write_back_rows).
template <class T>
void write_back_tau(const T* device, int count, T* host, cudaStream_t stream) {
  cudaError_t status =
      cudaMemcpyAsync(host, device, sizeof(T) * std::size_t(count), cudaMemcpyDeviceToHost, stream);
  if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
  if (status != cudaSuccess) {
    std::fprintf(stderr, "switchyard: fatal: the GPU failed while returning a result: %s\n",
                 cuda::describe(status).c_str());
    std::abort();
  }
}

// The columns from `done` on, the caller's, once columns [0, done) hold their final V and R and
// tau[0, done) theirs: the fallback applies those reflectors to them and factors what is left,
// as xGEQRF's own blocked loop would go on from there.
template <class T>
void finish_in_fallback(int m, int n, int done, T* a, int lda, T* tau) {
  OrmqrFn<T>* ormqr;
  if constexpr (sizeof(T) == sizeof(float)) {
    ormqr = fallback().sormqr;
  } else {
    ormqr = fallback().dormqr;
  }
  GeqrfFn<T>* const geqrf = tsqr::fallback_lapack<T>().geqrf;
  const int rest = n - done, rows = m - done, query = -1;
  T* const c = a + std::size_t(done) * std::size_t(lda);
  T* const corner = c + done;
  T ormqr_size{}, geqrf_size{};
  int info = 0;
  ormqr("L", "T", &m, &rest, &done, a, &lda, tau, c, &lda, &ormqr_size, &query, &info, 1, 1);
  geqrf(&rows, &rest, corner, &lda, tau + done, &geqrf_size, &query, &info);
  const int lwork =
      std::max(tsqr::lwork_from_query(ormqr_size), tsqr::lwork_from_query(geqrf_size));
  std::vector<T> work(static_cast<std::size_t>(lwork));
  ormqr("L", "T", &m, &rest, &done, a, &lda, tau, c, &lda, work.data(), &lwork, &info, 1, 1);
  geqrf(&rows, &rest, corner, &lda, tau + done, work.data(), &lwork, &info);
}

}  // namespace

template <class T>
bool geqrf_streamed(int m, int n, T* a, int lda, T* tau, std::string& error,
                    const PanelFault* fault) {
  const std::vector<Panel> panels = column_panels<T>(n);
  const int count = int(panels.size());
  int returned = 0;  // panels back in the caller's A, with their tau
  cuda::run_guarded(error, [&] {
    const int ordinal = cuda::device_ordinal();
    Residence where(ordinal);
    cuda::Stream up(ordinal), down(ordinal);
    for (const cudaError_t s : {where.status(), up.status(), down.status()}) {
      if (s != cudaSuccess) return cuda::fail(error, "no stream", s);
    }
    const cudaStream_t work = where.stream();
    Operand<T> on_a(where, a, lda, m, n);
    if (on_a.status() != cudaSuccess) return cuda::fail(error, "no copy of A", on_a.status());
    const SynchronizeOnExit uploads_done{up.get()};
    cuda::DeviceBuffer device_tau(sizeof(T) * std::size_t(n), work);
    if (device_tau.status() != cudaSuccess) {
      return cuda::fail(error, "no device workspace", device_tau.status());
    }
    T* const copy = on_a.get();
    T* const tau_on_device = static_cast<T*>(device_tau.get());
    PanelEvents allocated(1), arrived(count), factored(count);
    cudaError_t status = allocated.status();
    if (status == cudaSuccess) status = arrived.status();
    if (status == cudaSuccess) status = factored.status();
    // The copy of A is allocated in the order of the call's stream; the uploads follow it.
    if (status == cudaSuccess) status = cudaEventRecord(allocated[0], work);
    if (status == cudaSuccess) status = cudaStreamWaitEvent(up.get(), allocated[0], 0);
    if (status != cudaSuccess) return cuda::fail(error, "no events", status);

    // The returning thread: each panel once its work has succeeded, through staging of its own.
    Handoff handoff;
    cudaError_t failed = cudaSuccess;  // the work that stopped the returns, if any
    cuda::Staging return_staging(ordinal);
    std::future<void> returning = std::async(std::launch::async, [&] {
      failed = cuda::use_device(ordinal);
      if (failed != cudaSuccess) return;
      // Pinned while the first panel goes up: a process's first call this large has no second
      // set yet, and faulting in its 64 MiB took 14 ms on the H200's host, which the first
      // write-back waited for. Failing here, before anything is written back, the call still
      // runs whole in the fallback; a write-back's failure ends the process.
      failed = return_staging.pin();
      if (failed != cudaSuccess) return;
      for (int p = 0; p < count; ++p) {
        if (!handoff.wait_for(p)) return;
        failed = cudaEventSynchronize(factored[p]);
        if (failed != cudaSuccess) return;  // the panel stays as the caller gave it
        const int first = panels[p].first, columns = panels[p].width;
        cuda::write_back_rows(copy + std::size_t(first) * std::size_t(m), m, columns,
                              a + std::size_t(first) * std::size_t(lda), lda, return_staging,
                              cuda::row_chunks(m, sizeof(T) * columns, 1), down.get());
        write_back_tau(tau_on_device + first, columns, tau + first, down.get());
        returned = p + 1;
      }
    });
    {
      const CloseOnExit close{handoff};
      for (int p = 0; p < count && status == cudaSuccess; ++p) {
        const int first = panels[p].first, columns = panels[p].width;
        status = cuda::upload_rows(a + std::size_t(first) * std::size_t(lda), lda, m, columns,
                                   copy + std::size_t(first) * std::size_t(m), where.staging(),
                                   cuda::row_chunks(m, sizeof(T) * columns, 1), up.get(),
                                   [](long long, long long) { return cudaSuccess; });
        if (status == cudaSuccess) status = cudaEventRecord(arrived[p], up.get());
        if (status == cudaSuccess) status = cudaStreamWaitEvent(work, arrived[p], 0);
        if (status == cudaSuccess) {
          status = fault && fault->panel == p
                       ? fault->code
                       : enqueue_panel(m, n, first, columns, copy, m, tau_on_device, work);
        }
        if (status == cudaSuccess) status = cudaEventRecord(factored[p], work);
        if (status == cudaSuccess) handoff.enqueued_one();
      }
    }
    returning.get();
    if (status == cudaSuccess) status = failed;
    if (status != cudaSuccess) return cuda::fail(error, "QR on host data", status);
    return true;
  });
  if (returned == count) return true;
  if (returned == 0) return false;
  std::fprintf(stderr,
               "switchyard: %cgeqrf on the GPU failed after %d of %d panels (%s); the fallback "
               "finishes the last %d columns\n",
               sizeof(T) == sizeof(float) ? 's' : 'd', returned, count, error.c_str(),
               n - panels[returned].first);
  finish_in_fallback(m, n, panels[returned].first, a, lda, tau);
  return true;
}

template bool geqrf_streamed<float>(int, int, float*, int, float*, std::string&, const PanelFault*);
template bool geqrf_streamed<double>(int, int, double*, int, double*, std::string&,
                                     const PanelFault*);

}  // namespace switchyard::qr::gpu
