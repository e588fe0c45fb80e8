#include "gemm/kernel_source_parts.hpp"

#include "gemm/kernel_source.hpp"

#include <algorithm>
#include <string>

namespace switchyard::gemm {
namespace {

std::string str(int v) { return std::to_string(v); }

// Layout of a slab's 16-byte pieces over the threads: `per_row` threads share each row (taking
// pieces col_step elements apart), so `rows_per_pass` rows are covered at once.
struct Cover {
  int vec;            // elements per piece
  int pieces_per_row;
  int per_row;        // threads per row
  int rows_per_pass;  // rows covered by one pass of all threads
  int row_passes, col_passes;
};

Cover cover(const SlabCopy& s) {
  Cover c{};
  c.vec = 16 / s.elem_bytes;
  c.pieces_per_row = s.cols / c.vec;
  c.per_row = std::min(s.threads, c.pieces_per_row);
  c.rows_per_pass = s.threads / c.per_row;
  c.row_passes = s.rows / std::max(1, c.rows_per_pass);
  c.col_passes = c.pieces_per_row / std::max(1, c.per_row);
  return c;
}

std::string vec_type(const SlabCopy& s) { return std::string(s.type) + str(16 / s.elem_bytes); }

// Passes q and q + period() put the thread on rows with the same swizzle (row % 4), so they
// share one local base offset; unswizzled slabs have a single base.
int period(const SlabCopy& s, const Cover& c) {
  if (!s.swizzle) return 1;
  const int rows_mod4 = c.rows_per_pass % 4;
  const int p = rows_mod4 == 0 ? 1 : rows_mod4 == 2 ? 2 : 4;
  return std::min(p, c.row_passes);
}

// Piece (q, u) of the thread lives at local base <name>_local<q % period> plus this offset;
// the swizzle leaves the u offsets alone, since they are whole groups of 16 columns.
int local_offset(const SlabCopy& s, const Cover& c, int q, int u) {
  return (q - q % period(s, c)) * c.rows_per_pass * s.ld_local + u * c.per_row * c.vec;
}

std::string local_base(const SlabCopy& s, const Cover& c, int q) {
  return std::string(1, s.name) + "_local" + str(q % period(s, c));
}

// Element offset of piece (q, u) in global memory, relative to the thread's first piece.
std::string global_offset(const SlabCopy& s, const Cover& c, int q, int u) {
  const std::string n(1, s.name);
  std::string e;
  if (q > 0) e += str(q * c.rows_per_pass) + " * (size_t)ld" + n;
  if (u > 0) e += (e.empty() ? "" : " + ") + str(u * c.per_row * c.vec);
  return e.empty() ? "0" : e;
}

}  // namespace

std::string check(const SlabCopy& s) {
  const int vec = 16 / s.elem_bytes;
  if (s.cols % vec != 0) return "tile width not a multiple of a 16-byte piece";
  if (s.ld_local % vec != 0) return "local row stride not a multiple of a 16-byte piece";
  const int pieces = s.cols / vec;
  if (s.threads % pieces != 0 && pieces % s.threads != 0)
    return "threads and pieces per tile row do not divide one another";
  const Cover c = cover(s);
  if (c.rows_per_pass > s.rows || s.rows % c.rows_per_pass != 0)
    return "tile rows not a multiple of the rows the threads cover at once";
  if (s.swizzle && (s.cols % 16 != 0 || s.ld_local % 16 != 0 ||
                    (c.col_passes > 1 && c.per_row * c.vec % 16 != 0)))
    return "a swizzled slab needs widths and column steps that are multiples of 16";
  return {};
}

std::string check_pipeline(const SlabCopy& a, const SlabCopy& b, int stages, int group_m) {
  if (a.async_copy ? stages < 2 : (stages < 1 || stages > 2))
    return "stages must be >= 2 with cp.async, 1 or 2 with register staging";
  if (group_m < 1) return "group_m < 1";
  for (const SlabCopy* s : {&a, &b}) {
    const std::string e = check(*s);
    if (!e.empty()) return std::string(1, s->name) + ": " + e;
  }
  return {};
}

std::string slab_setup(const SlabCopy& s, const std::string& col0_expr) {
  const Cover c = cover(s);
  const std::string n(1, s.name);
  std::string o;
  o += "  const int " + n + "_row0 = tid / " + str(c.per_row) + ";\n";
  o += "  const int " + n + "_col0 = (tid % " + str(c.per_row) + ") * " + str(c.vec) + ";\n";
  o += "  __global const " + std::string(s.type) + "* g" + n + " = " + n + " + (size_t)" + n +
       "_row0 * ld" + n + " + (" + col0_expr + ") + " + n + "_col0;\n";
  o += "  const size_t " + n + "_slab_step = (size_t)" + str(s.rows) + " * ld" + n + ";\n";
  for (int j = 0; j < period(s, c); ++j) {
    const std::string row = n + "_row0" + (j > 0 ? " + " + str(j * c.rows_per_pass) : "");
    const std::string col =
        s.swizzle ? "(" + n + "_col0 ^ (((" + row + ") & 3) << 2))" : n + "_col0";
    o += "  const int " + n + "_local" + str(j) + " = (" + row + ") * " + str(s.ld_local) +
         " + " + col + ";\n";
  }
  return o;
}

std::string slab_issue_async(const SlabCopy& s, const std::string& local,
                             const std::string& stage_offset) {
  const Cover c = cover(s);
  const std::string n(1, s.name);
  std::string o = "    {\n      __local " + std::string(s.type) + "* l_ = " + local + " + (" +
                  stage_offset + ");\n";
  for (int q = 0; q < c.row_passes; ++q)
    for (int u = 0; u < c.col_passes; ++u)
      o += "      CP_ASYNC16(l_ + " + local_base(s, c, q) + " + " + str(local_offset(s, c, q, u)) +
           ", g" + n + " + " + global_offset(s, c, q, u) + ");\n";
  o += "      g" + n + " += " + n + "_slab_step;\n    }\n";
  return o;
}

std::string slab_fetch(const SlabCopy& s) {
  const Cover c = cover(s);
  const std::string n(1, s.name);
  const std::string vt = vec_type(s);
  std::string o;
  for (int q = 0; q < c.row_passes; ++q)
    for (int u = 0; u < c.col_passes; ++u)
      o += "      " + n + "_reg_" + str(q) + "_" + str(u) + " = *(__global const " + vt +
           "*)(g" + n + " + " + global_offset(s, c, q, u) + ");\n";
  o += "      g" + n + " += " + n + "_slab_step;\n";
  return o;
}

std::string slab_store(const SlabCopy& s, const std::string& local,
                       const std::string& stage_offset) {
  const Cover c = cover(s);
  const std::string n(1, s.name);
  const std::string vt = vec_type(s);
  std::string o = "    {\n      __local " + std::string(s.type) + "* l_ = " + local + " + (" +
                  stage_offset + ");\n";
  for (int q = 0; q < c.row_passes; ++q)
    for (int u = 0; u < c.col_passes; ++u)
      o += "      *(__local " + vt + "*)(l_ + " + local_base(s, c, q) + " + " +
           str(local_offset(s, c, q, u)) + ") = " + n + "_reg_" + str(q) + "_" + str(u) + ";\n";
  o += "    }\n";
  return o;
}

// Register declarations for slab_fetch/slab_store, placed by the caller before the main loop.
std::string slab_registers(const SlabCopy& s) {
  const Cover c = cover(s);
  std::string o = "  " + vec_type(s);
  for (int q = 0; q < c.row_passes; ++q)
    for (int u = 0; u < c.col_passes; ++u)
      o += std::string(q + u == 0 ? " " : ", ") + s.name + "_reg_" + str(q) + "_" + str(u);
  return o + ";\n";
}

std::string cp_async_macros(int stages) {
  // The local address of the destination is the shared-window offset PTX wants ("r", 32 bits);
  // .cg keeps the tiles out of L1, which only they would pass through.
  std::string o =
      "#define CP_ASYNC16(dst, src) __asm__ __volatile__(\"cp.async.cg.shared.global [%0], [%1], 16;\" "
      ":: \"r\"((uint)(size_t)(dst)), \"l\"((ulong)(src)) : \"memory\")\n"
      "#define CP_ASYNC_COMMIT() __asm__ __volatile__(\"cp.async.commit_group;\" ::: \"memory\")\n";
  for (int n = 0; n < stages; ++n)
    o += "#define CP_ASYNC_WAIT_" + str(n) + "() __asm__ __volatile__(\"cp.async.wait_group " + str(n) +
         ";\" ::: \"memory\")\n";
  return o;
}

std::string main_loop(const SlabCopy& a, const SlabCopy& b, int stages,
                      const std::function<std::string(const std::string&, const std::string&)>&
                          compute) {
  const std::string stage_a = str(a.rows * a.ld_local), stage_b = str(b.rows * b.ld_local);
  std::string o;
  if (a.async_copy) {
    // Slab kt + stages - 1 is in flight while slab kt is multiplied.
    const std::string last = str(stages - 1);
    const std::string issue = slab_issue_async(a, "a_local", "load_stage * " + stage_a) +
                              slab_issue_async(b, "b_local", "load_stage * " + stage_b);
    o += "  int load_stage = 0, read_stage = 0;\n";
    o += "  for (int s = 0; s < " + last + "; ++s) {\n";
    o += "    if (s < kt_count) {\n" + issue + "    }\n";
    o += "    CP_ASYNC_COMMIT();\n    ++load_stage;\n  }\n";
    o += "  for (int kt = 0; kt < kt_count; ++kt) {\n";
    o += "    CP_ASYNC_WAIT_" + str(stages - 2) + "();\n";
    o += "    barrier(CLK_LOCAL_MEM_FENCE);\n";
    o += "    if (kt + " + last + " < kt_count) {\n" + issue + "    }\n";
    o += "    CP_ASYNC_COMMIT();\n";
    o += "    load_stage = load_stage == " + last + " ? 0 : load_stage + 1;\n";
    o += compute("read_stage * " + stage_a, "read_stage * " + stage_b);
    o += "    read_stage = read_stage == " + last + " ? 0 : read_stage + 1;\n";
    o += "  }\n";
  } else if (stages == 2) {
    // Two buffers: the next slab's global loads are in flight in registers while this one is
    // multiplied, then stored into the other buffer before the barrier.
    o += slab_registers(a) + slab_registers(b);
    o += "  if (kt_count > 0) {\n" + slab_fetch(a) + slab_fetch(b);
    o += slab_store(a, "a_local", "0") + slab_store(b, "b_local", "0");
    o += "  }\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
    o += "  for (int kt = 0; kt < kt_count; ++kt) {\n";
    o += "    const int buf = kt & 1;\n";
    o += "    const bool more = kt + 1 < kt_count;\n";
    o += "    if (more) {\n" + slab_fetch(a) + slab_fetch(b) + "    }\n";
    o += compute("buf * " + stage_a, "buf * " + stage_b);
    o += "    if (more) {\n";
    o += slab_store(a, "a_local", "(buf ^ 1) * " + stage_a);
    o += slab_store(b, "b_local", "(buf ^ 1) * " + stage_b);
    o += "    }\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
  } else {
    // One buffer, half the local memory (so bigger slabs fit): the next slab waits in
    // registers while this one is multiplied, at the price of a second barrier per slab.
    o += slab_registers(a) + slab_registers(b);
    o += "  if (kt_count > 0) {\n" + slab_fetch(a) + slab_fetch(b);
    o += slab_store(a, "a_local", "0") + slab_store(b, "b_local", "0");
    o += "  }\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
    o += "  for (int kt = 0; kt < kt_count; ++kt) {\n";
    o += "    const bool more = kt + 1 < kt_count;\n";
    o += "    if (more) {\n" + slab_fetch(a) + slab_fetch(b) + "    }\n";
    o += compute("0", "0");
    o += "    barrier(CLK_LOCAL_MEM_FENCE);\n";
    o += "    if (more) {\n";
    o += slab_store(a, "a_local", "0") + slab_store(b, "b_local", "0");
    o += "    }\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
  }
  return o;
}

std::string slice_prologue(const std::string& c) {
  std::string o;
  o += "  const int slice = get_group_id(2);\n";
  o += "  const int k0 = slice * Ks, k_len = min(Ks, Kp - k0);\n";
  o += "  " + c + " += (long)slice * c_slice;\n";
  return o;
}

std::string tn_head(const char* type, int threads) {
  const std::string t(type);
  std::string o = "__kernel __attribute__((reqd_work_group_size(" + str(threads) + ", 1, 1)))\n";
  o += "void " + std::string(kTnKernel) + "(const int Kp, const int Mp, const int Np,\n";
  o += "    __global const " + t + "* restrict a, __global const " + t + "* restrict b,\n";
  o += "    const int m, const int n, const " + t + " alpha, const " + t + " beta,\n";
  o += "    __global " + t + "* c, const long c_offset, const int ldc,\n";
  o += "    " + std::string(kSliceArguments) + ") {\n";
  o += "  const int tid = get_local_id(0);\n";
  o += "  const int lda = Mp, ldb = Np;\n";
  o += slice_prologue("c");
  // Both operands are ROW: the slice's rows start k0 rows in.
  o += "  const int k_pad = k_len;\n";
  o += "  a += (size_t)k0 * lda;\n";
  o += "  b += (size_t)k0 * ldb;\n";
  return o;
}

std::string tile_order(int bm, int bn, int group_m) {
  std::string o;
  o += "  const int tiles_m = Mp / " + str(bm) + ", tiles_n = Np / " + str(bn) + ";\n";
  o += "  const int pid = get_group_id(1) * tiles_m + get_group_id(0);\n";
  o += "  const int strip = " + str(group_m) + " * tiles_n;\n";
  o += "  const int first_m = (pid / strip) * " + str(group_m) + ";\n";
  o += "  const int strip_m = min(tiles_m - first_m, " + str(group_m) + ");\n";
  o += "  const int tile_m = first_m + (pid % strip) % strip_m;\n";
  o += "  const int tile_n = (pid % strip) / strip_m;\n";
  return o;
}

}  // namespace switchyard::gemm
