#pragma once

// QR on the GPU of matrices wider than one TSQR: blocked Householder QR, as xGEQRF itself
// blocks it, whose panels are TSQRs (gpu_tsqr.hpp). A panel's reflectors, applied as one
// compact-WY block (src/qr/gpu_apply_q.hpp), update the columns to its right.
//
// Panels are grouped by 64 columns, the most reflectors one update takes. Inside a group a
// panel updates the rest of its group only; the group's reflectors then update all columns to
// its right at once, so the wide trailing matrix is read once per 64 columns, not per panel.
// Narrow panels pay: a TSQR's leaf factorization is bound by the latency of its chain of
// reflectors, and its time grows faster than its width (at 2^22 rows on the H200: 2.2 ms for
// 16 columns, 6.6 for 32, 28 for 64), while an update costs a few passes over memory.

#include <cuda_runtime_api.h>

namespace switchyard::tsqr {

// Columns per TSQR panel; a matrix this narrow is a single TSQR.
int panel_width();

// Factors device-accessible m x n A (m >= n) with tau on the device, in panels of `width`
// columns (width <= 64 divides 64), enqueued on `stream`. Returns the first launch or
// allocation error; the kernels' own show when the stream is synchronized.
template <class T>
cudaError_t enqueue_panel_qr(int m, int n, T* a, long long lda, T* tau, int width,
                             cudaStream_t stream);

}  // namespace switchyard::tsqr
