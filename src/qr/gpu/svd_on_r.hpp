#pragma once

// Layer 3 of the GPU QR (docs/qr-code.md): the SVD of a tall A (m >= n), as xGESDD and xGESVD
// themselves take a matrix with many more rows than columns, the part their routes (gesdd.cpp,
// gesvd.cpp) share. A goes to the device once (or is worked on where it lies), where the
// drivers' scaling test and A's QR run (blocked_qr.hpp); R comes to the host, where the
// fallback's driver gives R = U_R S V^T (`small`); the left singular vectors U = Q [U_R; 0] are
// formed on the device from A's reflectors (wy_block.hpp) and go to U. S and V^T are R's,
// which are A's. A is left as it came in host memory (both drivers leave it "destroyed"), and
// holds its QR factors in device memory.
//
// A matrix the drivers would scale first (its largest magnitude below sqrt(safe minimum) /
// epsilon or above the inverse) or with a NaN is left to the fallback, untouched.

#include <functional>
#include <string>

#include "qr/gpu/least_squares.hpp"
#include "qr/gpu/outcome.hpp"

namespace switchyard::qr::gpu {

// The SVD of R (n x n, ld n, zero below its diagonal, which it may overwrite) on the host: S,
// U_R (n x n, ld n) when the left vectors are asked for, V^T (n x n, ld n) when the right ones
// are; returns the driver's INFO.
template <class T>
using SmallSvd = std::function<int(T* r, T* s, T* u_r, T* vt_r)>;

// m >= n >= 1, n <= kMaxLeastSquaresColumns, lda >= m. u: the thin U (ldu >= m), or null for
// no left vectors; vt: V^T (ldvt >= n), or null for no right ones. `info` receives small's INFO;
// a positive one (the bidiagonal SVD did not converge) still gives S and the vectors as far as
// they came, as both drivers give them.
template <class T>
Outcome svd_on_r_gpu(int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt,
                     const SmallSvd<T>& small, int* info, std::string& error);

}  // namespace switchyard::qr::gpu
