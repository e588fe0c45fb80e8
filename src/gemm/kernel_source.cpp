#include "gemm/kernel_source.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "gemm/inplace_kernel_source.hpp"
#include "gemm/kernel_source_parts.hpp"
#include "gemm/mma_kernel_source.hpp"
#include "gemm/nv_families.hpp"

namespace switchyard::gemm {
namespace {

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::row: return "ROW";
    case Layout::cbl: return "CBL";
    case Layout::rbl: return "RBL";
  }
  return "?";
}

bool layout_from(const std::string& s, Layout& l) {
  for (Layout c : {Layout::row, Layout::cbl, Layout::rbl}) {
    if (s == layout_name(c)) {
      l = c;
      return true;
    }
  }
  return false;
}

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

// The packed operand's addressing, as OpenCL C expressions. "start" is the
// offset of the work-group's first tile (k = k0, the slice's first row,
// r = group * RB), "step" what one k block of kl adds to it, "stride" the
// distance between two k rows of a tile. `group`, `k0`, `Kp` and `Rp` name
// the kernel's variables; k0 is a multiple of kl.
struct TileAddressing {
  std::string start, step, stride;
};

TileAddressing addressing(Layout l, int rb, int kl, const std::string& group,
                          const std::string& rp) {
  const std::string RB = std::to_string(rb), KL = std::to_string(kl);
  switch (l) {
    case Layout::row:
      return {"(long)k0 * " + rp + " + (long)" + group + " * " + RB, "(long)" + KL + " * " + rp,
              rp};
    case Layout::cbl:
      return {"(long)" + group + " * Kp * " + RB + " + (long)k0 * " + RB,
              std::to_string(kl * rb), RB};
    case Layout::rbl:
      return {"(long)k0 * " + rp + " + (long)" + group + " * " + std::to_string(kl * rb),
              "(long)" + KL + " * " + rp, RB};
  }
  return {};
}

// Offset of element (k, r) of a packed operand, as an OpenCL C expression of
// the variables k, r, Kp, Rp.
std::string element_offset(Layout l, int rb, int kl) {
  const std::string RB = std::to_string(rb), KL = std::to_string(kl);
  switch (l) {
    case Layout::row: return "(long)k * Rp + r";
    case Layout::cbl: return "(long)(r / " + RB + ") * Kp * " + RB + " + (long)k * " + RB + " + r % " + RB;
    case Layout::rbl:
      return "(long)(k / " + KL + ") * " + KL + " * Rp + (long)(r / " + RB + ") * " +
             std::to_string(kl * rb) + " + (k % " + KL + ") * " + RB + " + r % " + RB;
  }
  return "";
}

std::string vector_type(const KernelParams& p) {
  const char* scalar = p.precision == Precision::f64 ? "double" : "float";
  return p.vw == 1 ? scalar : scalar + std::to_string(p.vw);
}

// A vector load of vw elements at `pointer + offset`.
std::string load(const KernelParams& p, const std::string& pointer, const std::string& offset) {
  if (p.vw == 1) return pointer + "[" + offset + "]";
  return "vload" + std::to_string(p.vw) + "(0, " + pointer + " + " + offset + ")";
}

std::string lane(const KernelParams& p, const std::string& v, int w) {
  if (p.vw == 1) return v;
  char text[16];
  std::snprintf(text, sizeof text, ".s%x", w);
  return v + text;
}

// The cooperative copy of one kl x RB tile into local memory.
void emit_local_load(std::ostringstream& o, const KernelParams& p, char name, int rb,
                     const std::string& stride) {
  const int vectors_per_row = rb / p.vw;
  const int threads = p.threads_m() * p.threads_n();
  o << "    for (int t = lid; t < " << p.kl * vectors_per_row << "; t += " << threads << ") {\n"
    << "      const int kk = t / " << vectors_per_row << ", rr = (t % " << vectors_per_row
    << ") * " << p.vw << ";\n";
  if (p.vw == 1) {
    o << "      l" << name << "[kk * " << rb << " + rr] = " << name << "_tile[kk * " << stride
      << " + rr];\n";
  } else {
    o << "      vstore" << p.vw << "(" << load(p, std::string(1, name) + "_tile", "kk * " + stride + " + rr")
      << ", 0, l" << name << " + kk * " << rb << " + rr);\n";
  }
  o << "    }\n";
}

}  // namespace

std::size_t KernelParams::local_bytes() const {
  if (family != Family::simt) return nv_local_bytes(*this);
  return element_size() * std::size_t(kl) * ((local_a ? ml : 0) + (local_b ? nl : 0));
}

std::string invalid(const KernelParams& p, const DeviceLimits& limits) {
  if (p.family != Family::simt) return nv_invalid(p, limits);
  if (p.vw != 1 && p.vw != 2 && p.vw != 4 && p.vw != 8) return "vw must be 1, 2, 4 or 8";
  for (int v : {p.ml, p.nl, p.kl, p.ms, p.ns, p.ks}) {
    if (!power_of_two(v)) return "tile sizes must be powers of two";
  }
  if (p.ml % p.ms || p.nl % p.ns) return "ms must divide ml and ns divide nl";
  if (p.ms % p.vw || p.ns % p.vw) return "vw must divide ms and ns";
  if (p.kl % p.ks) return "ks must divide kl";
  if (p.ms * p.ns > 256) return "more than 256 accumulators per work-item";
  const std::size_t threads = std::size_t(p.threads_m()) * std::size_t(p.threads_n());
  if (threads > limits.max_work_group) return "work-group larger than the device allows";
  if (p.local_bytes() > limits.local_memory) return "tiles larger than the device's local memory";
  return "";
}

std::string describe(const KernelParams& p) {
  if (p.family != Family::simt) return nv_describe(p);
  std::ostringstream o;
  o << "ml=" << p.ml << " nl=" << p.nl << " kl=" << p.kl << " ms=" << p.ms << " ns=" << p.ns
    << " ks=" << p.ks << " vw=" << p.vw << " local="
    << (p.local_a ? (p.local_b ? "AB" : "A") : (p.local_b ? "B" : "-"))
    << " layout=" << layout_name(p.layout_a) << "," << layout_name(p.layout_b);
  return o.str();
}

bool parse(const std::string& text, Precision precision, KernelParams& out) {
  if (text.compare(0, 7, "family=") == 0) return nv_parse(text, precision, out);
  KernelParams p;
  p.precision = precision;
  std::istringstream in(text);
  std::string field;
  int seen = 0;
  while (in >> field) {
    const std::size_t eq = field.find('=');
    if (eq == std::string::npos) return false;
    const std::string name = field.substr(0, eq), value = field.substr(eq + 1);
    int* integer = name == "ml"   ? &p.ml
                   : name == "nl" ? &p.nl
                   : name == "kl" ? &p.kl
                   : name == "ms" ? &p.ms
                   : name == "ns" ? &p.ns
                   : name == "ks" ? &p.ks
                   : name == "vw" ? &p.vw
                                  : nullptr;
    if (integer) {
      char* end = nullptr;
      const long v = std::strtol(value.c_str(), &end, 10);
      if (end == value.c_str() || *end || v <= 0 || v > 4096) return false;
      *integer = int(v);
    } else if (name == "local") {
      if (value != "-" && value != "A" && value != "B" && value != "AB") return false;
      p.local_a = value.find('A') != std::string::npos;
      p.local_b = value.find('B') != std::string::npos;
    } else if (name == "layout") {
      const std::size_t comma = value.find(',');
      if (comma == std::string::npos || !layout_from(value.substr(0, comma), p.layout_a) ||
          !layout_from(value.substr(comma + 1), p.layout_b)) {
        return false;
      }
    } else {
      return false;
    }
    ++seen;
  }
  if (seen != 9) return false;
  out = p;
  return true;
}

std::string emit_prelude(const KernelParams& p) {
  std::ostringstream o;
  if (p.precision == Precision::f64) {
    o << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\ntypedef double T;\n";
  } else {
    o << "typedef float T;\n";
  }
  return o.str();
}

std::string emit_pack_kernel(const KernelParams& p, Operand which, bool transposed) {
  const int index = int(which);
  const int rb = which == Operand::a ? p.ml : p.nl;
  const Layout layout = which == Operand::a ? p.layout_a : p.layout_b;
  const std::string offset = element_offset(layout, rb, p.kl);
  const int tile = kPackTile;
  std::ostringstream o;
  o << "__kernel __attribute__((reqd_work_group_size(" << tile << ", " << tile << ", 1)))\n"
    << "void " << (transposed ? kPackTransposed[index] : kPackDirect[index])
    << "(const int K, const int R, __global const T* restrict src, const long offset,\n"
    << "    const int ld, const int Kp, const int Rp, __global T* restrict dst) {\n";
  if (!transposed) {
    // Work-item (r, k): reads along r and writes along r, both contiguous.
    o << "  const int r = get_global_id(0), k = get_global_id(1);\n"
      << "  if (r >= Rp || k >= Kp) return;\n"
      << "  dst[" << offset << "] = (r < R && k < K) ? src[offset + r + (long)k * ld] : (T)0;\n";
  } else {
    // Through a local tile: read along k (contiguous in the source), write
    // along r (contiguous in the packed operand). One padding column keeps
    // the column reads off a single local bank.
    o << "  __local T tile[" << tile << "][" << tile + 1 << "];\n"
      << "  const int lx = get_local_id(0), ly = get_local_id(1);\n"
      << "  const int r0 = get_group_id(0) * " << tile << ", k0 = get_group_id(1) * " << tile
      << ";\n"
      << "  {\n"
      << "    const int k = k0 + lx, r = r0 + ly;\n"
      << "    tile[ly][lx] = (r < R && k < K) ? src[offset + k + (long)r * ld] : (T)0;\n"
      << "  }\n"
      << "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      << "  const int r = r0 + lx, k = k0 + ly;\n"
      << "  if (r < Rp && k < Kp) dst[" << offset << "] = tile[lx][ly];\n";
  }
  o << "}\n";
  return o.str();
}

std::string emit_tn_kernel(const KernelParams& p) {
  if (p.family != Family::simt) return nv_emit_tn_kernel(p);
  const int tx_count = p.threads_m(), ty_count = p.threads_n();
  const int mv = p.ms / p.vw, nv = p.ns / p.vw;  // vectors per work-item along m and n
  const std::string TV = vector_type(p);
  const TileAddressing a = addressing(p.layout_a, p.ml, p.kl, "gi", "Mp");
  const TileAddressing b = addressing(p.layout_b, p.nl, p.kl, "gj", "Np");
  // Inside the k loop the tiles are read from local memory or straight from
  // the packed operand.
  const std::string a_src = p.local_a ? "la" : "a_tile";
  const std::string b_src = p.local_b ? "lb" : "b_tile";
  const std::string a_stride = p.local_a ? std::to_string(p.ml) : a.stride;
  const std::string b_stride = p.local_b ? std::to_string(p.nl) : b.stride;

  std::ostringstream o;
  o << "__kernel __attribute__((reqd_work_group_size(" << tx_count << ", " << ty_count
    << ", 1)))\n"
    << "void " << kTnKernel
    << "(const int Kp, const int Mp, const int Np,\n"
    << "    __global const T* restrict Ap, __global const T* restrict Bp,\n"
    << "    const int m, const int n, const T alpha, const T beta,\n"
    << "    __global T* C, const long c_offset, const int ldc,\n"
    << "    " << kSliceArguments << ") {\n"
    << "  const int tx = get_local_id(0), ty = get_local_id(1);\n"
    << "  const int gi = get_group_id(0), gj = get_group_id(1);\n"
    << slice_prologue("C");
  if (p.local_a || p.local_b) o << "  const int lid = ty * " << tx_count << " + tx;\n";
  if (p.local_a) o << "  __local T la[" << p.kl * p.ml << "];\n";
  if (p.local_b) o << "  __local T lb[" << p.kl * p.nl << "];\n";
  o << "  __global const T* a_tile = Ap + " << a.start << ";\n"
    << "  __global const T* b_tile = Bp + " << b.start << ";\n";
  for (int s = 0; s < mv; ++s) {
    for (int j = 0; j < p.ns; ++j) o << "  " << TV << " acc_" << s << "_" << j << " = 0;\n";
  }
  o << "  for (int kb = 0; kb < k_len; kb += " << p.kl << ") {\n";
  if (p.local_a) emit_local_load(o, p, 'a', p.ml, a.stride);
  if (p.local_b) emit_local_load(o, p, 'b', p.nl, b.stride);
  if (p.local_a || p.local_b) o << "    barrier(CLK_LOCAL_MEM_FENCE);\n";
  o << "    for (int kk = 0; kk < " << p.kl << "; kk += " << p.ks << ") {\n";
  for (int u = 0; u < p.ks; ++u) {
    const std::string row = "(kk + " + std::to_string(u) + ")";
    for (int s = 0; s < mv; ++s) {
      o << "      const " << TV << " a" << u << "_" << s << " = "
        << load(p, a_src, row + " * " + a_stride + " + " + std::to_string(s * tx_count * p.vw) +
                              " + tx * " + std::to_string(p.vw))
        << ";\n";
    }
    for (int t = 0; t < nv; ++t) {
      o << "      const " << TV << " b" << u << "_" << t << " = "
        << load(p, b_src, row + " * " + b_stride + " + " + std::to_string(t * ty_count * p.vw) +
                              " + ty * " + std::to_string(p.vw))
        << ";\n";
    }
    for (int s = 0; s < mv; ++s) {
      for (int t = 0; t < nv; ++t) {
        for (int w = 0; w < p.vw; ++w) {
          const std::string acc = "acc_" + std::to_string(s) + "_" + std::to_string(t * p.vw + w);
          const std::string bv = "b" + std::to_string(u) + "_" + std::to_string(t);
          o << "      " << acc << " = fma(a" << u << "_" << s << ", (" << TV << ")("
            << lane(p, bv, w) << "), " << acc << ");\n";
        }
      }
    }
  }
  o << "    }\n";
  if (p.local_a || p.local_b) o << "    barrier(CLK_LOCAL_MEM_FENCE);\n";
  o << "    a_tile += " << a.step << ";\n"
    << "    b_tile += " << b.step << ";\n"
    << "  }\n";
  // The epilogue: each accumulator to its place in C, padding skipped; C is
  // read only when beta is not zero (BLAS: beta = 0 ignores NaN in C).
  o << "  const int i0 = gi * " << p.ml << " + tx * " << p.vw << ", j0 = gj * " << p.nl
    << " + ty * " << p.vw << ";\n"
    << "  __global T* c = C + c_offset;\n";
  for (int t = 0; t < nv; ++t) {
    for (int w = 0; w < p.vw; ++w) {
      const int jt = t * ty_count * p.vw + w;
      o << "  if (j0 + " << jt << " < n) {\n"
        << "    __global T* col = c + (long)(j0 + " << jt << ") * ldc;\n";
      for (int s = 0; s < mv; ++s) {
        for (int v = 0; v < p.vw; ++v) {
          const int it = s * tx_count * p.vw + v;
          const std::string acc =
              lane(p, "acc_" + std::to_string(s) + "_" + std::to_string(t * p.vw + w), v);
          o << "    if (i0 + " << it << " < m) col[i0 + " << it << "] = beta == (T)0 ? alpha * "
            << acc << " : fma(beta, col[i0 + " << it << "], alpha * " << acc << ");\n";
        }
      }
      o << "  }\n";
    }
  }
  o << "}\n";
  return o.str();
}

std::string emit_reduce_kernel() {
  std::ostringstream o;
  o << "__kernel __attribute__((reqd_work_group_size(" << kPackTile << ", " << kPackTile
    << ", 1)))\n"
    << "void " << kReduceKernel
    << "(const int m, const int n, const int S, __global const T* restrict partial,\n"
    << "    const long slice, const T alpha, const T beta, __global T* C, const long c_offset,\n"
    << "    const int ldc) {\n"
    << "  const int i = get_global_id(0), j = get_global_id(1);\n"
    << "  if (i >= m || j >= n) return;\n"
    << "  __global const T* p = partial + i + (long)j * m;\n"
    // One order for every run (no atomics), so the same call gives the same bits.
    << "  T sum = p[0];\n"
    << "  for (int s = 1; s < S; ++s) sum += p[s * slice];\n"
    << "  __global T* c = C + c_offset + i + (long)j * ldc;\n"
    << "  *c = beta == (T)0 ? alpha * sum : fma(beta, *c, alpha * sum);\n"
    << "}\n";
  return o.str();
}

bool has_inplace_kernels(const KernelParams& p) {
  if (p.family == Family::mma) return min_compute_capability(p.shape) >= 90;
  return p.family == Family::ffma && p.precision == Precision::f32 && p.async_copy;
}

std::string program_source(const KernelParams& p) {
  std::string s = emit_prelude(p);
  for (Operand w : {Operand::a, Operand::b}) {
    s += emit_pack_kernel(p, w, false);
    s += emit_pack_kernel(p, w, true);
  }
  s += emit_tn_kernel(p);
  s += emit_reduce_kernel();
  if (has_inplace_kernels(p)) {
    s += p.precision == Precision::f64 ? inplace_kernels_source() : inplace_float_kernels_source();
  }
  return s;
}

}  // namespace switchyard::gemm
