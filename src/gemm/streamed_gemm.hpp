// The gemm route on host operands: C is cut into panels of columns, and
// the pieces of A, of each panel of op(B) (and of C when beta != 0) stream
// to the device through pinned slots while the kernels run on what is
// already there and the panels of C already done stream back:
//
//   upload queue    A | B0 C0 | B1 C1 | B2 C2 | ...
//   kernel queue         pack A, pack B0, TN 0 | pack B1, TN 1 | ...
//   download queue                       C0    |      C1       | ...
//
// with host threads copying between the caller's pageable memory and the
// slots on both ends (stream_transfers.hpp). A large op(A) goes up in row
// blocks, one between each two panels of op(B) (A0 | B0 C0 | A1 | B1 C1 |
// B2 C2 ...), so that the kernels start once the first block and the first
// panel are there rather than all of op(A). Each stage that arrives is
// packed and multiplied with every stage of the other operand already
// there (A0 B0 after B0; A1 B0 after A1; A0 B1 and A1 B1 after B1), and a
// panel of C goes down once its last row block's product is done. When
// op(A) and op(B) are the same host matrix (same pointer, ld and stored
// shape: the Gram product dgemm('T', 'N', n, n, k, A, lda, A, lda), or
// 'N', 'T'), it is uploaded once, whole, and both operands are packed from
// that one device copy. A panel too narrow to fill the device runs split-K
// (split_k.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/device_gemm.hpp"
#include "gemm/row_blocks.hpp"
#include "gemm/shared_feed.hpp"
#include "gemm/stream_fault.hpp"

namespace switchyard::gemm {

struct StreamPlan {
  int panel_cols;           // columns of C per panel
  std::size_t piece_bytes;  // at most this many bytes per transfer (and slot)
  // k slices of each panel's product (split_k.hpp): 0 takes choose_split's
  // number for the widest panel, and every panel uses that split.
  int slices = 0;
  // At most this many bytes per piece of the operand a feed copies (shared_feed.hpp): its
  // slots'. 0: piece_bytes.
  std::size_t fed_piece_bytes = 0;
  // Row blocks op(A) goes up in: 0 takes row_blocks_for's number. The in-place kernels and
  // the Gram product read op(A) whole, in one block.
  int row_blocks = 0;
};

// Panels of about n / 8 columns, whole tiles of the kernel, and pieces of a
// whole slot: eight panels keep the last download, the part that overlaps
// nothing, to an eighth of C. Narrower panels than kMinPanelCols do not pay
// for their launches and synchronisation: the forced LAPACK suites on PoCL,
// whose calls are small, took 5 times longer with eight panels per call.
inline constexpr int kMinPanelCols = 512;
StreamPlan default_plan(const KernelParams& p, int n);

// The row blocks gemm_streamed cuts an m-row op(A) into under `plan`, for a product
// (`product`: alpha != 0 and k > 0) whose op(B) is op(A)'s host matrix or not (`shared`).
RowBlocks stream_row_blocks(const Kernels& kernels, const StreamPlan& plan, int m, int n, int k,
                            bool product, bool shared, std::size_t element_bytes);

// A rectangle of C: rows [row, row + rows), columns [col, col + cols).
struct CBlock {
  int row, col, rows, cols;
};

// C <- alpha op(A) op(B) + beta C on host operands, any transpose and ld;
// beta = 0 never reads C, alpha = 0 or k = 0 reads neither A nor B. True
// when all of C is written. Otherwise false, the reason in `error`, and
// `unwritten` lists the blocks of C that still hold what the caller gave:
// all of C when the failure came before any of C was written (then C is
// untouched); after that, the parts whose download did not complete, while
// every other part holds its final value. `fault` is for tests only: a
// failure planted in one step of the call (stream_fault.hpp). With a `seat`
// in a split call's feed, the pieces of the operand it names come from the
// feed's slots (shared_feed.hpp), unless this device's pieces of it differ
// from the feed's.
template <class T>
bool gemm_streamed(opencl::Runtime& rt, Kernels& kernels, char transa, char transb, int m, int n,
                   int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc,
                   const StreamPlan& plan, std::vector<CBlock>& unwritten, std::string& error,
                   const StreamFault* fault = nullptr, FeedSeat<T> seat = {});

// Whether `unwritten`, as gemm_streamed left it for an m x n C, is all of C:
// the failure came before any of C was written, C is as the caller gave it,
// and the whole call may run again elsewhere.
inline bool untouched(const std::vector<CBlock>& unwritten, int m, int n) {
  return unwritten.size() == 1 && unwritten[0].rows == m && unwritten[0].cols == n;
}

}  // namespace switchyard::gemm
