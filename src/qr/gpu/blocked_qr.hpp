#pragma once

// Layer 1 of the GPU QR (docs/qr-code.md): the QR of a device-accessible A of up to kMaxColumns
// columns. Up to kSingleTsqrColumns it is one TSQR (tsqr_tree.hpp); beyond, blocked
// Householder QR as xGEQRF itself blocks it, whose panels are TSQRs and whose panels' reflectors,
// applied as one compact-WY block (wy_block.hpp), update the columns to their right.
//
// Panels are grouped by 64 columns, the most reflectors one update takes. Inside a group a
// panel updates the rest of its group only; the group's reflectors then update all columns to
// its right at once, so the wide trailing matrix is read once per 64 columns, not per panel.
// Narrow panels pay: a TSQR's leaf factorization is bound by the latency of its chain of
// reflectors, and its time grows faster than its width (at 2^22 rows on the H200, double: 1.1
// ms for 16 columns, 3.6 for 32), while an update costs a few passes over memory. Panels are
// 16 columns wide, and 32 in single precision past 64 columns (blocked_qr.cpp says why).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <type_traits>
#include <vector>

namespace switchyard::qr::gpu {

// The widest A the GPU QR takes.
constexpr int kMaxColumns = 256;

// The widest A that is a single TSQR.
constexpr int kSingleTsqrColumns = 16;
// Columns of one group of panels: the most reflectors one update applies (kWyMaxReflectors).
constexpr int kGroupColumns = 64;
// An n-column A wider than one TSQR goes by panels of panel_width<T>(n) columns: one TSQR's
// width, and twice that in single precision past one group (blocked_qr.cpp says why).
template <class T>
constexpr int panel_width(int n) {
  return std::is_same_v<T, double> || n <= kGroupColumns ? kSingleTsqrColumns
                                                         : 2 * kSingleTsqrColumns;
}

// A's columns [first, first + width): one panel.
struct Panel {
  int first, width;
};

// A's n columns as panels of panel_width<T>(n), the last what is left.
template <class T>
std::vector<Panel> column_panels(int n) {
  const int width = panel_width<T>(n);
  std::vector<Panel> panels;
  for (int j = 0; j < n; j += width) {
    panels.push_back({j, std::min(width, n - j)});
  }
  return panels;
}

// xGEQRF of device-accessible m x n A (m >= n >= 1, n <= kMaxColumns), tau on the device,
// enqueued on `stream` with its workspace ordered on it. Returns the first launch or
// allocation error; the kernels' own show when the stream is synchronized.
template <class T>
cudaError_t enqueue_qr(int m, int n, T* a, long long lda, T* tau, cudaStream_t stream);

// The same QR a panel at a time, left-looking, for n-column A wider than kSingleTsqrColumns
// whose panels arrive one after another: the panel of `width` columns from column `first` (a
// multiple of panel_width<T>(n), width that or what is left of n) is brought up to date by the
// reflectors of every panel before it, group by group and then panel by panel as enqueue_qr
// applies them, and factored. Each column thus meets the same operations in the same order as
// in enqueue_qr, and the results are the same bits. Called for each panel in order, after the
// panel before it.
template <class T>
cudaError_t enqueue_panel(int m, int n, int first, int width, T* a, long long lda, T* tau,
                          cudaStream_t stream);

}  // namespace switchyard::qr::gpu
