#pragma once

// What the QR calls split over several CUDA devices share (split_tsqr.hpp, split_apply.hpp):
// steps run on every device at once, the small matrices that go between a device and the
// host, and the trace's note of a split call.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <future>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "tsqr/cpu_leaf.hpp"
#include "tsqr/cpu_row_blocks.hpp"

namespace switchyard::qr::gpu {

// Rows per share of m rows over `devices`: an even share rounded up to a whole number of
// `multiple` rows (the blocks the device's kernels take); the last share takes what is left.
inline long long share_rows(long long m, std::size_t devices, long long multiple) {
  const long long even = (m + (long long)devices - 1) / (long long)devices;
  return (even + multiple - 1) / multiple * multiple;
}

// Before a split call works on device-accessible data in place: what the program enqueued on
// the calling device's default streams, which may still be writing it, ends first (each share's
// stream follows only its own device's).
inline cudaError_t program_work_done() {
  const cudaError_t status = cudaStreamSynchronize(cudaStreamLegacy);
  return status == cudaSuccess ? cudaStreamSynchronize(cudaStreamPerThread) : status;
}

// step(share) for every share at once, each on its own thread with its device (share.ordinal)
// current; the first error. A step's exception reaches the caller once every step has ended.
template <class Share, class Step>
cudaError_t on_every_device(std::vector<Share>& shares, Step&& step) {
  std::vector<std::future<cudaError_t>> done;
  for (Share& share : shares) {
    done.push_back(std::async(std::launch::async, [&step, &share] {
      const cudaError_t status = cuda::use_device(share.ordinal);
      return status == cudaSuccess ? step(share) : status;
    }));
  }
  cudaError_t first = cudaSuccess;
  for (std::future<cudaError_t>& d : done) d.wait();
  for (std::future<cudaError_t>& d : done) {
    const cudaError_t status = d.get();
    if (first == cudaSuccess) first = status;
  }
  return first;
}

// For steps that only enqueue work on shares whose streams exist: enqueue(share) for every share
// in turn on this thread, with its device current, then, once each share's stream has run what
// was enqueued (all of it, even after a failure), finished(share); the first error. Starting a
// thread for each device costs 0.15-0.3 ms on the GPU machines' hosts, as much as a device's
// whole step on a matrix in its memory. A copy into pageable memory returns only once the
// device has done everything before it, so it belongs in finished(), not enqueue().
template <class Share, class Enqueue, class Finished>
cudaError_t enqueued_on_every_device(std::vector<Share>& shares, Enqueue&& enqueue,
                                     Finished&& finished) {
  std::vector<cudaError_t> enqueued;
  for (Share& share : shares) {
    const cudaError_t status = cuda::use_device(share.ordinal);
    enqueued.push_back(status == cudaSuccess ? enqueue(share) : status);
  }
  cudaError_t first = cudaSuccess;
  for (std::size_t d = 0; d < shares.size(); ++d) {
    Share& share = shares[d];
    cudaError_t status = cuda::use_device(share.ordinal);
    if (status == cudaSuccess) status = cuda::wait(share.stream(), enqueued[d]);
    if (status == cudaSuccess) status = finished(share);
    if (first == cudaSuccess) first = status;
  }
  return first;
}

// Steps on every share: enqueued from this thread where the data are worked on in place
// (enqueued_on_every_device), on a thread per device where host data stream through staging
// slots (on_every_device); finished(share), when given, once the share's stream has run
// enqueue(share).
template <class Share, class Enqueue, class Finished>
cudaError_t on_every_share(bool in_place, std::vector<Share>& shares, Enqueue&& enqueue,
                           Finished&& finished) {
  if (in_place) return enqueued_on_every_device(shares, enqueue, finished);
  return on_every_device(shares, [&](Share& share) {
    const cudaError_t status = cuda::wait(share.stream(), enqueue(share));
    return status == cudaSuccess ? finished(share) : status;
  });
}
template <class Share, class Enqueue>
cudaError_t on_every_share(bool in_place, std::vector<Share>& shares, Enqueue&& enqueue) {
  return on_every_share(in_place, shares, enqueue, [](Share&) { return cudaSuccess; });
}

// The shares' device objects, released with each one's device current, however the call ends:
// each share's release() frees them in the order they need.
template <class Share>
struct Released {
  std::vector<Share>& shares;
  ~Released() {
    for (Share& s : shares) {
      cuda::use_device(s.ordinal);
      s.release();
    }
  }
};

// step(share) for each share in turn, on this thread with its device current, up to the first
// error, which is returned: for steps that only enqueue work or get device memory.
template <class Share, class Step>
cudaError_t in_turn_on_every_device(std::vector<Share>& shares, Step&& step) {
  for (Share& share : shares) {
    cudaError_t status = cuda::use_device(share.ordinal);
    if (status == cudaSuccess) status = step(share);
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

// step(share) for device 0's share, on this thread.
template <class Share, class Step>
cudaError_t on_first_device(std::vector<Share>& shares, Step&& step) {
  const cudaError_t status = cuda::use_device(shares[0].ordinal);
  return status == cudaSuccess ? step(shares[0]) : status;
}

// rows x cols column-major copies between the host (leading dimension ld_host) and the device
// (leading dimension rows), on `stream`.
template <class T>
cudaError_t put(const T* host, long long ld_host, T* device, int rows, int cols,
                cudaStream_t stream) {
  return cudaMemcpy2DAsync(device, sizeof(T) * rows, host, sizeof(T) * ld_host, sizeof(T) * rows,
                           cols, cudaMemcpyHostToDevice, stream);
}
template <class T>
cudaError_t get(const T* device, T* host, long long ld_host, int rows, int cols,
                cudaStream_t stream) {
  return cudaMemcpy2DAsync(host, sizeof(T) * ld_host, device, sizeof(T) * rows, sizeof(T) * rows,
                           cols, cudaMemcpyDeviceToHost, stream);
}

// Every share's rows x columns sums (device memory, ld rows, at sums(share)), enqueued on its
// stream, added on the host in device order, so that every run gives the same bits, and put in
// place of each share's own; the first error.
template <class T, class Share, class Sums>
cudaError_t add_over_devices(bool in_place, std::vector<Share>& shares, int rows, int columns,
                             Sums&& sums) {
  const std::size_t size = std::size_t(rows) * columns;
  std::vector<T> parts(size * shares.size()), total(size, T(0));
  const auto nothing = [](Share&) { return cudaSuccess; };
  cudaError_t status = on_every_share(in_place, shares, nothing, [&](Share& s) {
    const std::size_t d = std::size_t(&s - shares.data());
    return cuda::wait(s.stream(),
                      get(sums(s), parts.data() + d * size, rows, rows, columns, s.stream()));
  });
  if (status != cudaSuccess) return status;
  for (std::size_t d = 0; d < shares.size(); ++d) {
    for (std::size_t e = 0; e < size; ++e) total[e] += parts[d * size + e];
  }
  // From pageable memory a copy returns once it has read `total`.
  return on_every_share(in_place, shares, [&](Share& s) {
    return put(total.data(), rows, sums(s), rows, columns, s.stream());
  });
}

// c = a b for n x n column-major matrices, a with leading dimension lda, b and c n: G_d inv(U),
// the start of a share's pass down its tree.
template <class T>
void multiply_square(int n, const T* a, long long lda, const T* b, T* c) {
  std::fill(c, c + std::size_t(n) * n, T(0));
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < n; ++k) {
      const T bkj = b[k + std::size_t(j) * n];
      for (int i = 0; i < n; ++i) c[i + std::size_t(j) * n] += a[i + k * lda] * bkj;
    }
  }
}

// Step 2 of a split TSQR, on the host: the stack of the shares' R factors (stack_rows x n, ld
// stack_rows, zero below each diagonal) factored to the whole matrix's R (n x n, ld n) and
// overwritten by the stack's explicit Q, whose slice d (rows d n to d n + n - 1), G_d, turns
// share d's Q into its rows of the whole Q.
template <class T>
void factor_stack_of_r(int stack_rows, int n, T* stack, T* r) {
  const std::size_t square = std::size_t(n) * n;
  std::vector<T> t(square), stack_tau(n), identity(square, T(0));
  std::vector<T> work(std::size_t(std::max(tsqr::factor_block_work(n), tsqr::multiply_q_work(n))));
  for (int j = 0; j < n; ++j) identity[std::size_t(j) * n + j] = T(1);
  tsqr::factor_block(stack_rows, n, stack, stack_rows, stack_tau.data(), t.data(), n, work.data());
  std::fill(r, r + square, T(0));
  tsqr::copy_upper_triangle(n, stack, stack_rows, r, n);
  tsqr::multiply_q(stack_rows, n, stack, stack_rows, t.data(), n, identity.data(), n, work.data());
}

// Whether splitting a call whose host matrices hold `bytes` over `devices` devices pays: at
// least kSplitMinBytesPerDevice for each. A split call costs three rounds of one helper thread
// per device and a few more waits for the devices, some tenths of a millisecond; a 64 MiB share
// takes milliseconds to stream, of which the split saves a quarter (docs/multi-gpu.md).
constexpr std::size_t kSplitMinBytesPerDevice = std::size_t(64) << 20;
inline bool pays_to_split(std::size_t bytes, std::size_t devices) {
  return devices >= 2 && bytes / devices >= kSplitMinBytesPerDevice;
}

// "split over CUDA devices 0,1": what the trace and the report say of a call split over
// `devices` (the first call's list, which SWITCHYARD_DEVICES fixes for the process).
const char* split_note(const std::vector<int>& devices);

}  // namespace switchyard::qr::gpu
