#pragma once

#include <cstddef>

// The two products of applying a block of reflectors I - V T V^T to a matrix C on the CPU
// (cpu_apply_q.hpp), over a range of rows: V^T C, and C - V W. Their loops run down contiguous
// rows of a column, vectorised, and are compiled for several x86-64 levels, the best chosen at
// run time (tsqr/cpu_simd.hpp). Every sum is taken in a fixed order: results depend only on the
// inputs and the rows each call is given.

namespace switchyard::qr {

// out += V^T C over h rows: V is h x k (ldv), C h x nc (ldc), out k x nc (ldo).
template <class T>
void add_transposed_product(std::ptrdiff_t h, int k, const T* v, std::ptrdiff_t ldv, int nc,
                            const T* c, std::ptrdiff_t ldc, T* out, int ldo);

// C -= V W over h rows: V is h x k (ldv), W k x nc (ldw), C h x nc (ldc).
template <class T>
void subtract_product(std::ptrdiff_t h, int k, const T* v, std::ptrdiff_t ldv, int nc, const T* w,
                      int ldw, T* c, std::ptrdiff_t ldc);

}  // namespace switchyard::qr
