#pragma once

// xGESDD with JOBZ = 'S' or 'N' for tall A (m >= n) on a CUDA GPU, as xGESDD itself takes a
// matrix with many more rows than columns (its paths 1 and 3): A goes to the device once (or
// is worked on where it lies), where xGESDD's scaling test and A's QR run (tsqr/gpu_tsqr.hpp);
// R comes to the host, where the fallback's xGESDD gives R = U_R S V^T; with JOBZ = 'S' the
// left singular vectors U = Q [U_R; 0] are formed on the device from A's reflectors
// (gpu_apply_q.hpp) and go to U. S and V^T are R's, which are A's. A is left as it came in host
// memory (xGESDD leaves it "destroyed"), and holds its QR factors in device memory.
//
// A matrix xGESDD would scale first (its largest magnitude below sqrt(safe minimum) / epsilon
// or above the inverse) or with a NaN (INFO = -4 from xGESDD) is left to the fallback,
// untouched.

#include <string>

#include "fallback.hpp"
#include "qr/gpu_gels.hpp"

namespace switchyard::qr {

// jobz 'S' or 'N', m >= n >= 1, n <= kGpuMaxLeastSquaresColumns, lda >= m; with 'S' ldu >= m
// and ldvt >= n. `small` is the fallback's xGESDD, run on R; `info` receives its INFO.
template <class T>
GelsOutcome singular_values_gpu(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt,
                                int ldvt, GesddFn<T>* small, int* info, std::string& error);

}  // namespace switchyard::qr
