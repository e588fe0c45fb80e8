#pragma once

// What the double (inplace_kernel_source.cpp) and single-precision
// (inplace_float_kernel_source.cpp) in-place kernels share: how an operand is read, the copies'
// thread layout and zero fill, the kernel's head, and the cp.async pipeline. They differ in how
// a slab lies in local memory, in the product and in the way out.

#include <functional>
#include <string>

#include "gemm/inplace_kernel_source.hpp"

namespace switchyard::gemm::inplace {

inline std::string str(long v) { return std::to_string(v); }

constexpr int kWarpTile = 32;                                            // 2 x 2 warps of 32 x 32
constexpr int kPasses = kInplaceTile * kInplaceDepth / kInplaceThreads;  // copies per thread
static_assert(kInplaceTile == 64 && kInplaceDepth == 16 && kInplaceThreads == 128,
              "the copies' thread layout below is written for these");

// How one operand is read (inplace_kernel_source.hpp): x is 'a' or 'b', `edge` the extent of
// its side of C (m or n) and `first` the tile's first index along it.
struct OperandRead {
  char x;
  bool rows;  // tile index contiguous in memory; else k contiguous
  const char* edge;
  const char* first;
  std::string name() const { return std::string(1, x); }
};

// The copies' thread layout: a columns slab takes 16 threads per column (k row tid % 16 of
// columns tid / 16 + 8 q), a rows slab 64 threads per k row (column tid % 64 of k rows
// tid / 64 + 2 q); pass q = 0..7 either way. Declares the thread's tile index and k row, and
// its column offsets, clamped to the last column so that they stay inside the operand.
inline std::string thread_layout(const OperandRead& o) {
  const std::string n = o.name();
  std::string s;
  if (o.rows) {
    s += "  const int " + n + "_i = tid % 64, " + n + "_k = tid / 64;\n";
    s += "  const int " + n + "_col = min(" + std::string(o.first) + " + " + n + "_i, " + o.edge +
         " - 1);\n";
  } else {
    s += "  const int " + n + "_k = tid % 16, " + n + "_i = tid / 16;\n";
    for (int q = 0; q < kPasses; ++q)
      s += "  const long " + n + "_col" + str(q) + " = (long)min(" + o.first + " + " + n + "_i + " +
           str(8 * q) + ", " + o.edge + " - 1) * ld" + n + ";\n";
  }
  return s;
}

// How many of the tile's columns from the thread's lie inside the edge, and the start of the
// operand's k slice.
inline std::string slice_start(const OperandRead& o, const char* type) {
  const std::string n = o.name();
  return "  const int " + n + "_left = " + o.edge + " - " + o.first + " - " + n + "_i;\n" +
         "  __global const " + type + "* g" + n + " = " + n + " + " + n + "_offset + " +
         (o.rows ? "(long)k0 * ld" + n : std::string("k0")) + ";\n";
}

// Starts the copies of this thread's elements (of `bytes` each) of slab `step` into stage
// `stage` of `slab` elements: pass q's goes to l_ + to(q). k rows past the slice's end and
// columns past the edge are filled with zeros (source size 0, the operand's start as the
// address) instead of read: those columns reach only entries of C that are not written, and a
// warp's copies of one clamped address would each go to memory. `at_store` is added to l_.
inline std::string issue(const OperandRead& o, const char* type, int bytes, int slab,
                         const std::string& step, const std::string& stage,
                         const std::string& at_store, const std::function<std::string(int)>& to) {
  const std::string n = o.name();
  std::string s =
      "      {\n        const int base = (" + step + ") * " + str(kInplaceDepth) + ";\n";
  s += "        __local " + std::string(type) + "* l_ = " + n + "_local + (" + stage + ") * " +
       str(slab) + at_store + ";\n";
  for (int q = 0; q < kPasses; ++q) {
    const std::string k = o.rows ? "base + " + n + "_k + " + str(2 * q) : "base + " + n + "_k";
    const std::string at = o.rows ? "(long)(" + k + ") * ld" + n + " + " + n + "_col"
                                  : n + "_col" + str(q) + " + " + k;
    const std::string inside = o.rows ? n + "_left > 0" : n + "_left > " + str(8 * q);
    s += "        {\n          const bool in_ = " + k + " < k_len && " + inside + ";\n";
    s += "          __asm__ __volatile__(\"cp.async.ca.shared.global [%0], [%1], " + str(bytes) +
         ", %2;\" :: \"r\"((uint)(size_t)(l_ + " + to(q) + ")), \"l\"((ulong)(in_ ? g" + n + " + " +
         at + " : g" + n + ")), \"r\"(in_ ? " + str(bytes) + " : 0) : \"memory\");\n        }\n";
  }
  return s + "      }\n";
}

// The kernel's arguments (inplace_kernel_source.hpp), `locals` (its local arrays), and where
// its work-group lies: its k slice, its tile of C and whether it is a Gram product's diagonal.
inline std::string head(const char* type, char transa, char transb, const std::string& locals) {
  const std::string t = type;
  std::string s;
  s += "__kernel __attribute__((reqd_work_group_size(" + str(kInplaceThreads) + ", 1, 1)))\n";
  s += "void " + inplace_kernel_name(transa, transb) + "(const int K, const int m, const int n,\n";
  s += "    __global const " + t + "* restrict a, const long a_offset, const int lda,\n";
  s += "    __global const " + t + "* restrict b, const long b_offset, const int ldb,\n";
  s += "    const " + t + " alpha, const " + t + " beta, __global " + t +
       "* c, const long c_offset,\n";
  s += "    const int ldc, const int Ks, const long c_slice, const int same) {\n";
  s += locals;
  s += "  const int tid = get_local_id(0);\n";
  s += "  const int slice = get_group_id(2);\n";
  s += "  const int k0 = slice * Ks, k_len = min(Ks, K - k0);\n";
  s += "  c += c_offset + (long)slice * c_slice;\n";
  s += "  const int m0 = get_group_id(0) * " + str(kInplaceTile) + ", n0 = get_group_id(1) * " +
       str(kInplaceTile) + ";\n";
  s += "  // A tile on the diagonal of a Gram product reads its one operand once.\n";
  s += "  const bool one = same && m0 == n0;\n";
  return s;
}

// Whether the warp's 32 x 32 tile lies wholly past C's edge (a 32-wide C fills a quarter of the
// tile): such a warp only copies, since its products would be thrown away and would cost as
// much as the whole product. Needs warp_m and warp_n.
inline std::string idle() {
  return "  // A warp tile wholly past C's edge only copies.\n"
         "  const bool idle = m0 + warp_m * " +
         str(kWarpTile) + " >= m || n0 + warp_n * " + str(kWarpTile) + " >= n;\n";
}

// The steps over the slice, `stages` slabs in local memory. Slabs 0 .. stages - 2 are in
// flight before the first product. At step kt, slab kt has landed (this thread's copies by the
// wait, everyone's by the barrier, which also retires the stage that step kt - 1 read), slab
// kt + stages - 1 goes into that stage, and slab kt is multiplied by `product` (on stage
// `stage`) unless the warp is idle. Every step commits one group of copies, empty or not, so
// that the wait counts the same at every step. issue(o, step, stage) starts the copies of
// operand o's slab; a tile on a Gram product's diagonal copies A's alone.
inline std::string pipeline(int stages, const OperandRead& a, const OperandRead& b,
                            const std::function<std::string(const OperandRead&, const std::string&,
                                                            const std::string&)>& issue,
                            const std::string& product) {
  const auto issue_both = [&](const std::string& step, const std::string& stage) {
    return issue(a, step, stage) + "      if (!one) {\n" + issue(b, step, stage) + "      }\n";
  };
  const std::string ahead = str(stages - 1);
  std::string s = "  const int steps = (k_len + " + str(kInplaceDepth - 1) + ") / " +
                  str(kInplaceDepth) + ";\n";
  s += "  for (int p = 0; p < " + ahead + "; ++p) {\n";
  s += "    if (p < steps) {\n" + issue_both("p", "p") + "    }\n";
  s += "    __asm__ __volatile__(\"cp.async.commit_group;\" ::: \"memory\");\n  }\n";
  s += "  int stage = 0, load_stage = " + ahead + ";\n";
  s += "  for (int kt = 0; kt < steps; ++kt) {\n";
  s += "    __asm__ __volatile__(\"cp.async.wait_group " + str(stages - 2) +
       ";\" ::: \"memory\");\n";
  s += "    barrier(CLK_LOCAL_MEM_FENCE);\n";
  s += "    if (kt + " + ahead + " < steps) {\n" + issue_both("kt + " + ahead, "load_stage") +
       "    }\n";
  s += "    __asm__ __volatile__(\"cp.async.commit_group;\" ::: \"memory\");\n";
  s += "    if (!idle)\n" + product;
  s += "    stage = stage == " + ahead + " ? 0 : stage + 1;\n";
  s += "    load_stage = load_stage == " + ahead + " ? 0 : load_stage + 1;\n";
  s += "  }\n";
  return s;
}

}  // namespace switchyard::gemm::inplace
