#pragma once

// xORGQR and xORMQR (SIDE = 'L') of matrices whose rows are split over several CUDA devices
// (SWITCHYARD_DEVICES), as one compact-WY block (wy_block.hpp) whose sums run over the devices.
// The matrices are in host memory, or in managed memory that lies split (lies_split,
// split_tsqr.hpp: as a split xGEQRF in place leaves them), where each device works on its rows
// in place; the shares are cut as the split xGEQRF cuts them.
//
// 1. Each device streams its share of V's rows (and of C's) up and sums its part of V^T V
//    (xORMQR: [V^T V, V^T C]) as the rows land, all devices at once.
// 2. The host adds the devices' sums in device order, so every run gives the same bits.
// 3. xORGQR: device 0, whose share holds V's top rows, forms W = T V1^T from the sums and tau;
//    every device writes its rows of Q = E - V W. xORMQR: every device forms W = op(T) V^T C
//    from the same sums and writes its rows of C - V W.
// 4. Each share of host data goes back to the caller only once every device has succeeded, so
//    a failure leaves the caller's data as it was; in place, a failure of the work leaves it
//    partly overwritten, as on one device.
//
// The output is xORGQR's or xORMQR's, as from one device, up to the order of the sums.

#include <string>
#include <vector>

namespace switchyard::qr::gpu {

// Whether an m-row call with k reflectors and w columns of output (xORGQR: n; xORMQR: k + nc,
// V^T V beside V^T C) splits over `devices`: more than one device, one block (k <= w <= 64),
// and a share of at least one row for each.
bool apply_splits(const std::vector<int>& devices, long long m, int k, int w);

// xORGQR of A (m x n, k reflectors, apply_splits(devices, m, k, n)). False, with `error`
// saying why, when a device step failed; host A is then untouched.
template <class T>
bool orgqr_split(const std::vector<int>& devices, int m, int n, int k, T* a, int lda, const T* tau,
                 std::string& error);

// xORMQR with SIDE = 'L' of V (m x k) and C (m x nc), both in host memory or both lying split,
// apply_splits(devices, m, k, k + nc): C <- Q^T C (`transpose`) or Q C. False, with `error`
// saying why, when a device step failed; host C is then untouched.
template <class T>
bool ormqr_split(const std::vector<int>& devices, bool transpose, int m, int nc, int k, const T* a,
                 int lda, const T* tau, T* c, int ldc, std::string& error);

}  // namespace switchyard::qr::gpu
