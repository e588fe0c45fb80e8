// V(i, j) of the reflectors as xGEQRF stores them: zero above the diagonal, an implicit one on
// it, the stored vector below it.
#pragma once

#include "wy_kernels.hpp"

namespace switchyard::kernels::wy {

template <class T>
__device__ __forceinline__ T masked(const Reflectors<T>& v, long long i, int j) {
  if (i + v.row0 > j) return v.a[i + j * v.lda];
  return i + v.row0 == j ? T(1) : T(0);
}

// Rows of the tiles the tall kernels stage in shared memory.
constexpr int kTileRows = 32;

// The tall kernels give each thread every 16th row or column of an output up to 64 wide:
// this many of them (1, 2 or 4) cover `width`.
inline int sixteens(int width) { return width <= 16 ? 1 : width <= 32 ? 2 : 4; }

}  // namespace switchyard::kernels::wy
