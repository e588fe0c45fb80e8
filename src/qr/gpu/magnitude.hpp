#pragma once

// Layer 1 of the GPU QR (docs/qr-code.md): the largest magnitude of device-accessible matrices
// (xLANGE's 'M' norm, NaN where an element is NaN), which the LAPACK drivers compare with their
// scaling thresholds before they factor.

#include <cuda_runtime_api.h>

namespace switchyard::qr::gpu {

template <class T>
struct DeviceMatrix {
  long long m;
  int n;
  const T* a;
  long long ld;
};

// out[i] = the largest magnitude of matrices[i], i < count <= 2, on the host; waits for
// `stream`. Returns the first error.
template <class T>
cudaError_t largest_magnitudes(int count, const DeviceMatrix<T>* matrices, T* out,
                               cudaStream_t stream);

}  // namespace switchyard::qr::gpu
