#pragma once

// Layer 2 of the GPU QR (docs/qr-code.md): where a call's matrices are while the device works
// on them. Each is decided once, at the start of the call: a matrix in device or managed
// memory is worked on where it lies; one in host memory (pageable or not) has a device copy,
// which its rows stream into through the pinned staging slots and, once every kernel of the
// call has succeeded, back from. Work on a chunk of rows can start as the chunk arrives, so
// that it overlaps the copies of the chunks after it. Nothing is written back to the caller
// before the work has succeeded, so a failure leaves host data as it was and the call can run
// in the fallback.

#include <cuda_runtime_api.h>

#include <optional>
#include <string>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "device/row_streaming.hpp"

namespace switchyard::qr::gpu {

// One call's stream on a device (the call's, unless named) and, once a matrix in host memory
// needs them, its staging slots.
class Residence {
 public:
  explicit Residence(int ordinal = cuda::device_ordinal()) : ordinal_(ordinal), stream_(ordinal) {}
  cudaError_t status() const { return stream_.status(); }
  cudaStream_t stream() const { return stream_.get(); }
  cuda::Staging& staging() {
    if (!staging_) staging_.emplace(ordinal_);
    return *staging_;
  }

 private:
  int ordinal_;
  cuda::Stream stream_;
  std::optional<cuda::Staging> staging_;
};

// One m x n matrix of the call, where the device works on it.
template <class T>
class Operand {
 public:
  Operand(Residence& residence, T* caller, long long ld, long long m, int n)
      : residence_(residence), caller_(caller), caller_ld_(ld), m_(m), n_(n) {
    if (cuda::device_accessible(caller)) return;
    copy_.emplace(sizeof(T) * std::size_t(m) * std::size_t(n), residence.stream());
    status_ = copy_->status();
  }
  cudaError_t status() const { return status_; }
  bool in_place() const { return !copy_; }
  T* get() const { return copy_ ? static_cast<T*>(copy_->get()) : caller_; }
  long long ld() const { return copy_ ? m_ : caller_ld_; }

  // The caller's first `columns` columns onto the device. In place, `pass(0, m)` is enqueued
  // at once; a copy is sent chunk by chunk, a multiple of `row_multiple` rows each, with
  // `pass(first, rows)` enqueued after each chunk's transfer. Returns the first error.
  template <class Pass>
  cudaError_t arrive(int columns, long long row_multiple, Pass&& pass) {
    if (!copy_) return pass(0, m_);
    return cuda::upload_rows(caller_, caller_ld_, m_, columns, get(), residence_.staging(),
                             cuda::row_chunks(m_, sizeof(T) * columns, row_multiple),
                             residence_.stream(), pass);
  }
  // All of it, with nothing to run on the way.
  cudaError_t arrive() {
    return arrive(n_, 1, [](long long, long long) { return cudaSuccess; });
  }

  // The copy back over the caller's matrix, once the call's work has succeeded; nothing to do
  // in place. A failure here ends the process (cuda::write_back_rows).
  void write_back() const {
    if (!copy_) return;
    cuda::write_back_rows(get(), m_, n_, caller_, caller_ld_, residence_.staging(),
                          cuda::row_chunks(m_, sizeof(T) * n_, 1), residence_.stream());
  }

 private:
  Residence& residence_;
  T* caller_;
  long long caller_ld_, m_;
  int n_;
  std::optional<cuda::DeviceBuffer> copy_;
  cudaError_t status_ = cudaSuccess;
};

// Ends a call whose work is enqueued on `residence`'s stream (`enqueued`: the status of
// enqueueing it). When the work succeeded, `give()` hands the caller its results (the operands'
// write_back()) and true is returned; otherwise nothing was written and `error` says why.
template <class Give>
bool finish_call(const Residence& residence, cudaError_t enqueued, const char* what,
                 std::string& error, Give&& give) {
  const cudaError_t status = cuda::wait(residence.stream(), enqueued);
  if (status != cudaSuccess) return cuda::fail(error, what, status);
  give();
  return true;
}

// Enqueues the copy of n device elements (tau) to `host`, sized to them.
template <class T>
cudaError_t to_host(const T* device, int n, std::vector<T>& host, cudaStream_t stream) {
  host.resize(std::size_t(n));
  return cudaMemcpyAsync(host.data(), device, sizeof(T) * std::size_t(n), cudaMemcpyDeviceToHost,
                         stream);
}

}  // namespace switchyard::qr::gpu
