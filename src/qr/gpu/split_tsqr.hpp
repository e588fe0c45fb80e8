#pragma once

// xGEQRF of a host matrix whose rows are split over several CUDA devices (SWITCHYARD_DEVICES),
// as one TSQR whose first level is the devices themselves:
//
// 1. Each device takes a contiguous share of the rows, streams it up through its own staging
//    slots (its leaves factored as each chunk lands, as geqrf.cpp does on one device) and
//    reduces it to an n x n R_d (tsqr_tree.hpp), all devices at once.
// 2. On the host, the stack [R_0; ...; R_{D-1}] is factored by the CPU TSQR's kernels
//    (tsqr/cpu_leaf.hpp) to A's R and the stack's explicit Q, of which slice d, G_d, turns the
//    device's own Q into its rows of A's Q: Q_d [G_d; 0].
// 3. Device 0 forms A's top n rows of Q, Q1, as its tree's Q times G_0, and factors Q1 - S = L U
//    (the reconstruction of tsqr_tree.hpp, unchanged).
// 4. Every device writes V2 = Q2 inv(U) over its share in one pass down its tree, starting from
//    G_d inv(U); the devices' flags of nonzero V2 columns are or-ed on the host.
// 5. Device 0 writes V1, S R and tau with those flags; then each share goes back to the caller,
//    only once every device has succeeded, so a failure leaves A as it was.
//
// The output is xGEQRF's, as from one device: the same algorithm with one more tree level.
//
// A in managed memory whose shares of rows lie on their devices (lies_split: a program that
// prefetched each share there) is factored where it lies, each device on its own rows, as one
// device works on device data in place: every device's memory is had before any writes A, so a
// failure to get it leaves A as it was, while a failure of the work leaves A partly overwritten,
// as on one device. Wider than one TSQR's panel (blocked_qr.hpp), it goes by the same panels as
// on one device: each panel is a split TSQR of its columns from its top row down, and its
// reflectors update the columns to its right as one compact-WY block whose sums [V^T V, V^T C]
// the host adds over the devices in device order (split_apply.hpp's step 2). Each device's
// share of a 64-column TSQR would cost about three times its 32-column one per row, where
// panels cost twice (2^24 x 64 on two H200s: 18.3 ms by panels, 42.7 as one TSQR per device,
// 31.9 on one device).

#include <cstddef>
#include <string>
#include <vector>

#include "qr/gpu/split_devices.hpp"
#include "qr/gpu/tsqr_tree.hpp"

namespace switchyard::qr::gpu {

// The widest matrix the split takes: one TSQR per device.
constexpr int kSplitMaxColumns = kTsqrMaxColumns;

// Whether an m x n matrix can be split over `devices`: more than one device,
// n <= kSplitMaxColumns, and a share of at least one leaf block and n rows for each.
bool splits(const std::vector<int>& devices, long long m, int n);


// Whether A (m x n, leading dimension lda) is in managed memory and, for each device, the rows
// of its share (as the split cuts them, and the split xORGQR and xORMQR after it) were last
// prefetched to it, in every column (cuda::prefetched_device). A prefetch
// moves whole pages (up to 2 MiB), so where a column's share ends inside a page that also holds
// another device's rows, that page lies on one of them only and the matrix does not lie split.
template <class T>
bool lies_split(const std::vector<int>& devices, const T* a, long long lda, long long m, int n);

// xGEQRF of A (m x n, splits(devices, m, n)), in host memory or lies_split, tau in host memory.
// False, with `error` saying why, when a device step failed; host A and tau are then untouched.
template <class T>
bool geqrf_split(const std::vector<int>& devices, int m, int n, T* a, int lda, T* tau,
                 std::string& error);

}  // namespace switchyard::qr::gpu
