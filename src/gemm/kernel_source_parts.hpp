#pragma once

// Pieces of OpenCL C shared by the TN kernel emitters: moving a k-slab of a packed operand from
// global into local memory (cp.async or staged through registers), and the order in which
// work-groups visit the tiles of C.
//
// A slab is `rows` k-rows of `cols` contiguous elements, taken from a row-major packed operand
// (leading dimension ld, a run-time kernel argument) and placed at row stride `ld_local` in a
// local array. It moves as 16-byte pieces: the work-group's threads cover a slab row after row,
// consecutive threads taking consecutive pieces, so every warp reads whole 128-byte lines.
//
// A swizzled slab keeps element (k, c) at k * ld_local + (c ^ 4 (k % 4)): within each group of
// 16 columns, row k's blocks of 4 elements trade places by k % 4. Readers that take rows k..k+3
// at the same 4 columns then meet 4 different banks without padding the rows (mma_kernel_source).
// Pieces stay whole (4 is a multiple of a piece's 2 or 4 elements), and a group of 16 columns
// stays in place, so 8 threads storing 8 consecutive pieces still fill distinct banks.

#include <functional>
#include <string>

namespace switchyard::gemm {

struct SlabCopy {
  char name;              // 'a' or 'b': the kernel argument it reads, and a prefix for names
  const char* type;       // "double" or "float"
  int elem_bytes;         // 8 or 4
  int rows, cols;         // bk x bm (or bk x bn)
  int ld_local;           // row stride of the slab in local memory, in elements
  int threads;            // work-group size
  bool async_copy;
  bool swizzle = false;   // the layout above; needs cols and ld_local multiples of 16
};

// Empty when the threads can share the slab's 16-byte pieces evenly, else why not.
std::string check(const SlabCopy& s);

// Empty when main_loop can take slabs a and b through `stages` buffers (cp.async: 2 or more;
// register staging: 1 or 2), both slabs pass check(), and tiles can be walked in strips of
// group_m tile-rows; else why not.
std::string check_pipeline(const SlabCopy& a, const SlabCopy& b, int stages, int group_m);

// Declarations at kernel start: this thread's first piece (its local offsets: one, or with a
// swizzle one per row pattern), and a pointer g<name> into the packed operand at the
// work-group's first slab (column offset `col0_expr`, rows from 0).
std::string slab_setup(const SlabCopy& s, const std::string& col0_expr);
// Copies the slab under g<name> into local array `local` at element offset `stage_offset` and
// advances g<name> to the next slab. Asynchronous: cp.async, completed by cp_async_wait().
std::string slab_issue_async(const SlabCopy& s, const std::string& local,
                             const std::string& stage_offset);
// Register staging: slab_registers declares the registers, slab_fetch loads the slab under
// g<name> into them (and advances), slab_store writes them into local memory.
std::string slab_registers(const SlabCopy& s);
std::string slab_fetch(const SlabCopy& s);
std::string slab_store(const SlabCopy& s, const std::string& local, const std::string& stage_offset);

// Macros CP_ASYNC_COMMIT() and CP_ASYNC_WAIT_<n>() for n < stages, and CP_ASYNC16(dst, src).
std::string cp_async_macros(int stages);

// The k loop over slabs: kt_count slabs of A' and B' (already declared) pass through `stages`
// local buffers, filled by cp.async (stages >= 2) or from registers (stages 1 or 2), and
// `compute(a_off, b_off)` emits the work on the buffers at those element offsets of a_local and
// b_local. With two or more buffers there is one barrier per slab: it publishes slab kt and also
// retires the buffer the next copy overwrites, which was last read before that barrier.
std::string main_loop(const SlabCopy& a, const SlabCopy& b, int stages,
                      const std::function<std::string(const std::string&, const std::string&)>&
                          compute);

// The TN kernel's split-K arguments (kernel_source.hpp), which every family appends to the
// route's others.
inline constexpr const char* kSliceArguments = "const int Ks, const long c_slice";

// Declares k0 and k_len, the k rows [k0, k0 + k_len) of the packed operands that this
// work-group's slice (get_group_id(2)) multiplies, and moves the pointer `c` to the slice's
// partial product (split_k.hpp). Shared by every family.
std::string slice_prologue(const std::string& c);

// The route's TN kernel head (kernel_source.hpp: name kTnKernel, its arguments, a work-group of
// `threads` x 1 work-items per tile of C and k slice, tiles (Mp / bm) x (Np / bn)), declaring
// also tid (the work-item in the group), k_pad (the slice's rows), lda = Mp and ldb = Np for the
// kernel body, and the pointers a, b (at the slice's first row) and c (at its partial) for Ap,
// Bp, C.
std::string tn_head(const char* type, int threads);

// Declares tile_m, tile_n (the tile of C this work-group computes, in tiles of bm x bn) from the
// group ids: strips of group_m tile-rows, each strip walked down its columns.
std::string tile_order(int bm, int bn, int group_m);

}  // namespace switchyard::gemm
