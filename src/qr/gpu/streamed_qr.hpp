#pragma once

// Layer 2 of the GPU QR (docs/qr-code.md): xGEQRF of a host matrix wider than one TSQR, its
// panels streamed through the device. The panels go up one after another on a stream of their
// own; each, once up, is brought up to date by the reflectors before it and factored
// (enqueue_panel in blocked_qr.hpp) on the call's stream; and it goes back to the caller on a
// third stream, through staging slots of its own, while the panels after it go up and are
// worked on. So the copies up and down overlap each other and the work, where all of A used
// to go up before the first panel and come back after the last (docs/tsqr-performance.md).
//
// A panel goes back only once its work has succeeded. When a later panel fails, the columns
// already returned are final, with their tau, and the fallback finishes the rest: it applies
// their reflectors to the columns after them (xORMQR) and factors what is left (xGEQRF), which
// is a correct xGEQRF of A. When the first panel fails nothing was written, and the call runs
// in the fallback as after any failed GPU attempt. A failure while a finished panel comes back
// ends the process, as for any result being returned (cuda::write_back_rows).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace switchyard::qr::gpu {

// The smallest host A (bytes) that streams by panels. The returns overlap the uploads only
// across panels, which saves little on a small matrix, while the first such call of a process
// also pins a second set of staging slots (64 MiB); smaller calls keep the one set and send A
// up whole. 256 MiB is under 5 ms each way at the link's 55 GB/s.
constexpr std::size_t kStreamedPanelsMinBytes = std::size_t(256) << 20;

// For tests only: the panel whose work fails to enqueue, with `code`, as a failed launch would.
// The library passes none.
struct PanelFault {
  int panel;
  cudaError_t code = cudaErrorLaunchOutOfResources;
};

// xGEQRF of host m x n A, m >= n, kSingleTsqrColumns < n <= kMaxColumns, lda >= m, tau in
// host or device memory. True when A and tau hold the factorization (after a failure part-way,
// finished by the fallback, with a line on stderr); false, with `error`, when nothing was
// written.
template <class T>
bool geqrf_streamed(int m, int n, T* a, int lda, T* tau, std::string& error,
                    const PanelFault* fault = nullptr);

}  // namespace switchyard::qr::gpu
