#include "gemm/ffma_kernel_source.hpp"

#include <string>

#include "gemm/kernel_source_parts.hpp"

namespace switchyard::gemm {
namespace {

std::string str(int v) { return std::to_string(v); }

SlabCopy slab(const FfmaKernelParams& p, char name) {
  const int cols = name == 'a' ? p.bm : p.bn;
  return {name, "float", 4, p.bk, cols, cols, threads(p), p.async_copy};
}

std::string acc(int u, int v) { return "c" + str(u) + "_" + str(v); }

const char* lane(int e) {
  static const char* const names[] = {".s0", ".s1", ".s2", ".s3"};
  return names[e];
}

// Piece strides: a thread's float4 pieces of A' lie a_stride elements apart, of B' b_stride.
int a_stride(const FfmaKernelParams& p) { return 4 * (p.bm / p.tm); }
int b_stride(const FfmaKernelParams& p) { return 4 * (p.bn / p.tn); }

std::string compute_stage(const FfmaKernelParams& p, const std::string& a_stage,
                          const std::string& b_stage) {
  std::string o = "    {\n";
  o += "      __local const float* ap = a_local + (" + a_stage + ") + a_frag0;\n";
  o += "      __local const float* bp = b_local + (" + b_stage + ") + b_frag0;\n";
  for (int kk = 0; kk < p.bk; ++kk) {
    o += "      {\n";
    for (int ci = 0; ci < p.tm / 4; ++ci)
      o += "        const float4 a" + str(ci) + " = *(__local const float4*)(ap + " +
           str(kk * p.bm + ci * a_stride(p)) + ");\n";
    for (int di = 0; di < p.tn / 4; ++di)
      o += "        const float4 b" + str(di) + " = *(__local const float4*)(bp + " +
           str(kk * p.bn + di * b_stride(p)) + ");\n";
    for (int u = 0; u < p.tm; ++u)
      for (int v = 0; v < p.tn; ++v)
        o += "        " + acc(u, v) + " = fma(a" + str(u / 4) + lane(u % 4) + ", b" +
             str(v / 4) + lane(v % 4) + ", " + acc(u, v) + ");\n";
    o += "      }\n";
  }
  return o + "    }\n";
}

// One pass over the thread's entries of C inside m x n, `statement` giving each one's code from
// its row expression and accumulator.
template <class Statement>
std::string each_entry(const FfmaKernelParams& p, const Statement& statement) {
  std::string o;
  for (int v = 0; v < p.tn; ++v) {
    const std::string col = "c_col0 + " + str((v / 4) * b_stride(p) + v % 4);
    o += "    if (" + col + " < n) {\n";
    o += "      __global float* cc = cb + (size_t)(" + col + ") * ldc;\n";
    for (int u = 0; u < p.tm; ++u) {
      const std::string row = "c_row0 + " + str((u / 4) * a_stride(p) + u % 4);
      o += "      if (" + row + " < m) " + statement(row, acc(u, v)) + ";\n";
    }
    o += "    }\n";
  }
  return o;
}

std::string epilogue(const FfmaKernelParams& p, bool with_beta) {
  if (!with_beta) {
    return each_entry(p, [](const std::string& row, const std::string& a) {
      return "cc[" + row + "] = alpha * " + a;
    });
  }
  // Every read of C before any write, as in the mma kernels' epilogue (warp_tile_epilogue).
  return each_entry(p, [](const std::string& row, const std::string& a) {
           return a + " = alpha * " + a + " + beta * cc[" + row + "]";
         }) +
         each_entry(p, [](const std::string& row, const std::string& a) {
           return "cc[" + row + "] = " + a;
         });
}

}  // namespace

int threads(const FfmaKernelParams& p) {
  if (p.tm <= 0 || p.tn <= 0) return 0;
  return (p.bm / p.tm) * (p.bn / p.tn);
}

std::size_t local_memory_bytes(const FfmaKernelParams& p) {
  return std::size_t(p.stages) * p.bk * (p.bm + p.bn) * sizeof(float);
}

std::string check(const FfmaKernelParams& p) {
  if (p.bm <= 0 || p.bn <= 0 || p.bk <= 0 || p.tm <= 0 || p.tn <= 0) return "non-positive tile";
  if (p.tm % 4 != 0 || p.tn % 4 != 0) return "thread tile not a multiple of 4";
  if (p.bm % p.tm != 0 || p.bn % p.tn != 0) return "block tile not a multiple of the thread tile";
  if (p.warp_rows <= 0 || 32 % p.warp_rows != 0) return "warp_rows does not divide 32";
  const int t = threads(p);
  if (t % 32 != 0 || t > 1024) return "threads not a multiple of 32 up to 1024";
  if ((p.bm / p.tm) % p.warp_rows != 0 || (p.bn / p.tn) % (32 / p.warp_rows) != 0)
    return "thread grid not a multiple of the warp's shape";
  return check_pipeline(slab(p, 'a'), slab(p, 'b'), p.stages, p.group_m);
}

std::string name(const FfmaKernelParams& p) {
  return str(p.bm) + "x" + str(p.bn) + "x" + str(p.bk) + "_t" + str(p.tm) + "x" + str(p.tn) +
         "_l" + str(p.warp_rows) + (p.async_copy ? "_s" : "_r") + str(p.stages) + "_g" +
         str(p.group_m);
}

std::string ffma_kernel_source(const FfmaKernelParams& p) {
  const SlabCopy sa = slab(p, 'a'), sb = slab(p, 'b');
  const int stage_a = p.bk * p.bm, stage_b = p.bk * p.bn;
  const int warps_m = (p.bm / p.tm) / p.warp_rows;

  std::string o;
  o += "// TN kernel " + name(p) + ": C <- alpha A'^T B' + beta C in FP32 FMAs.\n";
  if (p.async_copy) o += cp_async_macros(p.stages);
  o += tn_head("float", threads(p));
  o += "  __local float a_local[" + str(p.stages * stage_a) + "] __attribute__((aligned(16)));\n";
  o += "  __local float b_local[" + str(p.stages * stage_b) + "] __attribute__((aligned(16)));\n";
  o += "  const int warp = tid >> 5, lane = tid & 31;\n";
  o += "  const int tr = (warp % " + str(warps_m) + ") * " + str(p.warp_rows) + " + lane % " +
       str(p.warp_rows) + ";\n";
  o += "  const int tc = (warp / " + str(warps_m) + ") * " + str(32 / p.warp_rows) + " + lane / " +
       str(p.warp_rows) + ";\n";
  o += tile_order(p.bm, p.bn, p.group_m);
  o += "  const int m0 = tile_m * " + str(p.bm) + ", n0 = tile_n * " + str(p.bn) + ";\n";
  o += slab_setup(sa, "m0");
  o += slab_setup(sb, "n0");
  o += "  const int a_frag0 = tr * 4, b_frag0 = tc * 4;\n";
  for (int u = 0; u < p.tm; ++u) {
    o += "  float";
    for (int v = 0; v < p.tn; ++v) o += std::string(v ? ", " : " ") + acc(u, v) + " = 0.0f";
    o += ";\n";
  }
  o += "  const int kt_count = k_pad / " + str(p.bk) + ";\n";

  o += main_loop(sa, sb, p.stages, [&](const std::string& a_off, const std::string& b_off) {
    return compute_stage(p, a_off, b_off);
  });
  o += "  __global float* cb = c + c_offset;\n";
  o += "  const int c_row0 = m0 + tr * 4, c_col0 = n0 + tc * 4;\n";
  o += "  if (beta == 0.0f) {\n" + epilogue(p, false) + "  } else {\n" + epilogue(p, true) +
       "  }\n";
  o += "}\n";
  return o;
}

}  // namespace switchyard::gemm
