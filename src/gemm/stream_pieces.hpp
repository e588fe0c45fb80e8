// The pieces a host matrix travels in between pageable memory and the
// device: rectangles of at most one pinned slot each, copied into or out of
// a slot on the host and moved between the slot and a device buffer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "device/opencl_runtime.hpp"

namespace switchyard::gemm {

// A rectangle of a column-major host matrix and where it lies in a device
// matrix (column-major, leading dimension ld, in elements).
template <class T>
struct Piece {
  T* host;  // the rectangle's first element
  long host_ld;
  long rows, cols;
  cl_mem mem;
  long ld, row, col;
  int feed = -1;  // its number among the pieces a feed copies for every device (shared_feed.hpp)
};

// Appends the pieces of the rows x cols rectangle at `host` (leading
// dimension host_ld) whose element (0, 0) lies at (row, col) of the device
// matrix: whole columns, as many as `elems` elements hold, or, where one
// column is longer than that, parts of one column.
template <class T>
void split(T* host, long host_ld, long rows, long cols, cl_mem mem, long ld, long row, long col,
           std::size_t elems, std::vector<Piece<T>>& out) {
  if (rows <= 0 || cols <= 0) return;
  if (std::size_t(rows) <= elems) {
    const long per = long(elems / std::size_t(rows));
    for (long j = 0; j < cols; j += per) {
      out.push_back({host + j * host_ld, host_ld, rows, std::min(per, cols - j), mem, ld, row,
                     col + j});
    }
    return;
  }
  for (long j = 0; j < cols; ++j) {
    for (long i = 0; i < rows; i += long(elems)) {
      out.push_back({host + i + j * host_ld, host_ld, std::min(long(elems), rows - i), 1, mem, ld,
                     row + i, col + j});
    }
  }
}

// Elements [begin, end) of the piece's dense copy in a slot, from its host rectangle: all of
// of them, or a part of them for each of several threads filling one slot.
template <class T>
void pack_part(const Piece<T>& p, T* slot, std::size_t begin, std::size_t end) {
  if (p.rows == p.host_ld || p.cols == 1) {
    std::memcpy(slot + begin, p.host + begin, sizeof(T) * (end - begin));
    return;
  }
  const std::size_t rows = std::size_t(p.rows);
  for (std::size_t e = begin; e < end;) {
    const std::size_t i = e % rows, j = e / rows, n = std::min(end - e, rows - i);
    std::memcpy(slot + e, p.host + i + j * std::size_t(p.host_ld), n * sizeof(T));
    e += n;
  }
}

// Elements [begin, end) of the piece's dense copy in a slot, back into its host rectangle.
template <class T>
void unpack_part(const T* slot, const Piece<T>& p, std::size_t begin, std::size_t end) {
  if (p.rows == p.host_ld || p.cols == 1) {
    std::memcpy(p.host + begin, slot + begin, sizeof(T) * (end - begin));
    return;
  }
  const std::size_t rows = std::size_t(p.rows);
  for (std::size_t e = begin; e < end;) {
    const std::size_t i = e % rows, j = e / rows, n = std::min(end - e, rows - i);
    std::memcpy(p.host + i + j * std::size_t(p.host_ld), slot + e, n * sizeof(T));
    e += n;
  }
}

// The piece's elements: those of its dense copy in a slot.
template <class T>
std::size_t elements(const Piece<T>& p) {
  return std::size_t(p.rows) * std::size_t(p.cols);
}

// Enqueues the move of a piece between `slot` and the device on `queue`
// (no blocking), after the events in `wait`; its event in `done`.
template <class T>
cl_int enqueue_move(const opencl::Api& cl, cl_command_queue queue, bool to_device,
                    const Piece<T>& p, void* slot, cl_uint wait_count, const cl_event* wait,
                    cl_event* done) {
  if (p.rows == p.ld || p.cols == 1) {  // one contiguous range of the buffer
    const std::size_t offset = sizeof(T) * std::size_t(p.row + p.col * p.ld);
    const std::size_t bytes = sizeof(T) * std::size_t(p.rows) * std::size_t(p.cols);
    return to_device ? cl.EnqueueWriteBuffer(queue, p.mem, CL_FALSE, offset, bytes, slot,
                                             wait_count, wait, done)
                     : cl.EnqueueReadBuffer(queue, p.mem, CL_FALSE, offset, bytes, slot,
                                            wait_count, wait, done);
  }
  const std::size_t device_origin[3] = {sizeof(T) * std::size_t(p.row), std::size_t(p.col), 0};
  const std::size_t slot_origin[3] = {0, 0, 0};
  const std::size_t region[3] = {sizeof(T) * std::size_t(p.rows), std::size_t(p.cols), 1};
  const std::size_t device_pitch = sizeof(T) * std::size_t(p.ld);
  const std::size_t slot_pitch = sizeof(T) * std::size_t(p.rows);
  return to_device
             ? cl.EnqueueWriteBufferRect(queue, p.mem, CL_FALSE, device_origin, slot_origin,
                                         region, device_pitch, 0, slot_pitch, 0, slot,
                                         wait_count, wait, done)
             : cl.EnqueueReadBufferRect(queue, p.mem, CL_FALSE, device_origin, slot_origin,
                                        region, device_pitch, 0, slot_pitch, 0, slot, wait_count,
                                        wait, done);
}

}  // namespace switchyard::gemm
