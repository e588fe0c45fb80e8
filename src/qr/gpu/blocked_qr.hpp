#pragma once

// Layer 1 of the GPU QR (docs/qr-code.md): the QR of a device-accessible A of up to kMaxColumns
// columns. Up to single_tsqr_columns<T>() it is one TSQR (tsqr_tree.hpp); beyond, blocked
// Householder QR as xGEQRF itself blocks it, whose panels are TSQRs and whose panels' reflectors,
// applied as one compact-WY block (wy_block.hpp), update the columns to their right.
//
// Panels are grouped by 64 columns, the most reflectors one update takes. Inside a group a
// panel updates the rest of its group only; the group's reflectors then update all columns to
// its right at once, so the wide trailing matrix is read once per 64 columns, not per panel.
// Narrow panels pay: a TSQR's leaf factorization is bound by the latency of its chain of
// reflectors, and its time grows faster than its width (at 2^22 rows on the H200, double: 1.1
// ms for 16 columns, 3.6 for 32), while an update costs a few passes over memory. Panels are
// 16 columns wide in double and 32 in single (blocked_qr.cpp says why).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <type_traits>
#include <vector>

namespace switchyard::qr::gpu {

// The widest A the GPU QR takes.
constexpr int kMaxColumns = 256;

// A wider than one TSQR goes by panels of panel_width<T>() columns (blocked_qr.cpp says why).
template <class T>
constexpr int panel_width() {
  return std::is_same_v<T, double> ? 16 : 32;
}
// The widest A that is a single TSQR: one panel.
template <class T>
constexpr int single_tsqr_columns() {
  return panel_width<T>();
}

// A's columns [first, first + width): one panel.
struct Panel {
  int first, width;
};

// A's n columns as panels of panel_width<T>(), the last what is left.
template <class T>
std::vector<Panel> column_panels(int n) {
  std::vector<Panel> panels;
  for (int j = 0; j < n; j += panel_width<T>()) {
    panels.push_back({j, std::min(panel_width<T>(), n - j)});
  }
  return panels;
}

// xGEQRF of device-accessible m x n A (m >= n >= 1, n <= kMaxColumns), tau on the device,
// enqueued on `stream` with its workspace ordered on it. Returns the first launch or
// allocation error; the kernels' own show when the stream is synchronized.
template <class T>
cudaError_t enqueue_qr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream);

// The same QR a panel at a time, left-looking, for A wider than single_tsqr_columns<T>() whose
// panels arrive one after another: the panel of `width` columns from column `first` (a
// multiple of panel_width<T>(), width that or what is left of n) is brought up to date by the
// reflectors of every panel before it, group by group and then panel by panel as enqueue_qr
// applies them, and factored. Each column thus meets the same operations in the same order as
// in enqueue_qr, and the results are the same bits. Called for each panel in order, after the
// panel before it.
template <class T>
cudaError_t enqueue_panel(int m, int first, int width, T* a, long long lda, T* tau,
                          cudaStream_t stream);

}  // namespace switchyard::qr::gpu
