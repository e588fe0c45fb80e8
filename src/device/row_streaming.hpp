// Moving a column-major matrix in host memory to and from the device through the pinned
// staging slots, chunk by chunk, so that the transfers overlap the packing on the host and the
// work enqueued on each chunk on the device. Pageable memory can not be copied asynchronously;
// helper threads (host_copies.hpp) copy chunks between it and the pinned slots while earlier
// chunks are in flight, each chunk in parts over several threads, so that the first chunk goes
// up and the last one is back soon. On the device the matrix is contiguous, with leading
// dimension m.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>

#include "device/cuda_runtime.hpp"
#include "device/host_copies.hpp"

namespace switchyard::cuda {

// Chunks of whole rows, each filling at most one staging slot.
struct RowChunks {
  long long rows_per_chunk;
  int count;
  long long first(int c) const { return rows_per_chunk * c; }
  long long rows(int c, long long m) const { return std::min(rows_per_chunk, m - first(c)); }
};

// Chunks of rows `row_bytes` wide, a multiple of `row_multiple` rows each (so that work on a
// chunk covers whole blocks of the kernels that follow).
inline RowChunks row_chunks(long long m, std::size_t row_bytes, long long row_multiple) {
  const long long slot_rows = (long long)(Staging::kSlotBytes / row_bytes);
  const long long rows = std::max<long long>(1, slot_rows / row_multiple) * row_multiple;
  return {rows, int((m + rows - 1) / rows)};
}

namespace detail {

// Rows [first, first + rows) of a column-major matrix, n columns, to and from a buffer with
// leading dimension ldb.
template <class T>
void pack_rows(const T* a, long long lda, long long first, long long rows, int n, T* buffer,
               long long ldb) {
  for (int k = 0; k < n; ++k) std::memcpy(buffer + ldb * k, a + first + lda * k, sizeof(T) * rows);
}
template <class T>
void unpack_rows(const T* buffer, long long ldb, long long first, long long rows, int n, T* a,
                 long long lda) {
  for (int k = 0; k < n; ++k) std::memcpy(a + first + lda * k, buffer + ldb * k, sizeof(T) * rows);
}

}  // namespace detail

// Sends the m x n host matrix a to `device`, through as many slots as it has chunks, up to
// Staging::kSlots. Helper threads pack chunks into the slots up to all but one ahead; after
// each chunk's transfer is enqueued, `after(first, rows)` may enqueue work on those rows and
// returns its launch status. Returns the first error.
template <class T, class After>
cudaError_t upload_rows(const T* a, long long lda, long long m, int n, T* device,
                        Staging& staging, const RowChunks& chunks, cudaStream_t stream,
                        After&& after) {
  if (const cudaError_t pinned = staging.pin(); pinned != cudaSuccess) {
    return pinned;
  }
  const int slots = staging.count();
  const auto slot = [&](int c) { return static_cast<T*>(staging.slot(c % slots)); };
  const int parts = device::copy_parts(std::size_t(chunks.rows_per_chunk) * n * sizeof(T));
  const std::unique_ptr<device::CopyGroup[]> packed(new device::CopyGroup[chunks.count]);
  const auto pack = [&](int c) {
    // Each part of the chunk's rows once whatever the slot held last (chunk c - slots, or a
    // chunk of an earlier transfer through the same staging) has left it: once its event
    // completes; an event never recorded is complete.
    T* const buffer = slot(c);
    const cudaEvent_t left = staging.event(c % slots);
    const long long rows = chunks.rows(c, m), first = chunks.first(c);
    device::run_in_parts(packed[c], device::CopyWay::into_staging, std::size_t(rows), parts,
                         [=](std::size_t begin, std::size_t end) {
                           cudaEventSynchronize(left);
                           detail::pack_rows(a, lda, first + (long long)begin,
                                             (long long)(end - begin), n, buffer + begin, rows);
                         });
  };
  for (int c = 0; c < std::min(chunks.count, slots - 1); ++c) pack(c);
  cudaError_t status = cudaSuccess;
  for (int c = 0; c < chunks.count; ++c) {
    if (c + slots - 1 < chunks.count) pack(c + slots - 1);
    packed[c].wait();
    if (status != cudaSuccess) continue;
    const long long first = chunks.first(c), rows = chunks.rows(c, m);
    status = cudaMemcpy2DAsync(device + first, sizeof(T) * m, slot(c), sizeof(T) * rows,
                               sizeof(T) * rows, n, cudaMemcpyHostToDevice, stream);
    if (status == cudaSuccess) status = cudaEventRecord(staging.event(c % slots), stream);
    if (status == cudaSuccess) status = after(first, rows);
  }
  return status;
}

// The reverse: each chunk comes back through a slot, and helper threads unpack it into a
// while later chunks are in flight. Returns once every chunk is in a, with the first error.
template <class T>
cudaError_t download_rows(const T* device, long long m, int n, T* a, long long lda,
                          Staging& staging, const RowChunks& chunks, cudaStream_t stream) {
  if (const cudaError_t pinned = staging.pin(); pinned != cudaSuccess) {
    return pinned;
  }
  const int slots = staging.count();
  const auto slot = [&](int c) { return static_cast<T*>(staging.slot(c % slots)); };
  const int parts = device::copy_parts(std::size_t(chunks.rows_per_chunk) * n * sizeof(T));
  const std::unique_ptr<device::CopyGroup[]> unpacked(new device::CopyGroup[chunks.count]);
  cudaError_t status = cudaSuccess;
  for (int c = 0; c < chunks.count; ++c) {
    if (c >= slots) unpacked[c - slots].wait();
    const long long first = chunks.first(c), rows = chunks.rows(c, m);
    status = cudaMemcpy2DAsync(slot(c), sizeof(T) * rows, device + first, sizeof(T) * m,
                               sizeof(T) * rows, n, cudaMemcpyDeviceToHost, stream);
    if (status == cudaSuccess) status = cudaEventRecord(staging.event(c % slots), stream);
    if (status != cudaSuccess) break;
    // Each part of the chunk's rows once the chunk has arrived in the slot.
    const T* const buffer = slot(c);
    const cudaEvent_t arrived = staging.event(c % slots);
    device::run_in_parts(unpacked[c], device::CopyWay::out_of_staging, std::size_t(rows), parts,
                         [=](std::size_t begin, std::size_t end) {
                           cudaEventSynchronize(arrived);
                           detail::unpack_rows(buffer + begin, rows, first + (long long)begin,
                                               (long long)(end - begin), n, a, lda);
                         });
  }
  for (int c = 0; c < chunks.count; ++c) unpacked[c].wait();
  return wait(stream, status);
}

// download_rows of a finished result over the caller's data. Nothing can be undone once a is
// partly overwritten, so a failure here ends the process with a message rather than return a
// half-written answer.
template <class T>
void write_back_rows(const T* device, long long m, int n, T* a, long long lda,
                     Staging& staging, const RowChunks& chunks, cudaStream_t stream) {
  cudaError_t status;
  try {
    status = download_rows(device, m, n, a, lda, staging, chunks, stream);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "switchyard: fatal: %s while returning a result\n", e.what());
    std::abort();
  }
  if (status != cudaSuccess) {
    std::fprintf(stderr, "switchyard: fatal: the GPU failed while returning a result: %s\n",
                 describe(status).c_str());
    std::abort();
  }
}

}  // namespace switchyard::cuda
