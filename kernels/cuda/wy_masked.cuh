// V(i, j) of the reflectors as xGEQRF stores them: zero above the diagonal, an implicit one on
// it, the stored vector below it.
#pragma once

#include <cstdint>

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

// Whether a column-major matrix's rows from first_row on start on 16 bytes in every column, so
// that the tall kernels may stage its tiles by 16-byte copies (two rows of double, four of
// float).
template <class T>
inline bool rows_start_on_16_bytes(const T* a, long long ld, long long first_row) {
  return a && ld % (16 / long(sizeof(T))) == 0 &&
         reinterpret_cast<std::uintptr_t>(a + first_row) % 16 == 0;
}

}  // namespace switchyard::kernels::wy
