#include <string>

#include "gemm/inplace_kernel_parts.hpp"
#include "gemm/inplace_kernel_source.hpp"

namespace switchyard::gemm {
namespace {

using inplace::kWarpTile;
using inplace::OperandRead;
using inplace::str;

constexpr int kRowsPerLane = 4, kColsPerLane = 8;  // a lane's 4 x 8 of its warp tile
constexpr int kPitch = kInplaceTile + 4;           // local row of one k row
constexpr int kSlab = kInplaceDepth * kPitch;      // floats of one operand's slab
static_assert(kWarpTile / kRowsPerLane * (kWarpTile / kColsPerLane) == 32, "a warp's lanes");

// The copies' thread layout, as the double kernels' (inplace::thread_layout); element (i, k)
// goes to local k * kPitch + i, which the products read four columns at a time.
std::string setup(const OperandRead& o) {
  const std::string n = o.name();
  return inplace::thread_layout(o) + "  const int " + n + "_store = " + n + "_k * " + str(kPitch) +
         " + " + n + "_i;\n" + inplace::slice_start(o, "float");
}

// Starts the copies of this thread's floats of slab `step` into stage `stage`.
std::string issue(const OperandRead& o, const std::string& step, const std::string& stage) {
  return inplace::issue(o, "float", 4, kSlab, step, stage, " + " + o.name() + "_store",
                        [&](int q) { return str(o.rows ? 2 * q * kPitch : 8 * q); });
}

std::string acc(int r, int c) { return "c" + str(r) + "_" + str(c); }

// A lane's 4 x 8 of the warp tile over one slab: per k row, its four rows of op(A) and eight
// columns of op(B) as three 16-byte local reads (the lanes that share them read them at once).
std::string multiply(const std::string& stage) {
  std::string s = "    {\n";
  s += "      __local const float* as = a_local + (" + stage + ") * " + str(kSlab) + " + a_frag;\n";
  s += "      __local const float* bs = (one ? a_local : b_local) + (" + stage + ") * " +
       str(kSlab) + " + b_frag;\n";
  s += "      #pragma unroll\n";
  s += "      for (int kk = 0; kk < " + str(kInplaceDepth) + "; ++kk) {\n";
  s += "        const float4 x = *(__local const float4*)(as + kk * " + str(kPitch) + ");\n";
  s += "        const float4 y0 = *(__local const float4*)(bs + kk * " + str(kPitch) + ");\n";
  s += "        const float4 y1 = *(__local const float4*)(bs + kk * " + str(kPitch) + " + 4);\n";
  const char* lane[4] = {"x", "y", "z", "w"};
  for (int r = 0; r < kRowsPerLane; ++r)
    for (int c = 0; c < kColsPerLane; ++c)
      s += "        " + acc(r, c) + " = fma(x." + lane[r] + ", " + (c < 4 ? "y0." : "y1.") +
           lane[c % 4] + ", " + acc(r, c) + ");\n";
  s += "      }\n    }\n";
  return s;
}

// Each entry of C the lane holds, inside m x n: `statement(at, acc)` with at its index in c.
template <class Statement>
std::string each_entry(const Statement& statement) {
  std::string s;
  for (int r = 0; r < kRowsPerLane; ++r)
    for (int c = 0; c < kColsPerLane; ++c) {
      s += "    if (c_row0 + " + str(r) + " < m && c_col0 + " + str(c) + " < n) " +
           statement("c_row0 + " + str(r) + " + (long)(c_col0 + " + str(c) + ") * ldc", acc(r, c)) +
           "\n";
    }
  return s;
}

std::string kernel(char transa, char transb) {
  const OperandRead a{'a', transa == 'N', "m", "m0"};
  const OperandRead b{'b', transb != 'N', "n", "n0"};
  std::string s =
      inplace::head("float", transa, transb,
                    "  __local float a_local[" + str(kInplaceFloatStages * kSlab) +
                        "] __attribute__((aligned(16)));\n  __local float b_local[" +
                        str(kInplaceFloatStages * kSlab) + "] __attribute__((aligned(16)));\n");
  s += setup(a) + setup(b);
  s += "  const int warp = tid / 32, lane = tid % 32;\n";
  s += "  const int warp_m = warp % 2, warp_n = warp / 2;\n";
  s += inplace::idle();
  s += "  const int a_frag = warp_m * " + str(kWarpTile) + " + (lane % 8) * " + str(kRowsPerLane) +
       ";\n";
  s += "  const int b_frag = warp_n * " + str(kWarpTile) + " + (lane / 8) * " + str(kColsPerLane) +
       ";\n";
  for (int r = 0; r < kRowsPerLane; ++r) {
    s += "  float";
    for (int c = 0; c < kColsPerLane; ++c) s += std::string(c ? ", " : " ") + acc(r, c) + " = 0.0f";
    s += ";\n";
  }
  s += inplace::pipeline(kInplaceFloatStages, a, b, issue, multiply("stage"));
  s += "  const int c_row0 = a_frag + m0, c_col0 = b_frag + n0;\n";
  s += "  if (beta == 0.0f) {\n";
  s += each_entry([](const std::string& at, const std::string& x) {
    return "c[" + at + "] = alpha * " + x + ";";
  });
  // Every read of C before any write, as in the double kernels.
  s += "  } else {\n";
  s += each_entry([](const std::string& at, const std::string& x) {
    return x + " = alpha * " + x + " + beta * c[" + at + "];";
  });
  s += each_entry(
      [](const std::string& at, const std::string& x) { return "c[" + at + "] = " + x + ";"; });
  s += "  }\n}\n";
  return s;
}

}  // namespace

std::string inplace_float_kernels_source() {
  std::string s = "// In-place kernels, single precision on FMAs (inplace_kernel_source.hpp).\n";
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) s += kernel(ta, tb);
  return s;
}

}  // namespace switchyard::gemm
