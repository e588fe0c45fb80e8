// The row blocks a streamed gemm sends op(A) up in (streamed_gemm.hpp), so that its kernels
// start once the first block is on the device rather than all of op(A). The cost model
// (cost_model.cpp) waits for the same first block.
#pragma once

#include <algorithm>
#include <cstddef>

namespace switchyard::gemm {

// No blocks (one) below kRowBlocksMinBytes of op(A), whose upload is over in about two
// milliseconds; else one for each kRowBlockMinRows rows, at most kMaxRowBlocks. Blocks of
// that height keep a panel's product on a block (2048 x 1024 and up) filling the H200's
// units without split-K; more blocks start the kernels sooner but make each product smaller
// and keep a packed panel of op(B) on the device for each block. Measured on nvidia-h200-x2
// (docs/gemm.md): dgemm 16384^3 from pageable memory in 223-224 ms with 4 blocks, 250 with
// one, 227-255 with 8.
inline constexpr std::size_t kRowBlocksMinBytes = std::size_t(64) << 20;
inline constexpr int kRowBlockMinRows = 2048;
inline constexpr int kMaxRowBlocks = 4;

// Row blocks for a product with an m x k op(A) of `element_bytes` elements. The count depends
// on neither n nor the device, so every device of a split cuts a shared op(A) alike.
inline int row_blocks_for(int m, int k, std::size_t element_bytes) {
  if (element_bytes * std::size_t(m) * std::size_t(k) < kRowBlocksMinBytes) return 1;
  return std::clamp(m / kRowBlockMinRows, 1, kMaxRowBlocks);
}

// Row blocks of an m-row op(A) when `wanted` are asked for: `rows` each, the last one
// possibly fewer, `count` of them (fewer than wanted where m is small).
struct RowBlocks {
  int rows, count;
};
inline RowBlocks row_blocks(int m, int wanted) {
  const int rows = std::max(1, (m + std::max(1, wanted) - 1) / std::max(1, wanted));
  return {rows, std::max(1, (m + rows - 1) / rows)};
}

}  // namespace switchyard::gemm
