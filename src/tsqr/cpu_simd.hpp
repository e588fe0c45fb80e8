#pragma once

// What the CPU kernels (tsqr/cpu_leaf.cpp, qr/cpu_products.cpp) share: the attribute that
// compiles an entry point once per x86-64 level, and 256-bit vectors with their loads and
// stores. Included by those sources only: every helper here is inlined into each level's copy.

#include <cstddef>
#include <cstring>

// Each entry point is compiled for x86-64-v4 (AVX-512), v3 (AVX2, FMA) and the baseline, and
// the loader picks the best the CPU runs. The helpers are inlined into every copy, so that
// their loops are vectorised for each level.
#if defined(__x86_64__) && defined(__has_attribute) && !defined(SWITCHYARD_NO_TARGET_CLONES)
#if __has_attribute(target_clones)
#define SWITCHYARD_LEVEL_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifdef SWITCHYARD_LEVEL_CLONES
#define SWITCHYARD_HAS_LEVEL_COPIES 1
#else
#define SWITCHYARD_LEVEL_CLONES
#define SWITCHYARD_HAS_LEVEL_COPIES 0
#endif
#define SWITCHYARD_INLINE [[gnu::always_inline]] inline

namespace switchyard::cpu_simd {

// 256-bit vectors in GCC's vector extension, for the loop nests that the compiler, left to
// itself, vectorises across the outer loop with strided loads. AVX2 runs them natively and
// AVX-512 in its 32 registers; 512-bit ones, split in two for AVX2, ran several times slower
// there (spilled sums), and gained AVX-512 only about a fifth. The baseline splits them too.
template <class T>
struct VectorOf {
  typedef T type __attribute__((vector_size(32)));
};
template <class T>
using Vector = typename VectorOf<T>::type;
template <class T>
constexpr int kVectorLanes = int(32 / sizeof(T));

// By reference: passed by value, these vectors would change the calling convention between
// the copies compiled for each level (they are inlined anyway).
template <class T>
SWITCHYARD_INLINE void load(Vector<T>& to, const T* from) {
  std::memcpy(&to, from, sizeof to);
}

template <class T>
SWITCHYARD_INLINE void store(T* to, const Vector<T>& from) {
  std::memcpy(to, &from, sizeof from);
}

// Rows of a chunk that a product forms together: 4 vectors of them, times up to 3 columns, make
// 12 vectors of sums, which with the 4 loaded fit AVX2's 16 registers.
template <class T>
constexpr int kChunkRows = 4 * kVectorLanes<T>;
template <class T>
constexpr int kChunkParts = kChunkRows<T> / kVectorLanes<T>;

// sums[j] = R W(:, j0 + j) for j < Columns (Columns <= 3): R is the kChunkRows x k chunk whose
// column kk starts at rows + kk * ld_rows, W is k x (j0 + Columns) (ldw). Each vector of R
// loaded serves every column. The loops over the tile are unrolled by request: only then are
// its sums kept in registers for AVX2.
template <int Columns, class T>
SWITCHYARD_INLINE void chunk_times_w(int k, const T* rows, std::ptrdiff_t ld_rows, const T* w,
                                     std::ptrdiff_t ldw, int j0,
                                     Vector<T> (&sums)[Columns][kChunkParts<T>]) {
  for (int j = 0; j < Columns; ++j) {
    for (int p = 0; p < kChunkParts<T>; ++p) sums[j][p] = Vector<T>{};
  }
  for (int kk = 0; kk < k; ++kk) {
    const T* const column = rows + kk * ld_rows;
    Vector<T> parts[kChunkParts<T>];
#pragma GCC unroll 4
    for (int p = 0; p < kChunkParts<T>; ++p) load(parts[p], column + p * kVectorLanes<T>);
#pragma GCC unroll 4
    for (int j = 0; j < Columns; ++j) {
      const T w_kj = w[kk + (j0 + j) * ldw];
#pragma GCC unroll 4
      for (int p = 0; p < kChunkParts<T>; ++p) sums[j][p] += parts[p] * w_kj;
    }
  }
}

}  // namespace switchyard::cpu_simd
