// pxGEQRF's TSQR with each process's rows on its own CUDA device (src/qr/gpu/rank_tsqr.cpp),
// plugged in by that file where the build has the CUDA routes. The algorithm is the one
// distributed_tsqr.hpp describes, with the split TSQR's device steps (qr/gpu/split_tsqr.hpp)
// in place of the CPU kernels and an all-gather between each:
//
// 1. Each process's rows go up to its device and are reduced to their R_p there; all-gather
//    of the R factors.
// 2. Every process of sub(A)'s column factors the stack of R factors on the host, the same bits
//    everywhere; the process holding sub(A)'s first N rows (gpu_layout_declines makes them its
//    first rows) forms Q1 on its device and reconstructs; all-gather of inv(U).
// 3. Each process writes V2 = Q2 inv(U) over its rows on its device, from G_p inv(U); all-gather
//    of its nonzero-column flags.
// 4. The top process writes V1, R and TAU from the or-ed flags; all-gather of TAU.
// 5. Each process's rows go back to its A, and TAU is written.
//
// Past 64 columns, sub(A) is factored in panels of 64 as the one-GPU QR does (all of each
// process's rows on its device first): steps 1 to 4 for each panel, then the panel's Q^T applied
// to the columns right of it, with each process's sums of V^T V and V^T C added over the
// processes in rank order by one more all-gather.
//
// Every all-gather carries each process's status as well, so a device step that failed on any
// process stops every process at the same exchange, before anything is written to A or TAU:
// the call then runs in ScaLAPACK.
#pragma once

#include "distributed_tsqr.hpp"

namespace switchyard::scalapack {

template <class T>
struct GpuRanks {
  // Why this process's device cannot take its share, or null; may start the device.
  const char* (*unusable)();
  // The CUDA device this process's share runs on, for the trace.
  int (*device)();
  // Whether `a` is in device or managed memory, found without starting a device: such a share
  // is declined, since a device that failed half way would leave it half written.
  bool (*resident)(const void* a);
  // The TSQR of this process's rows (h x n at a, lda >= h; h is 0 or at least n), TAU's n
  // entries written when this process is in sub(A)'s column: kOk, kGpuStepFailed or
  // kCommunicationFailed (which leaves A partly written, as DistributedTsqr::run does).
  int (*run)(const Layout& layout, int h, T* a, int lda, T* tau, const AllGather& gather);

  // The implementation, or null in a build without the CUDA routes.
  static inline const GpuRanks* plugged = nullptr;
};

}  // namespace switchyard::scalapack
