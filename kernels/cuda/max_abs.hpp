// The largest magnitude of a matrix's elements, xLANGE's 'M' norm, on a CUDA device: what
// xGELS compares with its scaling thresholds before it factors (src/qr/gpu/gels.cpp, svd_on_r.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstring>

namespace switchyard::kernels {

// Raises *bits (device memory, set to 0 before the first call) to the bit pattern of the
// largest |a(i, j)| of the m x n matrix a, NaN if any element is NaN (its pattern exceeds every
// number's), as xLANGE reports it. The patterns of non-negative numbers order as the numbers
// do, so the maximum is exact, whatever the order the blocks run in. Launched asynchronously
// on `stream`; returns the launch status.
template <class T>
cudaError_t max_abs_bits(long long m, int n, const T* a, long long lda, unsigned long long* bits,
                         cudaStream_t stream);

// The magnitude whose bit pattern max_abs_bits left, on the host.
template <class T>
T magnitude_of_bits(unsigned long long bits) {
  T value;
  if constexpr (sizeof(T) == sizeof(unsigned)) {
    const auto narrow = static_cast<unsigned>(bits);
    std::memcpy(&value, &narrow, sizeof value);
  } else {
    std::memcpy(&value, &bits, sizeof value);
  }
  return value;
}

}  // namespace switchyard::kernels
