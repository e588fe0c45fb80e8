// V^T X over the rows of a tall matrix, as one k x w partial sum per block of kWyBlockRows
// rows, and the fixed-order sum of those partials.
#include <cuda_pipeline.h>

#include <algorithm>
#include <type_traits>

#include "copy_async.cuh"
#include "mma_f64.cuh"
#include "shared_memory_opt_in.cuh"
#include "wy_kernels.hpp"
#include "wy_masked.cuh"

namespace switchyard::kernels {
namespace wy {
namespace {

// 256 threads. The k x w output is cut into 16-wide slices, Q of them over k and P over w, the
// fewest that cover it: narrow products (the panels of a blocked QR) would otherwise spend most
// of their time on outputs that do not exist.
constexpr int kThreads = 256;
// Row pitch of the tiles staged by rows: a multiple of four, so that the products on FMAs read
// four columns of a row in 16-byte pieces, and four past a multiple of 16, so that consecutive
// rows start on different banks.
constexpr int kPitch = kWyMaxColumns + 4;
// Elements a tile buffer holds, whichever way it is laid out.
constexpr int kTile = kTileRows * kPitch;

// Where a staged tile of [V X] keeps its element (r, c), r < kTileRows, c < kWyMaxColumns.
// Each layout names how many consecutive rows of a column one staging copy moves.
//
// By rows, for the double-precision products on FMAs (16 x 16 outputs): four consecutive
// columns of a row are 32 bytes, read as two 16-byte pieces.
struct RowTile {
  static constexpr int kRowsPerCopy = 1;
  __device__ static int at(int r, int c) { return r * kPitch + c; }
};

// By row pairs, for the products on the tensor cores: rows 2p and 2p + 1 of a column side by
// side, so that one 16-byte copy stages both from a column-major matrix, and one 16-byte read
// gives a lane its operand for two mma steps (one takes the even rows, the other the odd).
// The 16-byte units of pair p sit at column c ^ s(p mod 8), with s taking 0..3 to the even
// units and 4..7 to the odd ones: then the eight lanes of a quarter-warp hit eight distinct
// bank groups both when they stage eight pairs of one column and when they read a fragment
// (four pairs of two columns c, c + 1, c even). Padding cannot serve both.
struct PairTile {
  static constexpr int kRowsPerCopy = 2;
  static constexpr int kPairPitch = 2 * kWyMaxColumns;
  static_assert(kTileRows / 2 * kPairPitch <= kTile, "a paired tile fits a buffer");
  __device__ static int swizzle(int p) { return ((p & 3) << 1) | ((p >> 2) & 1); }
  __device__ static int at(int r, int c) {
    const int p = r / 2;
    return p * kPairPitch + 2 * (c ^ swizzle(p)) + (r & 1);
  }
};

// By row quads, for the single-precision products on FMAs: rows 4q to 4q + 3 of a column side
// by side, so that one 16-byte copy stages them from a column-major matrix and one 16-byte read
// gives a thread four rows of a column. A quad's row of units is one unit longer than the
// columns need: then the eight lanes of a quarter-warp hit eight distinct bank groups both when
// they stage eight quads of one column and when they read one quad of eight columns.
struct QuadTile {
  static constexpr int kRowsPerCopy = 4;
  static constexpr int kQuadPitch = 4 * (kWyMaxColumns + 1);
  static_assert(kTileRows / 4 * kQuadPitch <= kTile, "a quad tile fits a buffer");
  __device__ static int at(int r, int c) { return r / 4 * kQuadPitch + 4 * c + r % 4; }
};

// Whether the copies of a tile may move 16 bytes (two rows of double, four of float) at once:
// a column's rows from the first row on start on 16 bytes, in V and in X.
struct WideCopies {
  bool v = false, x = false;
};

// Four consecutive elements of a staged tile row, 16-byte aligned, by 16-byte reads.
__device__ inline void load4(const float* at, float (&out)[4]) {
  const float4 x = *reinterpret_cast<const float4*>(at);
  out[0] = x.x, out[1] = x.y, out[2] = x.z, out[3] = x.w;
}
__device__ inline void load4(const double* at, double (&out)[4]) {
  const double2 x = *reinterpret_cast<const double2*>(at);
  const double2 y = *reinterpret_cast<const double2*>(at + 2);
  out[0] = x.x, out[1] = x.y, out[2] = y.x, out[3] = y.y;
}

// On FMAs: the 16Q x 16P output in 4 x 4 blocks of entries, a thread each, in G = 4 / Q row
// groups of 64 Q threads (the blocks of the widest output, P = 4), group g summing the tile
// rows g, g + G, ... (in single precision, the row quads), their sums added in group order on
// the way out. A thread reads a row's four columns of V^T and of X in two 16-byte reads for 16
// FMAs (in single precision, four rows of a column in each of eight reads for 64 FMAs). (A
// thread per 16-apart entries had read one element of V and one of X per FMA or two, and the
// shared memory, not the FMAs, set the pace: single-precision updates ran at a third of the
// rate of memory.) G does not depend on P, so an entry is summed in the same order whatever the
// width of X beside it: a blocked QR that updates a panel's columns alone (streamed_qr.hpp)
// gives the bits of one that updates them with the columns to their right.
template <class T, int Q, int P>
struct FmaProduct {
  // Single precision stages by quads; double, here only for 16 x 16 outputs, by rows.
  static constexpr bool kQuads = sizeof(T) == 4;
  using Layout = std::conditional_t<kQuads, QuadTile, RowTile>;
  static constexpr int kRowsOut = 16 * Q, kColumnsOut = 16 * P;
  static constexpr int kGroups = 4 / Q, kGroupThreads = kThreads / kGroups;
  static constexpr int kRowBlocks = kRowsOut / 4, kBlocks = kRowBlocks * (kColumnsOut / 4);
  static constexpr int kLines = kQuads ? kTileRows / 4 : kTileRows;  // what a group steps over
  static_assert(kBlocks <= kGroupThreads && kLines % kGroups == 0, "a block a thread");
  static_assert(kGroups * kRowsOut * kColumnsOut <= kWyMaxReflectors * kWyMaxReflectors,
                "the groups' sums fit the scratch");
  T sum[4][4] = {};

  __device__ static int block() { return int(threadIdx.x) % kGroupThreads; }
  __device__ static int group() { return int(threadIdx.x) / kGroupThreads; }
  __device__ static bool active() { return block() < kBlocks; }
  // The thread's entries (row(a), column(b)). By rows, a row's four consecutive columns are one
  // 16-byte read. By quads, a thread's rows and columns lie kRowBlocks and kColumnsOut / 4
  // apart, so that consecutive threads read consecutive columns of a quad.
  __device__ static int row(int a) {
    const int j = block() % kRowBlocks;
    return kQuads ? j + kRowBlocks * a : 4 * j + a;
  }
  __device__ static int column(int b) {
    const int c = block() / kRowBlocks;
    return kQuads ? c + kColumnsOut / 4 * b : 4 * c + b;
  }

  // V^T's element (j, r) at Layout::at(r, j), X's (r, c) at Layout::at(r, c).
  __device__ void add(const T* vs, const T* xs) {
    if (!active()) return;
    if constexpr (kQuads) {
      // X's four quads, then V's one at a time: 16 sums and 20 operands live. In a quad's row
      // of units, a thread's columns of V lie 4 kRowBlocks elements apart, of X kColumnsOut.
      const T* v_at = vs + QuadTile::at(4 * group(), row(0));
      const T* x_at = xs + QuadTile::at(4 * group(), column(0));
#pragma unroll 1
      for (int q = group(); q < kLines; q += kGroups, v_at += kGroups * QuadTile::kQuadPitch,
               x_at += kGroups * QuadTile::kQuadPitch) {
        T xc[4][4];
#pragma unroll
        for (int b = 0; b < 4; ++b) load4(x_at + kColumnsOut * b, xc[b]);
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          T vj[4];
          load4(v_at + 4 * kRowBlocks * a, vj);
#pragma unroll
          for (int e = 0; e < 4; ++e) {
#pragma unroll
            for (int b = 0; b < 4; ++b) sum[a][b] += vj[e] * xc[b][e];
          }
        }
      }
    } else {
      const T* v_at = vs + row(0);
      const T* x_at = xs + column(0);
#pragma unroll 4
      for (int r = group(); r < kLines; r += kGroups) {
        T vj[4], xc[4];
        load4(v_at + RowTile::at(r, 0), vj);
        load4(x_at + RowTile::at(r, 0), xc);
#pragma unroll
        for (int a = 0; a < 4; ++a) {
#pragma unroll
          for (int b = 0; b < 4; ++b) sum[a][b] += vj[a] * xc[b];
        }
      }
    }
  }

  // out(j, c) at j + c k, for j < k and c < w: the groups' sums through `scratch`, added in
  // group order. Every thread must call it, after the block is done with the tiles `scratch`
  // overlaps.
  __device__ void write(T* out, int k, int w, T* scratch) const {
    constexpr int kPerGroup = kRowsOut * kColumnsOut;
    if (active()) {
      T* mine = scratch + group() * kPerGroup;
#pragma unroll
      for (int a = 0; a < 4; ++a) {
#pragma unroll
        for (int b = 0; b < 4; ++b) mine[row(a) + column(b) * kRowsOut] = sum[a][b];
      }
    }
    __syncthreads();
    for (int idx = int(threadIdx.x); idx < k * w; idx += kThreads) {
      const int at = idx % k + (idx / k) * kRowsOut;
      T total = scratch[at];
      for (int g = 1; g < kGroups; ++g) total += scratch[g * kPerGroup + at];
      out[idx] = total;
    }
  }
};

// On the FP64 tensor cores (mma m16n8k4, mma_f64.cuh), for outputs of at least four 16 x 8
// tiles: the output's Q 16-row by 2P 8-column tiles are dealt to a kWj x kWc grid of warps
// (the warps past it, when there are fewer tiles than warps, only stage), each summing kTj by
// kTc tiles from kTj pairs of fragments of V^T and kTc of X per 8 rows.
template <int Q, int P>
struct MmaProduct {
  using Layout = PairTile;
  static_assert(Q * P >= 2, "fewer than four tiles");
  static constexpr int kWj = Q >= 2 ? 2 : 1, kWc = 2 * P < 8 / kWj ? 2 * P : 8 / kWj;
  static constexpr int kTj = Q / kWj, kTc = 2 * P / kWc;
  double sum[kTj][kTc][4] = {};

  __device__ static int warp() { return int(threadIdx.x) / 32; }
  __device__ static bool active() { return warp() < kWj * kWc; }
  __device__ static int first_row() { return 16 * kTj * (warp() % kWj); }
  __device__ static int first_column() { return 8 * kTc * (warp() / kWj); }

  // Lane (g, t) reads row pairs t and t + 4 of every eight: each pair's even row feeds one
  // mma, its odd row the next, V^T's k index t standing for the same row as X's. Pair
  // pair0 + 4e + t's unit of column 8m + g lies at PairTile::at(2 (t + 4e), g) +
  // kPairPitch pair0 + 16m, since the swizzle turns only a column's three low bits and repeats
  // every eight pairs: so a lane keeps two base addresses, and every read is one of them plus
  // a constant. (Eight pairs a pass: with all sixteen unrolled, the reads hoisted ahead spill.)
  __device__ void add(const double* vs, const double* xs) {
    if (!active()) return;
    const int lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
    const double* v_at[2];
    const double* x_at[2];
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int base = PairTile::at(2 * (t + 4 * e), g);
      v_at[e] = vs + base + 2 * first_row();
      x_at[e] = xs + base + 2 * first_column();
    }
    const auto pair = [](const double* at) { return *reinterpret_cast<const double2*>(at); };
#pragma unroll 1
    for (int pair0 = 0; pair0 < kTileRows / 2; pair0 += 8) {
      const int step = PairTile::kPairPitch * pair0;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        double2 vt[kTj][2], x[kTc];
#pragma unroll
        for (int a = 0; a < kTj; ++a) {
          vt[a][0] = pair(v_at[e] + step + 32 * a);
          vt[a][1] = pair(v_at[e] + step + 32 * a + 16);
        }
#pragma unroll
        for (int b = 0; b < kTc; ++b) x[b] = pair(x_at[e] + step + 16 * b);
#pragma unroll
        for (int a = 0; a < kTj; ++a) {
          const double even[2] = {vt[a][0].x, vt[a][1].x}, odd[2] = {vt[a][0].y, vt[a][1].y};
#pragma unroll
          for (int b = 0; b < kTc; ++b) {
            mma_16x8x4(sum[a][b], even, x[b].x);
            mma_16x8x4(sum[a][b], odd, x[b].y);
          }
        }
      }
    }
  }

  // Through `scratch` (64 x 64, column-major), since k need not suit the fragments' stores.
  // Every thread must call it, after the block is done with the tiles `scratch` overlaps.
  __device__ void write(double* out, int k, int w, double* scratch) const {
    constexpr int kLd = kWyMaxReflectors;
    if (active()) {
      const int lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
      const int j0 = first_row() + g, c0 = first_column() + 2 * t;
#pragma unroll
      for (int a = 0; a < kTj; ++a) {
#pragma unroll
        for (int b = 0; b < kTc; ++b) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            scratch[j0 + 16 * a + 8 * (e / 2) + (c0 + 8 * b + e % 2) * kLd] = sum[a][b][e];
          }
        }
      }
    }
    __syncthreads();
    for (int idx = int(threadIdx.x); idx < k * w; idx += kThreads) {
      out[idx] = scratch[idx % k + (idx / k) * kLd];
    }
  }
};

template <class T, int Q, int P>
using Product = std::conditional_t<std::is_same_v<T, double> && Q * P >= 2, MmaProduct<Q, P>,
                                   FmaProduct<T, Q, P>>;

// Element (i, c) of [V X] into `to`: columns c < prefix are V's, the rest X's column c - prefix.
// Stored values go by an asynchronous copy, so that they land while the block multiplies the
// tile before, and so do the zeros of rows past the end; V's ones and zeros above its diagonal
// by plain stores.
template <class T>
__device__ void stage_element(const Reflectors<T>& v, int prefix, const T* x, long long ldx, int c,
                              long long i, bool inside, T* to) {
  if (c >= prefix) {
    copy_async(to, inside ? x + i + (c - prefix) * ldx : x, inside);
  } else if (i + v.row0 > c || !inside) {
    copy_async(to, inside ? v.a + i + c * v.lda : v.a, inside);
  } else {
    *to = i + v.row0 == c ? T(1) : T(0);
  }
}

// The tile at row0 of [V X] into `tile`, laid out by Layout. Each thread keeps to one row, or
// group of rows that one copy moves; a group inside the matrix and below V's diagonal goes by
// one 16-byte copy where `wide` allows. A tile whose groups all go so (every tile but the first
// and last, in the usual call) takes them without the tests of each group.
template <class T, class Layout>
__device__ void stage(const Reflectors<T>& v, int prefix, const T* x, long long ldx, int columns,
                      long long end_row, long long row0, WideCopies wide, T* tile) {
  constexpr int kRows = Layout::kRowsPerCopy, kLines = kTileRows / kRows;
  constexpr int kStep = kThreads / kLines;
  static_assert(kThreads % kLines == 0, "threads keep to their rows");
  static_assert(kRows == 1 || kRows * sizeof(T) == 16, "a group of rows is one 16-byte copy");
  const int r = kRows * (int(threadIdx.x) % kLines), first = int(threadIdx.x) / kLines;
  const long long i = row0 + r;
  if constexpr (kRows > 1) {
    if ((prefix == 0 || wide.v) && (prefix == columns || wide.x) && row0 + kTileRows <= end_row &&
        row0 + v.row0 >= prefix) {
      // A thread's columns are first + kStep j for j < kWyMaxColumns / kStep at most, so that
      // bound and a break serve without working out each thread's count. Unrolled, the loop
      // made the narrow products spill.
#pragma unroll 1
      for (int j = 0; j < kWyMaxColumns / kStep; ++j) {
        const int c = first + kStep * j;
        if (c >= columns) break;
        copy_async_16(tile + Layout::at(r, c),
                      c < prefix ? v.a + i + c * v.lda : x + i + (c - prefix) * ldx);
      }
      return;
    }
  }
  const bool group_inside = i + kRows - 1 < end_row;
  for (int c = first; c < columns; c += kStep) {
    T* to = tile + Layout::at(r, c);
    if constexpr (kRows > 1) {
      const bool of_x = c >= prefix;
      if ((of_x ? wide.x : wide.v) && group_inside && (of_x || i + v.row0 > c)) {
        copy_async_16(to, of_x ? x + i + (c - prefix) * ldx : v.a + i + c * v.lda);
        continue;
      }
    }
    // A group's rows lie side by side in every layout.
#pragma unroll
    for (int e = 0; e < kRows; ++e) {
      stage_element(v, prefix, x, ldx, c, i + e, i + e < end_row, to + e);
    }
  }
}

// Tiles per buffer: V's and X's apart for V^T X; one for V^T V, and one [V X] for
// [V^T V | V^T X] (prefix > 0), whose first columns serve as V's. The kernel lays its shared
// memory out by this and the launcher sizes it by it.
__host__ __device__ inline int tiles_per_buffer(bool has_x, int prefix) {
  return has_x && prefix == 0 ? 2 : 1;
}

// The blocks an SM holds at once, which caps each thread's registers. Left to itself the
// compiler takes a few registers more than these counts allow, and an SM holds a block fewer.
// 64 x 64 products (Q = 4) need their registers: capped for three blocks they spill, and
// `dgeqrf` at 2^22 x 256 ran 2.5-3.5% slower than with two.
template <class T, int Q>
constexpr int kBlocksPerSm = sizeof(T) == 4 ? 5
                             : Q == 1       ? 4
                             : Q == 2       ? 3
                                            : 2;

template <class T, int Q, int P>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm<T, Q>)
    tall_product(Reflectors<T> v, int prefix, const T* x, long long ldx, int w, long long first_row,
                 long long end_row, WideCopies wide, T* partials) {
  // Two buffers, this tile's and the next's, of tiles_per_buffer tiles each.
  extern __shared__ __align__(128) unsigned char shared_memory[];
  T* const tiles = reinterpret_cast<T*>(shared_memory);
  const int per_buffer = tiles_per_buffer(x != nullptr, prefix);
  const bool separate_x = per_buffer == 2;
  const auto v_tile = [&](int b) { return tiles + b * per_buffer * kTile; };
  const auto x_tile = [&](int b) { return separate_x ? v_tile(b) + kTile : v_tile(b); };
  Product<T, Q, P> product;
  using Layout = typename decltype(product)::Layout;
  const long long block_first = first_row + (long long)blockIdx.x * kWyBlockRows;
  const long long block_end = min(block_first + kWyBlockRows, end_row);
  const auto stage_tiles = [&](long long row0, int b) {
    if (x && !separate_x) {
      stage<T, Layout>(v, prefix, x, ldx, w, block_end, row0, wide, v_tile(b));
    } else {
      stage<T, Layout>(v, v.k, nullptr, 0, v.k, block_end, row0, wide, v_tile(b));
      if (x) stage<T, Layout>(v, 0, x, ldx, w, block_end, row0, wide, x_tile(b));
    }
    __pipeline_commit();
  };
  stage_tiles(block_first, 0);
  int buffer = 0;
  for (long long row0 = block_first; row0 < block_end; row0 += kTileRows, buffer ^= 1) {
    __syncthreads();  // the other buffers' tile has been read
    const bool more = row0 + kTileRows < block_end;
    if (more) stage_tiles(row0 + kTileRows, buffer ^ 1);
    if (more) {
      __pipeline_wait_prior(1);
    } else {
      __pipeline_wait_prior(0);
    }
    __syncthreads();  // this tile is in place
    product.add(v_tile(buffer), x_tile(buffer));
  }
  __syncthreads();  // the tiles are free for the product's way out
  product.write(partials + (first_row / kWyBlockRows + blockIdx.x) * (long long)v.k * w, v.k, w,
                tiles);
}

// One warp per entry: lane l sums partials l, l + 32, ... in order, then the lanes' sums are
// added in a fixed tree, so the result is the same on every run. A thread per entry would
// leave the GPU nearly idle on a k x w result with thousands of partials to add.
constexpr int kSumWarps = 8;

template <class T>
__global__ void __launch_bounds__(32 * kSumWarps)
    sum_partials(const T* partials, int blocks, int entries, T* sum) {
  const int e = int(blockIdx.x) * kSumWarps + int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  if (e >= entries) return;
  T total = T(0);
  for (int b = lane; b < blocks; b += 32) total += partials[(long long)b * entries + e];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    total += __shfl_xor_sync(0xffffffffu, total, offset);
  }
  if (lane == 0) sum[e] = total;
}

template <class T, int Q, int P>
cudaError_t launch_tall_product(unsigned blocks, cudaStream_t stream, const Reflectors<T>& v,
                                int prefix, const T* x, long long ldx, int w, long long first_row,
                                long long end_row, WideCopies wide, T* partials) {
  // Two or four tiles, and room for the tensor-core product's 64 x 64 way out; the kernel
  // opts in for four, whatever this call takes (shared_memory_opt_in.cuh).
  const auto bytes_for = [](int tiles) {
    return int(sizeof(T)) * std::max(kTile * tiles, kWyMaxReflectors * kWyMaxReflectors);
  };
  const int bytes = bytes_for(2 * tiles_per_buffer(x != nullptr, prefix));
  const cudaError_t status = allow_shared_memory(tall_product<T, Q, P>, bytes_for(4));
  if (status != cudaSuccess) return status;
  tall_product<T, Q, P><<<blocks, kThreads, bytes, stream>>>(v, prefix, x, ldx, w, first_row,
                                                             end_row, wide, partials);
  return cudaGetLastError();
}

template <class T, int Q>
cudaError_t launch_tall_product(int p, unsigned blocks, cudaStream_t stream, const Reflectors<T>& v,
                                int prefix, const T* x, long long ldx, int w, long long first_row,
                                long long end_row, WideCopies wide, T* partials) {
  if (p == 1)
    return launch_tall_product<T, Q, 1>(blocks, stream, v, prefix, x, ldx, w, first_row, end_row,
                                        wide, partials);
  if (p == 2)
    return launch_tall_product<T, Q, 2>(blocks, stream, v, prefix, x, ldx, w, first_row, end_row,
                                        wide, partials);
  return launch_tall_product<T, Q, 4>(blocks, stream, v, prefix, x, ldx, w, first_row, end_row,
                                      wide, partials);
}

}  // namespace
}  // namespace wy

template <class T>
cudaError_t wy_tall_product(Reflectors<T> v, bool with_gram, long long m, const T* x, long long ldx,
                            int w, long long first_row, long long rows, T* partials,
                            cudaStream_t stream) {
  const long long end_row = std::min(first_row + rows, m);
  const long long blocks = (end_row - first_row + kWyBlockRows - 1) / kWyBlockRows;
  if (blocks <= 0) return cudaSuccess;
  const int prefix = x && with_gram ? v.k : 0;
  const int columns = x ? prefix + w : v.k, q = wy::sixteens(v.k), p = wy::sixteens(columns);
  const wy::WideCopies wide{wy::rows_start_on_16_bytes(v.a, v.lda, first_row),
                            wy::rows_start_on_16_bytes(x, ldx, first_row)};
  if (q == 1)
    return wy::launch_tall_product<T, 1>(p, unsigned(blocks), stream, v, prefix, x, ldx, columns,
                                         first_row, end_row, wide, partials);
  if (q == 2)
    return wy::launch_tall_product<T, 2>(p, unsigned(blocks), stream, v, prefix, x, ldx, columns,
                                         first_row, end_row, wide, partials);
  return wy::launch_tall_product<T, 4>(p, unsigned(blocks), stream, v, prefix, x, ldx, columns,
                                       first_row, end_row, wide, partials);
}

template <class T>
cudaError_t wy_sum_partials(const T* partials, int blocks, int entries, T* sum,
                            cudaStream_t stream) {
  constexpr int kWarps = wy::kSumWarps;
  wy::sum_partials<T>
      <<<(entries + kWarps - 1) / kWarps, 32 * kWarps, 0, stream>>>(partials, blocks, entries, sum);
  return cudaGetLastError();
}

template cudaError_t wy_tall_product<float>(Reflectors<float>, bool, long long, const float*,
                                            long long, int, long long, long long, float*,
                                            cudaStream_t);
template cudaError_t wy_tall_product<double>(Reflectors<double>, bool, long long, const double*,
                                             long long, int, long long, long long, double*,
                                             cudaStream_t);
template cudaError_t wy_sum_partials<float>(const float*, int, int, float*, cudaStream_t);
template cudaError_t wy_sum_partials<double>(const double*, int, int, double*, cudaStream_t);

}  // namespace switchyard::kernels
