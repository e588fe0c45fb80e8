#include <string>

#include "gemm/inplace_kernel_source.hpp"

namespace switchyard::gemm {
namespace {

std::string str(long v) { return std::to_string(v); }

constexpr int kWarpTile = 32;                      // 2 x 2 warps of 32 x 32
constexpr int kRowsPerLane = 4, kColsPerLane = 8;  // a lane's 4 x 8 of its warp tile
constexpr int kPitch = kInplaceTile + 4;           // local row of one k row
constexpr int kSlab = kInplaceDepth * kPitch;      // floats of one operand's slab
constexpr int kPasses = kInplaceTile * kInplaceDepth / kInplaceThreads;  // copies per thread
static_assert(kInplaceTile == 64 && kInplaceDepth == 16 && kInplaceThreads == 128,
              "the copies' thread layout below is written for these");
static_assert(kWarpTile / kRowsPerLane * (kWarpTile / kColsPerLane) == 32, "a warp's lanes");

// How one operand is read (inplace_kernel_source.hpp): x is 'a' or 'b', `edge` the extent of
// its side of C (m or n) and `first` the tile's first index along it.
struct OperandRead {
  char x;
  bool rows;  // tile index contiguous in memory; else k contiguous
  const char* edge;
  const char* first;
  std::string name() const { return std::string(1, x); }
};

// The copies' thread layout, as the double kernels': a columns slab takes 16 threads per column
// (k row tid % 16 of columns tid / 16 + 8 q), a rows slab 64 threads per k row (column tid % 64
// of k rows tid / 64 + 2 q). Either way element (i, k) goes to local k * kPitch + i, which the
// products read four columns at a time.
std::string setup(const OperandRead& o) {
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
  s += "  const int " + n + "_store = " + n + "_k * " + str(kPitch) + " + " + n + "_i;\n";
  s += "  const int " + n + "_left = " + o.edge + " - " + o.first + " - " + n + "_i;\n";
  s += "  __global const float* g" + n + " = " + n + " + " + n + "_offset + " +
       (o.rows ? "(long)k0 * ld" + n : std::string("k0")) + ";\n";
  return s;
}

// Starts the copies of this thread's floats of slab `step` into stage `stage`; zeros past the
// slice's k rows and past the edge, as in the double kernels.
std::string issue(const OperandRead& o, const std::string& step, const std::string& stage) {
  const std::string n = o.name();
  std::string s =
      "      {\n        const int base = (" + step + ") * " + str(kInplaceDepth) + ";\n";
  s += "        __local float* l_ = " + n + "_local + (" + stage + ") * " + str(kSlab) + " + " + n +
       "_store;\n";
  for (int q = 0; q < kPasses; ++q) {
    const std::string k = o.rows ? "base + " + n + "_k + " + str(2 * q) : "base + " + n + "_k";
    const std::string at = o.rows ? "(long)(" + k + ") * ld" + n + " + " + n + "_col"
                                  : n + "_col" + str(q) + " + " + k;
    const int to = o.rows ? 2 * q * kPitch : 8 * q;
    const std::string inside = o.rows ? n + "_left > 0" : n + "_left > " + str(8 * q);
    s += "        {\n          const bool in_ = " + k + " < k_len && " + inside + ";\n";
    s += "          __asm__ __volatile__(\"cp.async.ca.shared.global [%0], [%1], 4, %2;\" :: "
         "\"r\"((uint)(size_t)(l_ + " +
         str(to) + ")), \"l\"((ulong)(in_ ? g" + n + " + " + at + " : g" + n +
         ")), \"r\"(in_ ? 4 : 0) : \"memory\");\n        }\n";
  }
  return s + "      }\n";
}

std::string issue_both(const OperandRead& a, const OperandRead& b, const std::string& step,
                       const std::string& stage) {
  return issue(a, step, stage) + "      if (!one) {\n" + issue(b, step, stage) + "      }\n";
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
  const std::string ahead = str(kInplaceFloatStages - 1), last = str(kInplaceFloatStages - 1);
  std::string s;
  s += "__kernel __attribute__((reqd_work_group_size(" + str(kInplaceThreads) + ", 1, 1)))\n";
  s += "void " + inplace_kernel_name(transa, transb) + "(const int K, const int m, const int n,\n";
  s += "    __global const float* restrict a, const long a_offset, const int lda,\n";
  s += "    __global const float* restrict b, const long b_offset, const int ldb,\n";
  s += "    const float alpha, const float beta, __global float* c, const long c_offset,\n";
  s += "    const int ldc, const int Ks, const long c_slice, const int same) {\n";
  s += "  __local float a_local[" + str(kInplaceFloatStages * kSlab) +
       "] __attribute__((aligned(16)));\n";
  s += "  __local float b_local[" + str(kInplaceFloatStages * kSlab) +
       "] __attribute__((aligned(16)));\n";
  s += "  const int tid = get_local_id(0);\n";
  s += "  const int slice = get_group_id(2);\n";
  s += "  const int k0 = slice * Ks, k_len = min(Ks, K - k0);\n";
  s += "  c += c_offset + (long)slice * c_slice;\n";
  s += "  const int m0 = get_group_id(0) * " + str(kInplaceTile) + ", n0 = get_group_id(1) * " +
       str(kInplaceTile) + ";\n";
  s += "  // A tile on the diagonal of a Gram product reads its one operand once.\n";
  s += "  const bool one = same && m0 == n0;\n";
  s += setup(a) + setup(b);
  s += "  const int warp = tid / 32, lane = tid % 32;\n";
  s += "  const int warp_m = warp % 2, warp_n = warp / 2;\n";
  s += "  // A warp tile wholly past C's edge only copies.\n";
  s += "  const bool idle = m0 + warp_m * " + str(kWarpTile) + " >= m || n0 + warp_n * " +
       str(kWarpTile) + " >= n;\n";
  s += "  const int a_frag = warp_m * " + str(kWarpTile) + " + (lane % 8) * " + str(kRowsPerLane) +
       ";\n";
  s += "  const int b_frag = warp_n * " + str(kWarpTile) + " + (lane / 8) * " + str(kColsPerLane) +
       ";\n";
  for (int r = 0; r < kRowsPerLane; ++r) {
    s += "  float";
    for (int c = 0; c < kColsPerLane; ++c) s += std::string(c ? ", " : " ") + acc(r, c) + " = 0.0f";
    s += ";\n";
  }
  s += "  const int steps = (k_len + " + str(kInplaceDepth - 1) + ") / " + str(kInplaceDepth) +
       ";\n";
  // The pipeline of the double kernels, kInplaceFloatStages deep.
  s += "  for (int p = 0; p < " + ahead + "; ++p) {\n";
  s += "    if (p < steps) {\n" + issue_both(a, b, "p", "p") + "    }\n";
  s += "    __asm__ __volatile__(\"cp.async.commit_group;\" ::: \"memory\");\n  }\n";
  s += "  int stage = 0, load_stage = " + ahead + ";\n";
  s += "  for (int kt = 0; kt < steps; ++kt) {\n";
  s += "    __asm__ __volatile__(\"cp.async.wait_group " + str(kInplaceFloatStages - 2) +
       ";\" ::: \"memory\");\n";
  s += "    barrier(CLK_LOCAL_MEM_FENCE);\n";
  s += "    if (kt + " + ahead + " < steps) {\n" + issue_both(a, b, "kt + " + ahead, "load_stage") +
       "    }\n";
  s += "    __asm__ __volatile__(\"cp.async.commit_group;\" ::: \"memory\");\n";
  s += "    if (!idle)\n" + multiply("stage");
  s += "    stage = stage == " + last + " ? 0 : stage + 1;\n";
  s += "    load_stage = load_stage == " + last + " ? 0 : load_stage + 1;\n";
  s += "  }\n";
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
