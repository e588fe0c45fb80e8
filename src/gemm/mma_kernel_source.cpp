#include "gemm/mma_kernel_source.hpp"

#include <string>

#include "gemm/kernel_source_parts.hpp"

namespace switchyard::gemm {
namespace {

std::string str(int v) { return std::to_string(v); }

// Per shape: registers per thread for A, B and C fragments, and the PTX instruction.
struct ShapeInfo {
  int m, k, a_regs, b_regs, c_regs;
  const char* ptx;
};

ShapeInfo info(MmaShape s) {
  switch (s) {
    case MmaShape::m8n8k4:
      return {8, 4, 1, 1, 2, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"};
    case MmaShape::m16n8k4:
      return {16, 4, 2, 1, 4, "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64"};
    case MmaShape::m16n8k8:
      return {16, 8, 4, 2, 4, "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"};
    case MmaShape::m16n8k16:
      return {16, 16, 8, 4, 4, "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64"};
  }
  return {};
}

// Fragment maps of the PTX ISA for f64 mma, with g = lane / 4 and t = lane % 4:
//   A register r holds (row g + 8 (r % 2), col t + 4 (r / 2)); for m8n8k4, (g, t).
//   B register r holds (row t + 4 r, col g).
//   C register r holds (row g + 8 (r / 2), col 2 t + r % 2).
// Offsets below are relative to the thread's (g, t) origin.
int a_row(const ShapeInfo& s, int r) { return s.m == 16 ? 8 * (r % 2) : 0; }
int a_k(const ShapeInfo& s, int r) { return s.m == 16 ? 4 * (r / 2) : 0; }
int b_k(int r) { return 4 * r; }
int c_row(int r) { return 8 * (r / 2); }
int c_col(int r) { return r % 2; }

constexpr int kLocalPad = 4;  // doubles added to each padded local row: see the header

int local_pad(const MmaKernelParams& p) { return p.swizzle ? 0 : kLocalPad; }

SlabCopy slab(const MmaKernelParams& p, char name) {
  const int cols = name == 'a' ? p.bm : p.bn;
  return {name, "double", 8, p.bk, cols, cols + local_pad(p), threads(p), p.async_copy, p.swizzle};
}

// A fragment element at k-row kk + t (kk a multiple of 4) and column c + g of the warp tile
// (c a multiple of 8) is read through a per-thread pointer plus a constant. Padded: the pointer
// `frag0` covers (t, g) and the constant is kk * ld + c. Swizzled, the column's bits 2 and 3
// flip by t; the warp tile starts on a multiple of 16, so only bit 3 of c (which flips bit 3
// of g ^ 4t) reaches the pointer: `frag0` for c % 16 == 0, `frag8` for c % 16 == 8.
struct FragRead {
  std::string pointer;
  int offset;
};

FragRead frag_read(const MmaKernelParams& p, const std::string& prefix, int ld, int kk, int c) {
  if (!p.swizzle) return {prefix + "0", kk * ld + c};
  return {prefix + (c % 16 == 8 ? "8" : "0"), kk * ld + c - c % 16};
}

std::string acc(int i, int j, int r) {
  return "c" + str(i) + "_" + str(j) + "_" + str(r);
}

// One bk-deep step on the local stage at element offsets `a_stage`, `b_stage`: for each mma
// depth slice, load every fragment of the warp tile, then issue every mma.
std::string compute_stage(const MmaKernelParams& p, const std::string& a_stage,
                          const std::string& b_stage) {
  const ShapeInfo s = info(p.shape);
  const int lda = p.bm + local_pad(p), ldb = p.bn + local_pad(p);
  const int tiles_i = p.wm / s.m, tiles_j = p.wn / 8;
  std::string o;
  o += "    {\n";
  o += "      __local const double* a_stage = a_local + (" + a_stage + ");\n";
  o += "      __local const double* b_stage = b_local + (" + b_stage + ");\n";
  for (int kk = 0; kk < p.bk; kk += s.k) {
    o += "      {\n";
    for (int i = 0; i < tiles_i; ++i)
      for (int r = 0; r < s.a_regs; ++r) {
        const FragRead f = frag_read(p, "a_frag", lda, kk + a_k(s, r), i * s.m + a_row(s, r));
        o += "        const double a" + str(i) + "_" + str(r) + " = a_stage[" + f.pointer +
             " + " + str(f.offset) + "];\n";
      }
    for (int j = 0; j < tiles_j; ++j)
      for (int r = 0; r < s.b_regs; ++r) {
        const FragRead f = frag_read(p, "b_frag", ldb, kk + b_k(r), j * 8);
        o += "        const double b" + str(j) + "_" + str(r) + " = b_stage[" + f.pointer +
             " + " + str(f.offset) + "];\n";
      }
    for (int i = 0; i < tiles_i; ++i)
      for (int j = 0; j < tiles_j; ++j) o += mma_statement(p.shape, i, j, 8);
    o += "      }\n";
  }
  o += "    }\n";
  return o;
}

}  // namespace

int mma_m(MmaShape s) { return info(s).m; }
int mma_k(MmaShape s) { return info(s).k; }
int min_compute_capability(MmaShape s) { return s == MmaShape::m8n8k4 ? 80 : 90; }

int threads(const MmaKernelParams& p) {
  if (p.wm <= 0 || p.wn <= 0) return 0;
  return (p.bm / p.wm) * (p.bn / p.wn) * 32;
}

std::size_t local_memory_bytes(const MmaKernelParams& p) {
  return std::size_t(p.stages) * p.bk * (p.bm + p.bn + 2 * local_pad(p)) * sizeof(double);
}

std::string check(const MmaKernelParams& p) {
  const ShapeInfo s = info(p.shape);
  if (p.bm <= 0 || p.bn <= 0 || p.bk <= 0 || p.wm <= 0 || p.wn <= 0) return "non-positive tile";
  if (p.wm % s.m != 0 || p.wn % 8 != 0) return "warp tile not a multiple of the mma shape";
  if (p.bm % p.wm != 0 || p.bn % p.wn != 0) return "block tile not a multiple of the warp tile";
  if (p.bk % s.k != 0) return "bk not a multiple of the mma depth";
  if (p.bm % 16 != 0 || p.bn % 16 != 0)
    return "bm and bn must be multiples of 16 (the local layouts assume 128-byte rows)";
  if (p.swizzle && (p.wm % 16 != 0 || p.wn % 16 != 0))
    return "the swizzled layout needs warp tiles that are multiples of 16";
  const int t = threads(p);
  if (t > 1024) return "more than 1024 threads";
  return check_pipeline(slab(p, 'a'), slab(p, 'b'), p.stages, p.group_m);
}

std::string name(const MmaKernelParams& p) {
  const ShapeInfo s = info(p.shape);
  return "m" + str(s.m) + "k" + str(s.k) + "_" + str(p.bm) + "x" + str(p.bn) + "x" + str(p.bk) +
         "_w" + str(p.wm) + "x" + str(p.wn) + (p.async_copy ? "_s" : "_r") + str(p.stages) +
         "_g" + str(p.group_m) + (p.swizzle ? "_xor" : "");
}

std::string mma_statement(MmaShape shape, int i, int j, int indent) {
  const ShapeInfo s = info(shape);
  int n = 0;
  const auto list = [&](int count) {
    std::string l = "{";
    for (int r = 0; r < count; ++r) l += (r ? "," : "") + std::string("%") + str(n++);
    return l + "}";
  };
  const std::string c_list = list(s.c_regs);
  const std::string a_list = list(s.a_regs);
  const std::string b_list = list(s.b_regs);
  std::string outs, ins;
  for (int r = 0; r < s.c_regs; ++r) outs += (r ? ", " : "") + ("\"+d\"(" + acc(i, j, r) + ")");
  for (int r = 0; r < s.a_regs; ++r)
    ins += (r ? ", " : "") + ("\"d\"(a" + str(i) + "_" + str(r) + ")");
  for (int r = 0; r < s.b_regs; ++r) ins += ", \"d\"(b" + str(j) + "_" + str(r) + ")";
  const std::string pad(std::size_t(indent), ' ');
  return pad + "__asm__(\"" + std::string(s.ptx) + " " + c_list + ", " + a_list + ", " + b_list +
         ", " + c_list + ";\"\n" + pad + "    : " + outs + "\n" + pad + "    : " + ins + ");\n";
}

namespace {

// One pass over the thread's entries of C inside m x n (a warp's tiles_i x tiles_j mma tiles
// of `shape`): `statement(row, col, acc)` gives each entry's code from its row and column
// expressions and its accumulator.
template <class Statement>
std::string each_c_entry(MmaShape shape, int tiles_i, int tiles_j, const Statement& statement) {
  const ShapeInfo s = info(shape);
  std::string o;
  for (int j = 0; j < tiles_j; ++j)
    for (int u = 0; u < 2; ++u) {
      const std::string col = "c_col0 + " + str(j * 8 + u);
      o += "    if (" + col + " < n) {\n";
      for (int i = 0; i < tiles_i; ++i)
        for (int r = 0; r < s.c_regs; ++r) {
          if (c_col(r) != u) continue;
          const std::string row = "c_row0 + " + str(i * s.m + c_row(r));
          o += "      if (" + row + " < m) " + statement(row, col, acc(i, j, r)) + ";\n";
        }
      o += "    }\n";
    }
  return o;
}

std::string global_c(const char* c, const std::string& row, const std::string& col) {
  return std::string(c) + "[(size_t)(" + col + ") * ldc + " + row + "]";
}

// Writes each accumulator, already alpha acc + beta C, to its entry of C through `c`.
std::string store_accumulators(MmaShape shape, int tiles_i, int tiles_j, const char* c) {
  return each_c_entry(shape, tiles_i, tiles_j,
                      [&](const std::string& row, const std::string& col, const std::string& a) {
                        return global_c(c, row, col) + " = " + a;
                      });
}

// Local row of one column of C staged by staged_c_epilogue: 4 doubles of padding put the
// four columns a quarter-warp reads (2t) on different banks.
int staged_ld(const MmaKernelParams& p) { return p.bm + 4; }

// The epilogue of a TN kernel with beta != 0, when a column strip of C the width of a warp
// tile fits the kernel's local memory: each strip goes global -> local by cp.async (every
// work-item's copies in flight at once, no registers), then the warps that own it add beta C
// from there. Read straight from global memory, each read waited out a trip to memory: the
// accumulators leave too few registers to keep many in flight, and a product with a short k
// (8192 x 8192 x 256) took twice as long with beta != 0 as with beta = 0.
std::string staged_c_epilogue(const MmaKernelParams& p, int tiles_i, int tiles_j) {
  const int ld = staged_ld(p);
  std::string o = "    __local double* c_local = tile_local;\n";
  o += "    for (int h = 0; h < " + str(p.bn / p.wn) + "; ++h) {\n";
  o += "      const int strip0 = n0 + h * " + str(p.wn) + ";\n";
  o += "      barrier(CLK_LOCAL_MEM_FENCE);  // the slabs, or the strip before, are read\n";
  o += "      for (int e = tid; e < " + str(p.bm * p.wn) + "; e += " + str(threads(p)) + ") {\n";
  o += "        const int row = m0 + e % " + str(p.bm) + ", col = strip0 + e / " + str(p.bm) + ";\n";
  o += "        if (row < m && col < n)\n";
  o += "          __asm__ __volatile__(\"cp.async.ca.shared.global [%0], [%1], 8;\" :: "
       "\"r\"((uint)(size_t)(c_local + (e / " + str(p.bm) + ") * " + str(ld) + " + e % " +
       str(p.bm) + ")), \"l\"((ulong)(cb + (size_t)col * ldc + row)) : \"memory\");\n";
  o += "      }\n";
  o += "      __asm__ __volatile__(\"cp.async.commit_group;\" ::: \"memory\");\n";
  o += "      __asm__ __volatile__(\"cp.async.wait_group 0;\" ::: \"memory\");\n";
  o += "      barrier(CLK_LOCAL_MEM_FENCE);\n";
  o += "      if (warp_n == h) {\n";
  o += each_c_entry(p.shape, tiles_i, tiles_j,
                    [&](const std::string& row, const std::string& col, const std::string& a) {
                      return a + " = alpha * " + a + " + beta * c_local[(" + col + " - strip0) * " +
                             str(ld) + " + " + row + " - m0]";
                    });
  o += "      }\n    }\n";
  return o + store_accumulators(p.shape, tiles_i, tiles_j, "cb");
}

}  // namespace

std::string warp_tile_epilogue(MmaShape shape, int tiles_i, int tiles_j, const char* c,
                               bool with_beta) {
  if (!with_beta) {
    return each_c_entry(shape, tiles_i, tiles_j,
                        [&](const std::string& row, const std::string& col, const std::string& a) {
                          return global_c(c, row, col) + " = alpha * " + a;
                        });
  }
  // Every read of C before any write: a write between two reads might alias the second (ldc
  // is not known), and the compiler would wait out each read's latency in turn.
  return each_c_entry(shape, tiles_i, tiles_j,
                      [&](const std::string& row, const std::string& col, const std::string& a) {
                        return a + " = alpha * " + a + " + beta * " + global_c(c, row, col);
                      }) +
         store_accumulators(shape, tiles_i, tiles_j, c);
}

std::string mma_kernel_source(const MmaKernelParams& p) {
  const ShapeInfo s = info(p.shape);
  const SlabCopy sa = slab(p, 'a'), sb = slab(p, 'b');
  const int lda = p.bm + local_pad(p), ldb = p.bn + local_pad(p);
  const int stage_a = p.bk * lda, stage_b = p.bk * ldb;
  const int tiles_i = p.wm / s.m, tiles_j = p.wn / 8;

  std::string o;
  o += "// TN kernel " + name(p) + ": C <- alpha A'^T B' + beta C on the FP64 tensor cores.\n";
  o += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  if (p.async_copy) o += cp_async_macros(p.stages);
  o += tn_head("double", threads(p));
  // One local array holds the slabs, and then the staged strips of C (staged_c_epilogue).
  const int local_doubles = p.stages * (stage_a + stage_b);
  const bool staged = p.wn * staged_ld(p) <= local_doubles;
  o += "  __local double tile_local[" + str(local_doubles) + "] __attribute__((aligned(16)));\n";
  o += "  __local double* const a_local = tile_local;\n";
  o += "  __local double* const b_local = tile_local + " + str(p.stages * stage_a) + ";\n";
  o += "  const int warp = tid >> 5, lane = tid & 31;\n";
  o += "  const int g = lane >> 2, t = lane & 3;\n";
  o += "  const int warp_m = warp % " + str(p.bm / p.wm) + ", warp_n = warp / " +
       str(p.bm / p.wm) + ";\n";
  o += tile_order(p.bm, p.bn, p.group_m);
  o += "  const int m0 = tile_m * " + str(p.bm) + ", n0 = tile_n * " + str(p.bn) + ";\n";
  o += slab_setup(sa, "m0");
  o += slab_setup(sb, "n0");
  // Thread (g, t) of a warp reads A' at k-row t, column g of each 16 x k fragment, B' likewise
  // (frag_read: where the swizzle moves those columns).
  const std::string col = p.swizzle ? "(g ^ (t << 2))" : "g";
  o += "  const int a_frag0 = t * " + str(lda) + " + warp_m * " + str(p.wm) + " + " + col + ";\n";
  o += "  const int b_frag0 = t * " + str(ldb) + " + warp_n * " + str(p.wn) + " + " + col + ";\n";
  if (p.swizzle) {
    o += "  const int a_frag8 = a_frag0 ^ 8, b_frag8 = b_frag0 ^ 8;\n";
  }
  for (int i = 0; i < tiles_i; ++i)
    for (int j = 0; j < tiles_j; ++j) {
      o += "  double";
      for (int r = 0; r < s.c_regs; ++r) o += std::string(r ? ", " : " ") + acc(i, j, r) + " = 0.0";
      o += ";\n";
    }
  o += "  const int kt_count = k_pad / " + str(p.bk) + ";\n";

  o += main_loop(sa, sb, p.stages, [&](const std::string& a_off, const std::string& b_off) {
    return compute_stage(p, a_off, b_off);
  });
  o += "  __global double* cb = c + c_offset;\n";
  o += "  const int c_row0 = m0 + warp_m * " + str(p.wm) + " + g;\n";
  o += "  const int c_col0 = n0 + warp_n * " + str(p.wn) + " + 2 * t;\n";
  o += "  if (beta == 0.0) {\n" + warp_tile_epilogue(p.shape, tiles_i, tiles_j, "cb", false) +
       "  } else {\n" +
       (staged ? staged_c_epilogue(p, tiles_i, tiles_j)
               : warp_tile_epilogue(p.shape, tiles_i, tiles_j, "cb", true)) +
       "  }\n";
  o += "}\n";
  return o;
}

}  // namespace switchyard::gemm
