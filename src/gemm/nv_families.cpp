#include "gemm/nv_families.hpp"

#include <cstdlib>
#include <map>
#include <sstream>

#include "gemm/ffma_kernel_source.hpp"
#include "gemm/mma_kernel_source.hpp"

namespace switchyard::gemm {
namespace {

MmaKernelParams to_mma(const KernelParams& p) {
  MmaKernelParams m;
  m.shape = p.shape, m.bm = p.ml, m.bn = p.nl, m.bk = p.kl, m.wm = p.ms, m.wn = p.ns;
  m.stages = p.stages, m.async_copy = p.async_copy, m.group_m = p.group_m;
  m.swizzle = p.swizzle;
  return m;
}

FfmaKernelParams to_ffma(const KernelParams& p) {
  FfmaKernelParams f;
  f.bm = p.ml, f.bn = p.nl, f.bk = p.kl, f.tm = p.ms, f.tn = p.ns, f.warp_rows = p.lanes_m;
  f.stages = p.stages, f.async_copy = p.async_copy, f.group_m = p.group_m;
  return f;
}

const char* shape_name(MmaShape s) {
  switch (s) {
    case MmaShape::m8n8k4: return "m8n8k4";
    case MmaShape::m16n8k4: return "m16n8k4";
    case MmaShape::m16n8k8: return "m16n8k8";
    case MmaShape::m16n8k16: return "m16n8k16";
  }
  return "?";
}

KernelParams nv_params(Family family, Precision precision) {
  KernelParams p;
  p.family = family, p.precision = precision;
  p.ks = 1, p.vw = 1, p.local_a = p.local_b = true;
  p.layout_a = p.layout_b = Layout::row;
  return p;
}

}  // namespace

std::size_t nv_local_bytes(const KernelParams& p) {
  return p.family == Family::mma ? local_memory_bytes(to_mma(p)) : local_memory_bytes(to_ffma(p));
}

std::string nv_invalid(const KernelParams& p, const DeviceLimits& limits) {
  if (p.family == Family::mma && p.precision != Precision::f64) return "mma is a DGEMM family";
  if (p.family == Family::ffma && p.precision != Precision::f32) return "ffma is an SGEMM family";
  if (p.layout_a != Layout::row || p.layout_b != Layout::row) return "mma and ffma read ROW,ROW";
  const int needed = p.family == Family::mma ? min_compute_capability(p.shape)
                     : p.async_copy         ? 80
                                            : 0;
  if (limits.nv_compute_capability < needed) {
    return "needs an NVIDIA device of compute capability " + std::to_string(needed / 10) + "." +
           std::to_string(needed % 10);
  }
  const std::string why = p.family == Family::mma ? check(to_mma(p)) : check(to_ffma(p));
  if (!why.empty()) return why;
  if (std::size_t(p.threads_m()) > limits.max_work_group)
    return "work-group larger than the device allows";
  if (p.local_bytes() > limits.local_memory) return "tiles larger than the device's local memory";
  return "";
}

std::string nv_describe(const KernelParams& p) {
  std::ostringstream o;
  o << "family=" << (p.family == Family::mma ? "mma" : "ffma");
  if (p.family == Family::mma) o << " shape=" << shape_name(p.shape);
  o << " ml=" << p.ml << " nl=" << p.nl << " kl=" << p.kl << " ms=" << p.ms << " ns=" << p.ns;
  if (p.family == Family::ffma) o << " lanes=" << p.lanes_m;
  o << " stages=" << p.stages << " copy=" << (p.async_copy ? "async" : "reg")
    << " group=" << p.group_m;
  if (p.family == Family::mma && p.swizzle) o << " tiles=xor";
  return o.str();
}

bool nv_parse(const std::string& text, Precision precision, KernelParams& out) {
  std::map<std::string, std::string> field;
  std::istringstream in(text);
  for (std::string f; in >> f;) {
    const std::size_t eq = f.find('=');
    if (eq == std::string::npos || !field.emplace(f.substr(0, eq), f.substr(eq + 1)).second)
      return false;
  }
  const std::string family = field["family"];
  if (family != "mma" && family != "ffma") return false;
  KernelParams p = nv_params(family == "mma" ? Family::mma : Family::ffma, precision);
  // Nine shared fields, and shape (mma) or lanes (ffma); mma may add tiles (pad when absent).
  const bool has_tiles = field.count("tiles") > 0;
  if (has_tiles && family != "mma") return false;
  if (field.size() != (has_tiles ? 11u : 10u)) return false;
  if (has_tiles) {
    if (field["tiles"] != "xor" && field["tiles"] != "pad") return false;
    p.swizzle = field["tiles"] == "xor";
  }
  if (family == "mma") {
    bool known = false;
    for (MmaShape s : {MmaShape::m8n8k4, MmaShape::m16n8k4, MmaShape::m16n8k8, MmaShape::m16n8k16})
      if (field["shape"] == shape_name(s)) p.shape = s, known = true;
    if (!known) return false;
  }
  const std::string copy = field["copy"];
  if (copy != "async" && copy != "reg") return false;
  p.async_copy = copy == "async";
  std::pair<const char*, int*> integers[] = {{"ml", &p.ml}, {"nl", &p.nl},         {"kl", &p.kl},
                                             {"ms", &p.ms}, {"ns", &p.ns},         {"stages", &p.stages},
                                             {"group", &p.group_m}, {"lanes", &p.lanes_m}};
  for (auto& [name, target] : integers) {
    if (family == "mma" && std::string(name) == "lanes") continue;
    const std::string& v = field[name];
    char* end = nullptr;
    const long value = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || value <= 0 || value > 4096) return false;
    *target = int(value);
  }
  out = p;
  return true;
}

std::string nv_emit_tn_kernel(const KernelParams& p) {
  return p.family == Family::mma ? mma_kernel_source(to_mma(p)) : ffma_kernel_source(to_ffma(p));
}

bool nv_default(int cc, Precision precision, KernelParams& p) {
  if (cc < 80) return false;
  if (precision == Precision::f64) {
    p = nv_params(Family::mma, precision);
    p.shape = cc >= 90 ? MmaShape::m16n8k16 : MmaShape::m8n8k4;
    // Swizzled and double-buffered as measured on the H200; sm_80 keeps the padded single
    // buffer, which no measurement there has replaced.
    p.ml = 128, p.nl = 64, p.kl = 16, p.ms = cc >= 90 ? 64 : 32, p.ns = 32;
    p.stages = cc >= 90 ? 2 : 1, p.swizzle = cc >= 90;
    p.async_copy = false, p.group_m = 8;
  } else {
    p = nv_params(Family::ffma, precision);
    p.ml = 128, p.nl = 128, p.kl = 16, p.ms = 8, p.ns = 8, p.lanes_m = 4, p.stages = 2;
    p.async_copy = true, p.group_m = 8;
  }
  return true;
}

double nv_estimated_gflops(int cc, int sms, int clock_mhz, Precision precision) {
  // Flops per clock and multiprocessor of each family's instructions, from NVIDIA's published
  // peaks: FP64 mma on sm_80 (m8n8k4), sm_90 (m16n8k16) and sm_100; the FP64 FMA units alone
  // elsewhere (the GeForce and workstation parts, and any not listed). FP32 FMA: 64 lanes on
  // sm_80, 128 on the others.
  int per_clock = 4;
  if (precision == Precision::f32) {
    per_clock = cc == 80 ? 128 : 256;
  } else if (cc == 80 || cc == 100) {
    per_clock = 128;
  } else if (cc == 90) {
    per_clock = 256;
  }
  // The H200's shipped entries: 52.7 TFLOP/s (f64) and 51.4 (f32) of 132 SMs x 256 x 1.98 GHz.
  const double share_of_peak = precision == Precision::f64 ? 0.79 : 0.77;
  return share_of_peak * per_clock * double(sms) * double(clock_mhz) * 1e-3;
}

std::vector<KernelParams> nv_search_space(Precision precision, const DeviceLimits& limits) {
  std::vector<KernelParams> out;
  auto keep = [&](const KernelParams& p) {
    if (nv_invalid(p, limits).empty()) out.push_back(p);
  };
  if (precision == Precision::f64) {
    for (MmaShape shape : {MmaShape::m16n8k16, MmaShape::m16n8k8, MmaShape::m16n8k4,
                           MmaShape::m8n8k4})
      for (int ml : {64, 128, 256})
        for (int nl : {32, 64, 128})
          for (int kl : {8, 16, 32})
            for (int ms : {32, 64})
              for (int ns : {16, 32, 64})
                for (int stages : {1, 2, 3, 4})
                  for (bool async : {false, true})
                    for (int group : {1, 8})
                      for (bool swizzle : {false, true}) {
                        KernelParams p = nv_params(Family::mma, precision);
                        p.shape = shape, p.ml = ml, p.nl = nl, p.kl = kl, p.ms = ms, p.ns = ns;
                        p.stages = stages, p.async_copy = async, p.group_m = group;
                        p.swizzle = swizzle;
                        keep(p);
                      }
  } else {
    for (int ml : {64, 128, 256})
      for (int nl : {64, 128, 256})
        for (int kl : {8, 16, 32})
          for (int ms : {4, 8, 16})
            for (int ns : {4, 8, 16})
              for (int lanes : {2, 4, 8})
                for (int stages : {1, 2, 3})
                  for (bool async : {false, true}) {
                    KernelParams p = nv_params(Family::ffma, precision);
                    p.ml = ml, p.nl = nl, p.kl = kl, p.ms = ms, p.ns = ns, p.lanes_m = lanes;
                    p.stages = stages, p.async_copy = async, p.group_m = 8;
                    if (ms * ns <= 128) keep(p);
                  }
  }
  return out;
}

}  // namespace switchyard::gemm
