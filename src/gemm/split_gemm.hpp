// The gemm route on host operands over several OpenCL devices (SWITCHYARD_DEVICES), as
// cublasXt does: C is cut into one block per device, along its rows when it is at least as
// tall as it is wide and else along its columns, and each device streams its block's product
// with gemm_streamed (streamed_gemm.hpp) on a thread of its own, through its own queues and
// pinned slots, all at once.
//
// Cutting the rows gives each device its rows of op(A) and all of op(B); cutting the columns,
// all of op(A) and its columns of op(B). Either way the operand cut is read once, and the
// other by every device; the cut is along the longer side of C, so that what every device
// reads is the smaller one. That one is copied from pageable memory once and sent from the
// same pinned slots to every device (shared_feed.hpp). With the rows cut, each device's first
// upload (its rows of op(A), which its first panel waits for) is a 1/D part of A: the part of
// the call that overlaps nothing shrinks with the devices too.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "device/opencl_shared_staging.hpp"
#include "gemm/device_gemm.hpp"
#include "gemm/stream_fault.hpp"
#include "gemm/streamed_gemm.hpp"

namespace switchyard::gemm {

// One device's part of a split call: its runtime and the kernels built on it.
struct Share {
  opencl::Runtime* rt;
  Kernels* kernels;
};

// The blocks of an m x n C, one for each of `devices` in order: along the rows when m >= n,
// else along the columns, as equal as whole multiples of `step` rows (or columns) allow, the
// remainder to the last. Fewer blocks than devices when C has fewer steps than devices.
std::vector<CBlock> split_blocks(int m, int n, int devices, int row_step, int col_step);

// Whether an m x n x k product of `element_size`-byte elements pays to split over `devices`:
// when its flops per byte of operands, 2mnk / (e (mk + kn + mn)), reach
// kSplitMinFlopsPerByte, and it has at least kSplitMinFlops. A split moves more host memory
// than one device does (the operand every device reads is copied to each device's slots), so
// it pays only where one device's kernels, not its transfers, set the time. Measured on two
// H100s of one host from pageable memory (docs/multi-gpu.md): dgemm n = 16384 (1365
// flop/byte) 1.15-1.37x one device, sgemm 12288 (2048) 1.54-1.72x; dgemm 12288 (1024) and 8192
// (683) slower than one device. Smaller products than sgemm 12288 were not measured split.
constexpr double kSplitMinFlopsPerByte = 1300;
constexpr double kSplitMinFlops = 2.0 * 12288 * 12288 * 12288;
bool pays_to_split(int m, int n, int k, std::size_t element_size, std::size_t devices);

// For tests only: a failure planted in share `fault_share`'s call, and pieces of at most
// `piece_bytes` (0: a slot's) so that small products travel in many.
struct SplitProbe {
  const StreamFault* fault = nullptr;
  int fault_share = 0;
  std::size_t piece_bytes = 0;
};

// C <- alpha op(A) op(B) + beta C on host operands, each block of split_blocks on its share,
// share 0 on the calling thread. With `shared` (the shares' shared staging, or null), the
// operand every share reads whole is copied from the caller's memory once, for all of them
// (shared_feed.hpp). True when all of C is written. Otherwise false, the reason in `error`,
// and `unwritten` lists the parts of C that still hold what the caller gave, as
// gemm_streamed's does: all of C as one block when no share wrote any of it.
template <class T>
bool gemm_split(const std::vector<Share>& shares, opencl::SharedStaging* shared, char transa,
                char transb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb,
                T beta, T* c, int ldc, std::vector<CBlock>& unwritten, std::string& error,
                const SplitProbe& probe = {});

}  // namespace switchyard::gemm
