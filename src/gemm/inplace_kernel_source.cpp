#include "gemm/inplace_kernel_source.hpp"

#include <string>

#include "gemm/mma_kernel_source.hpp"

namespace switchyard::gemm {
namespace {

std::string str(long v) { return std::to_string(v); }

constexpr int kWarpTile = 32;  // 2 x 2 warps of 32 x 32
constexpr int kPasses = kInplaceTile * kInplaceDepth / kInplaceThreads;  // copies per thread
constexpr int kTilesI = kWarpTile / 16, kTilesJ = kWarpTile / 8;  // m16n8 mma per warp tile
constexpr int kSlab = kInplaceTile * kInplaceDepth;               // doubles of one operand's slab
static_assert(kInplaceTile == 64 && kInplaceDepth == 16 && kInplaceThreads == 128,
              "the copies' thread layout and the swizzle below are written for these");

// How one operand is read (inplace_kernel_source.hpp): x is 'a' or 'b', `edge` the extent of
// its side of C (m or n) and `first` the tile's first index along it.
struct OperandRead {
  char x;
  bool rows;  // tile index contiguous in memory; else k contiguous
  const char* edge;
  const char* first;
  std::string name() const { return std::string(1, x); }
  // Local offset of (tile index i, k row k) in a slab: a columns slab keeps column i as 16
  // doubles, k XOR 4 (i & 3); a rows slab keeps k row k as 64 doubles, i XOR 4 (k & 3).
  std::string local(const std::string& i, const std::string& k) const {
    return rows ? "(" + k + ") * 64 + ((" + i + ") ^ ((" + k + ") & 3) << 2)"
                : "(" + i + ") * 16 + ((" + k + ") ^ ((" + i + ") & 3) << 2)";
  }
};

// The copies' thread layout: a columns slab takes 16 threads per column (k row tid % 16 of
// columns tid / 16 + 8 q), a rows slab 64 threads per k row (column tid % 64 of k rows
// tid / 64 + 2 q); pass q = 0..7 either way. Declares the thread's column offsets (clamped to
// the last column, so that they stay inside the operand), its local store offsets, and how many
// of the tile's columns from its first lie inside the edge.
std::string setup(const OperandRead& o) {
  const std::string n = o.name();
  std::string s;
  if (o.rows) {
    s += "  const int " + n + "_i = tid % 64, " + n + "_k = tid / 64;\n";
    s += "  const int " + n + "_col = min(" + std::string(o.first) + " + " + n + "_i, " + o.edge +
         " - 1);\n";
    // Pass q stores k row k + 2q, whose swizzle depends on q's parity.
    s += "  const int " + n + "_store0 = " + o.local(n + "_i", n + "_k") + ";\n";
    s += "  const int " + n + "_store1 = " + o.local(n + "_i", n + "_k + 2") + " - 128;\n";
  } else {
    s += "  const int " + n + "_k = tid % 16, " + n + "_i = tid / 16;\n";
    for (int q = 0; q < kPasses; ++q)
      s += "  const long " + n + "_col" + str(q) + " = (long)min(" + o.first + " + " + n + "_i + " +
           str(8 * q) + ", " + o.edge + " - 1) * ld" + n + ";\n";
    s += "  const int " + n + "_store0 = " + o.local(n + "_i", n + "_k") + ";\n";
  }
  s += "  const int " + n + "_left = " + o.edge + " - " + o.first + " - " + n + "_i;\n";
  s += "  __global const double* g" + n + " = " + n + " + " + n + "_offset + " +
       (o.rows ? "(long)k0 * ld" + n : std::string("k0")) + ";\n";
  return s;
}

// Starts the copies of this thread's doubles of slab `step` into stage `stage`. k rows past the
// slice's end and columns past the edge are filled with zeros (source size 0, the operand's
// start as the address) instead of read: those columns reach only entries of C that are not
// written, and a warp's copies of one clamped address would each go to memory.
std::string issue(const OperandRead& o, const std::string& step, const std::string& stage) {
  const std::string n = o.name();
  std::string s = "      {\n        const int base = (" + step + ") * " + str(kInplaceDepth) + ";\n";
  s += "        __local double* l_ = " + n + "_local + (" + stage + ") * " + str(kSlab) + ";\n";
  for (int q = 0; q < kPasses; ++q) {
    const std::string k = o.rows ? "base + " + n + "_k + " + str(2 * q) : "base + " + n + "_k";
    const std::string at = o.rows ? "(long)(" + k + ") * ld" + n + " + " + n + "_col"
                                  : n + "_col" + str(q) + " + " + k;
    const std::string to = o.rows ? "l_ + " + n + "_store" + str(q % 2) + " + " + str(128 * q)
                                  : "l_ + " + n + "_store0 + " + str(128 * q);
    const std::string inside = o.rows ? n + "_left > 0" : n + "_left > " + str(8 * q);
    s += "        {\n          const bool in_ = " + k + " < k_len && " + inside + ";\n";
    s += "          __asm__ __volatile__(\"cp.async.ca.shared.global [%0], [%1], 8, %2;\" :: "
         "\"r\"((uint)(size_t)(" +
         to + ")), \"l\"((ulong)(in_ ? g" + n + " + " + at + " : g" + n +
         ")), \"r\"(in_ ? 8 : 0) : \"memory\");\n        }\n";
  }
  return s + "      }\n";
}

// The thread's fragment offsets. Thread (g, t) reads A(i, k) at tile index i = g (+ 8, + 16 per
// tile), k rows t + 4 r, and B(k, j) likewise (PTX ISA's f64 fragment maps). In a columns slab
// (i, 4 q + t) lies at i * 16 + ((4 q ^ 4 (g & 3)) + t): fc_q holds g's part of that. In a rows
// slab (i, 4 q + t) lies at (4 q + t) * 64 + (i ^ 4 t), and the low four bits of i are 8 h + g:
// fr_h holds t's and g's part.
std::string fragment_offsets() {
  std::string s;
  for (int q = 0; q < 4; ++q)
    s += "  const int fc" + str(q) + " = g * 16 + ((" + str(4 * q) + " ^ ((g & 3) << 2)) + t);\n";
  for (int h = 0; h < 2; ++h)
    s += "  const int fr" + str(h) + " = t * 64 + ((" + str(8 * h) + " + g) ^ (t << 2));\n";
  return s;
}

// The offset of fragment element (tile index base16 + 8 h + g, k row 4 q + t) past the warp
// tile's first, base16 a multiple of 16.
std::string fragment_at(const OperandRead& o, int base16, int h, int q) {
  if (o.rows) return str(4 * q * 64 + base16) + " + fr" + str(h);
  return str((base16 + 8 * h) * 16) + " + fc" + str(q);
}

// The m16n8k16 fragments of one slab and the warp tile's mma on them.
std::string multiply(const OperandRead& a, const OperandRead& b, const std::string& stage) {
  std::string s = "    {\n";
  s += "      __local const double* as = a_local + (" + stage + ") * " + str(kSlab) + ";\n";
  s += "      __local const double* bs = (one ? a_local : b_local) + (" + stage + ") * " +
       str(kSlab) + ";\n";
  for (int i = 0; i < kTilesI; ++i)
    for (int r = 0; r < 8; ++r)
      s += "      const double a" + str(i) + "_" + str(r) + " = as[a_warp + " +
           fragment_at(a, i * 16, r % 2, r / 2) + "];\n";
  for (int j = 0; j < kTilesJ; ++j)
    for (int r = 0; r < 4; ++r)
      s += "      const double b" + str(j) + "_" + str(r) + " = bs[b_warp + " +
           fragment_at(b, (j / 2) * 16, j % 2, r) + "];\n";
  for (int i = 0; i < kTilesI; ++i)
    for (int j = 0; j < kTilesJ; ++j) s += mma_statement(MmaShape::m16n8k16, i, j, 6);
  return s + "    }\n";
}

// Starts the copies of slab `step` of both operands (of A alone on a Gram product's diagonal
// tile) into stage `stage`.
std::string issue_both(const OperandRead& a, const OperandRead& b, const std::string& step,
                       const std::string& stage) {
  return issue(a, step, stage) + "      if (!one) {\n" + issue(b, step, stage) + "      }\n";
}

std::string kernel(char transa, char transb) {
  const OperandRead a{'a', transa == 'N', "m", "m0"};
  const OperandRead b{'b', transb != 'N', "n", "n0"};
  const std::string ahead = str(kInplaceStages - 1), last = str(kInplaceStages - 1);
  std::string s;
  s += "__kernel __attribute__((reqd_work_group_size(" + str(kInplaceThreads) + ", 1, 1)))\n";
  s += "void " + inplace_kernel_name(transa, transb) + "(const int K, const int m, const int n,\n";
  s += "    __global const double* restrict a, const long a_offset, const int lda,\n";
  s += "    __global const double* restrict b, const long b_offset, const int ldb,\n";
  s += "    const double alpha, const double beta, __global double* c, const long c_offset,\n";
  s += "    const int ldc, const int Ks, const long c_slice, const int same) {\n";
  s += "  __local double a_local[" + str(kInplaceStages * kSlab) + "];\n";
  s += "  __local double b_local[" + str(kInplaceStages * kSlab) + "];\n";
  s += "  const int tid = get_local_id(0);\n";
  s += "  const int slice = get_group_id(2);\n";
  s += "  const int k0 = slice * Ks, k_len = min(Ks, K - k0);\n";
  s += "  c += c_offset + (long)slice * c_slice;\n";
  s += "  const int m0 = get_group_id(0) * " + str(kInplaceTile) + ", n0 = get_group_id(1) * " +
       str(kInplaceTile) + ";\n";
  s += "  // A tile on the diagonal of a Gram product reads its one operand once.\n";
  s += "  const bool one = same && m0 == n0;\n";
  s += setup(a) + setup(b);
  s += "  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;\n";
  s += "  const int warp_m = warp % 2, warp_n = warp / 2;\n";
  // A warp tile wholly past C's edge (a 32-wide C fills a quarter of the tile) only copies:
  // its products would be thrown away, and they would cost as much as the whole product.
  s += "  const bool idle = m0 + warp_m * " + str(kWarpTile) + " >= m || n0 + warp_n * " +
       str(kWarpTile) + " >= n;\n";
  s += fragment_offsets();
  // The offset of the warp tile's first tile index (a multiple of 32) in a slab.
  s += "  const int a_warp = warp_m * " + str(a.rows ? kWarpTile : kWarpTile * 16) + ";\n";
  s += "  const int b_warp = warp_n * " + str(b.rows ? kWarpTile : kWarpTile * 16) + ";\n";
  for (int i = 0; i < kTilesI; ++i)
    for (int j = 0; j < kTilesJ; ++j) {
      const std::string acc = "c" + str(i) + "_" + str(j) + "_";
      s += "  double " + acc + "0 = 0.0, " + acc + "1 = 0.0, " + acc + "2 = 0.0, " + acc +
           "3 = 0.0;\n";
    }
  s += "  const int steps = (k_len + " + str(kInplaceDepth - 1) + ") / " + str(kInplaceDepth) +
       ";\n";
  // Slabs 0 .. stages - 2 are in flight before the first product. At step kt, slab kt has
  // landed (this thread's copies by the wait, everyone's by the barrier, which also retires the
  // stage that step kt - 1 read), slab kt + stages - 1 goes into that stage, and slab kt is
  // multiplied. Every step commits one group of copies, empty or not, so that the wait counts
  // the same at every step.
  s += "  for (int p = 0; p < " + ahead + "; ++p) {\n";
  s += "    if (p < steps) {\n" + issue_both(a, b, "p", "p") + "    }\n";
  s += "    __asm__ __volatile__(\"cp.async.commit_group;\" ::: \"memory\");\n  }\n";
  s += "  int stage = 0, load_stage = " + ahead + ";\n";
  s += "  for (int kt = 0; kt < steps; ++kt) {\n";
  s += "    __asm__ __volatile__(\"cp.async.wait_group " + str(kInplaceStages - 2) +
       ";\" ::: \"memory\");\n";
  s += "    barrier(CLK_LOCAL_MEM_FENCE);\n";
  s += "    if (kt + " + ahead + " < steps) {\n" + issue_both(a, b, "kt + " + ahead, "load_stage") +
       "    }\n";
  s += "    __asm__ __volatile__(\"cp.async.commit_group;\" ::: \"memory\");\n";
  s += "    if (!idle)\n" + multiply(a, b, "stage");
  s += "    stage = stage == " + last + " ? 0 : stage + 1;\n";
  s += "    load_stage = load_stage == " + last + " ? 0 : load_stage + 1;\n";
  s += "  }\n";
  s += "  const int c_row0 = m0 + warp_m * " + str(kWarpTile) + " + g;\n";
  s += "  const int c_col0 = n0 + warp_n * " + str(kWarpTile) + " + 2 * t;\n";
  s += "  if (beta == 0.0) {\n" +
       warp_tile_epilogue(MmaShape::m16n8k16, kTilesI, kTilesJ, "c", false) + "  } else {\n" +
       warp_tile_epilogue(MmaShape::m16n8k16, kTilesI, kTilesJ, "c", true) + "  }\n";
  s += "}\n";
  return s;
}

}  // namespace

std::string inplace_kernel_name(char transa, char transb) {
  return std::string("gemm_inplace_") + (transa == 'N' ? "n" : "t") + (transb == 'N' ? "n" : "t");
}

std::string inplace_kernels_source() {
  std::string s = "// In-place kernels: C <- alpha op(A) op(B) + beta C, A and B read where they lie "
                  "(inplace_kernel_source.hpp).\n";
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) s += kernel(ta, tb);
  return s;
}

}  // namespace switchyard::gemm
