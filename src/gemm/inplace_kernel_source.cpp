#include "gemm/inplace_kernel_source.hpp"

#include <string>

#include "gemm/inplace_kernel_parts.hpp"
#include "gemm/mma_kernel_source.hpp"

namespace switchyard::gemm {
namespace {

using inplace::kWarpTile;
using inplace::OperandRead;
using inplace::str;

constexpr int kTilesI = kWarpTile / 16, kTilesJ = kWarpTile / 8;  // m16n8 mma per warp tile
constexpr int kSlab = kInplaceTile * kInplaceDepth;               // doubles of one operand's slab

// Local offset of (tile index i, k row k) in a slab: a columns slab keeps column i as 16
// doubles, k XOR 4 (i & 3); a rows slab keeps k row k as 64 doubles, i XOR 4 (k & 3).
std::string local(const OperandRead& o, const std::string& i, const std::string& k) {
  return o.rows ? "(" + k + ") * 64 + ((" + i + ") ^ ((" + k + ") & 3) << 2)"
                : "(" + i + ") * 16 + ((" + k + ") ^ ((" + i + ") & 3) << 2)";
}

// The copies' thread layout (inplace::thread_layout) and the thread's local store offsets: in a
// rows slab pass q stores k row k + 2q, whose swizzle depends on q's parity.
std::string setup(const OperandRead& o) {
  const std::string n = o.name();
  std::string s = inplace::thread_layout(o);
  s += "  const int " + n + "_store0 = " + local(o, n + "_i", n + "_k") + ";\n";
  if (o.rows)
    s += "  const int " + n + "_store1 = " + local(o, n + "_i", n + "_k + 2") + " - 128;\n";
  return s + inplace::slice_start(o, "double");
}

// Starts the copies of this thread's doubles of slab `step` into stage `stage`.
std::string issue(const OperandRead& o, const std::string& step, const std::string& stage) {
  const std::string n = o.name();
  return inplace::issue(o, "double", 8, kSlab, step, stage, "", [&](int q) {
    return n + "_store" + str(o.rows ? q % 2 : 0) + " + " + str(128 * q);
  });
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

std::string kernel(char transa, char transb) {
  const OperandRead a{'a', transa == 'N', "m", "m0"};
  const OperandRead b{'b', transb != 'N', "n", "n0"};
  std::string s =
      inplace::head("double", transa, transb,
                    "  __local double a_local[" + str(kInplaceStages * kSlab) +
                        "];\n  __local double b_local[" + str(kInplaceStages * kSlab) + "];\n");
  s += setup(a) + setup(b);
  s += "  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;\n";
  s += "  const int warp_m = warp % 2, warp_n = warp / 2;\n";
  s += inplace::idle();
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
  s += inplace::pipeline(kInplaceStages, a, b, issue, multiply(a, b, "stage"));
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
  std::string s =
      "// In-place kernels: C <- alpha op(A) op(B) + beta C, A and B read where they lie "
      "(inplace_kernel_source.hpp).\n";
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) s += kernel(ta, tb);
  return s;
}

}  // namespace switchyard::gemm
