#include "gemm/inplace_kernel_source.hpp"

#include <string>

#include "gemm/mma_kernel_source.hpp"

namespace switchyard::gemm {
namespace {

std::string str(long v) { return std::to_string(v); }

constexpr int kWarpTile = 32;  // 2 x 2 warps of 32 x 32
constexpr int kPasses = kInplaceTile * kInplaceDepth / kInplaceThreads;  // loads per thread
constexpr int kTilesI = kWarpTile / 16, kTilesJ = kWarpTile / 8;  // m16n8 mma per warp tile
constexpr int kColumnsLd = kInplaceDepth + 4;  // local row of one column (columns slabs)
constexpr int kRowsLd = kInplaceTile + 4;      // local row of one k row (rows slabs)
// One slab buffer holds either layout.
constexpr int kSlab = kInplaceTile * kColumnsLd > kInplaceDepth * kRowsLd
                          ? kInplaceTile * kColumnsLd
                          : kInplaceDepth * kRowsLd;

// How one operand is read (inplace_kernel_source.hpp): x is 'a' or 'b', `edge` the extent of
// its side of C (m or n) and `first` the tile's first index along it.
struct OperandRead {
  char x;
  bool rows;  // tile index contiguous in memory; else k contiguous
  const char* edge;
  const char* first;
  std::string name() const { return std::string(1, x); }
  // Local offset of (tile index i, k row k) for integer expressions or constants.
  std::string local(const std::string& i, const std::string& k) const {
    return rows ? "(" + k + ") * " + str(kRowsLd) + " + " + i : "(" + i + ") * " + str(kColumnsLd) + " + " + k;
  }
  int local(int i, int k) const { return rows ? k * kRowsLd + i : i * kColumnsLd + k; }
};

// The copy's thread layout: a columns slab takes 16 threads per column (k row kk = tid % 16 of
// columns tid / 16 + 8 q), a rows slab 64 threads per k row (column tid % 64 of k rows
// tid / 64 + 2 q); pass q = 0..7 either way. Declares the thread's column offsets (clamped to
// the last column) and its local store offset.
std::string setup(const OperandRead& o) {
  const std::string n = o.name();
  std::string s;
  if (o.rows) {
    s += "  const int " + n + "_i = tid % " + str(kInplaceTile) + ", " + n + "_k = tid / " +
         str(kInplaceTile) + ";\n";
    s += "  const int " + n + "_col = min(" + std::string(o.first) + " + " + n + "_i, " + o.edge +
         " - 1);\n";
  } else {
    s += "  const int " + n + "_k = tid % " + str(kInplaceDepth) + ", " + n + "_i = tid / " +
         str(kInplaceDepth) + ";\n";
    for (int q = 0; q < kPasses; ++q)
      s += "  const long " + n + "_col" + str(q) + " = (long)min(" + o.first + " + " + n + "_i + " +
           str(q * kInplaceThreads / kInplaceDepth) + ", " + o.edge + " - 1) * ld" + n + ";\n";
  }
  s += "  const int " + n + "_store = " + o.local(n + "_i", n + "_k") + ";\n";
  s += "  __global const double* g" + n + " = " + n + " + " + n + "_offset + " +
       (o.rows ? "(long)k0 * ld" + n : std::string("k0")) + ";\n";
  return s;
}

// The k row within the slice of pass q, and the element it loads.
std::string pass_k(const OperandRead& o, int q) {
  const std::string n = o.name();
  return o.rows ? n + "_k + " + str(q * kInplaceThreads / kInplaceTile) : n + "_k";
}
int pass_i(const OperandRead& o, int q) {
  return o.rows ? 0 : q * kInplaceThreads / kInplaceDepth;
}

// Loads this thread's doubles of the slab at k step `step` into registers x0..x7, zero past
// the slice's end.
std::string fetch(const OperandRead& o, const std::string& step) {
  const std::string n = o.name();
  std::string s = "      {\n        const int base = (" + step + ") * " + str(kInplaceDepth) + ";\n";
  for (int q = 0; q < kPasses; ++q) {
    const std::string k = "base + " + pass_k(o, q);
    const std::string at = o.rows ? "(long)(" + k + ") * ld" + n + " + " + n + "_col"
                                  : n + "_col" + str(q) + " + " + k;
    s += "        " + n + str(q) + " = " + k + " < k_len ? g" + n + "[" + at + "] : 0.0;\n";
  }
  return s + "      }\n";
}

std::string store(const OperandRead& o, const std::string& buffer) {
  const std::string n = o.name();
  std::string s = "      {\n        __local double* l_ = " + n + "_local + (" + buffer + ") * " +
                  str(kSlab) + " + " + n + "_store;\n";
  for (int q = 0; q < kPasses; ++q) {
    const int k = o.rows ? q * kInplaceThreads / kInplaceTile : 0;
    s += "        l_[" + str(o.local(pass_i(o, q), k)) + "] = " + n + str(q) + ";\n";
  }
  return s + "      }\n";
}

// The m16n8k16 fragments of one slab and the warp tile's mma on them. Thread (g, t) reads
// A(i, k) at tile index i = g (+ 8, + 16 per tile), k rows t + 4 r; B(k, j) likewise (PTX
// ISA's f64 fragment maps); `x_frag` is the thread's (g, t) offset.
std::string multiply(const OperandRead& a, const OperandRead& b, const std::string& buffer) {
  std::string s = "    {\n";
  s += "      __local const double* as = a_local + (" + buffer + ") * " + str(kSlab) + ";\n";
  s += "      __local const double* bs = (one ? a_local : b_local) + (" + buffer + ") * " +
       str(kSlab) + ";\n";
  for (int i = 0; i < kTilesI; ++i)
    for (int r = 0; r < 8; ++r)
      s += "      const double a" + str(i) + "_" + str(r) + " = as[a_frag + " +
           str(a.local(i * 16 + 8 * (r % 2), 4 * (r / 2))) + "];\n";
  for (int j = 0; j < kTilesJ; ++j)
    for (int r = 0; r < 4; ++r)
      s += "      const double b" + str(j) + "_" + str(r) + " = bs[b_frag + " +
           str(b.local(j * 8, 4 * r)) + "];\n";
  for (int i = 0; i < kTilesI; ++i)
    for (int j = 0; j < kTilesJ; ++j) s += mma_statement(MmaShape::m16n8k16, i, j, 6);
  return s + "    }\n";
}

std::string registers(char x) {
  std::string s = "  double";
  for (int q = 0; q < kPasses; ++q) s += std::string(q ? ", " : " ") + x + str(q);
  return s + ";\n";
}

std::string kernel(char transa, char transb) {
  const OperandRead a{'a', transa == 'N', "m", "m0"};
  const OperandRead b{'b', transb != 'N', "n", "n0"};
  std::string s;
  s += "__kernel __attribute__((reqd_work_group_size(" + str(kInplaceThreads) + ", 1, 1)))\n";
  s += "void " + inplace_kernel_name(transa, transb) + "(const int K, const int m, const int n,\n";
  s += "    __global const double* restrict a, const long a_offset, const int lda,\n";
  s += "    __global const double* restrict b, const long b_offset, const int ldb,\n";
  s += "    const double alpha, const double beta, __global double* c, const long c_offset,\n";
  s += "    const int ldc, const int Ks, const long c_slice, const int same) {\n";
  s += "  __local double a_local[" + str(2 * kSlab) + "];\n";
  s += "  __local double b_local[" + str(2 * kSlab) + "];\n";
  s += "  const int tid = get_local_id(0);\n";
  s += "  const int slice = get_group_id(2);\n";
  s += "  const int k0 = slice * Ks, k_len = min(Ks, K - k0);\n";
  s += "  c += c_offset + (long)slice * c_slice;\n";
  s += "  const int m0 = get_group_id(0) * " + str(kInplaceTile) + ", n0 = get_group_id(1) * " +
       str(kInplaceTile) + ";\n";
  s += "  // A tile on the diagonal of a Gram product reads its one operand once.\n";
  s += "  const bool one = same && m0 == n0;\n";
  s += setup(a) + setup(b);
  s += registers('a') + registers('b');
  s += "  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;\n";
  s += "  const int warp_m = warp % 2, warp_n = warp / 2;\n";
  s += "  const int a_frag = " + a.local("warp_m * " + str(kWarpTile) + " + g", "t") + ";\n";
  s += "  const int b_frag = " + b.local("warp_n * " + str(kWarpTile) + " + g", "t") + ";\n";
  for (int i = 0; i < kTilesI; ++i)
    for (int j = 0; j < kTilesJ; ++j) {
      const std::string acc = "c" + str(i) + "_" + str(j) + "_";
      s += "  double " + acc + "0 = 0.0, " + acc + "1 = 0.0, " + acc + "2 = 0.0, " + acc +
           "3 = 0.0;\n";
    }
  s += "  const int steps = (k_len + " + str(kInplaceDepth - 1) + ") / " + str(kInplaceDepth) +
       ";\n";
  // Two buffers: slab kt + 1 is in registers while slab kt is multiplied, then stored into the
  // other buffer; one barrier per slab publishes it and retires the buffer read before.
  s += "  if (steps > 0) {\n" + fetch(a, "0") + "    if (!one) {\n" + fetch(b, "0") + "    }\n" +
       store(a, "0") + "    if (!one) {\n" + store(b, "0") + "    }\n  }\n";
  s += "  barrier(CLK_LOCAL_MEM_FENCE);\n";
  s += "  for (int kt = 0; kt < steps; ++kt) {\n";
  s += "    const int buffer = kt & 1;\n";
  s += "    const bool more = kt + 1 < steps;\n";
  s += "    if (more) {\n" + fetch(a, "kt + 1") + "      if (!one) {\n" + fetch(b, "kt + 1") +
       "      }\n    }\n";
  s += multiply(a, b, "buffer");
  s += "    if (more) {\n" + store(a, "buffer ^ 1") + "      if (!one) {\n" +
       store(b, "buffer ^ 1") + "      }\n    }\n";
  s += "    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
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
