// The tuning entries shipped with the library, in the database's own text
// format (tuning_db.hpp). Each came from `switchyard tune` or mma_probe on the
// device it names; docs/gemm-tuning.md gives the runs.
#include "gemm/tuning_db.hpp"

namespace switchyard::gemm {
namespace {

constexpr const char* kShipped[] = {
    // NVIDIA H200, NVIDIA OpenCL (driver 580): the fastest NVIDIA-family sets of mma_probe
    // (n = 8192, against cuBLAS 52.7 and 53.1 TFLOP/s in the same run); the simt family's
    // best from switchyard tune reached 16.5 and 28.4. The double set is the padded,
    // single-buffered one (50.8 then) with swizzled tiles and two stages: 52.7 against 51.2
    // for the padded set and cuBLAS 56.4 in a later mma_probe run.
    "d | H200 | family=mma shape=m16n8k16 ml=128 nl=64 kl=16 ms=64 ns=32 stages=2 copy=reg group=8 tiles=xor | 52700",
    "s | H200 | family=ffma ml=128 nl=64 kl=16 ms=8 ns=8 lanes=4 stages=3 copy=async group=8 | 51400",
    // NVIDIA H100 SXM, NVIDIA OpenCL (driver 580): the H200's sets and their neighbours in
    // mma_probe at n = 8192 (cuBLAS 53.5 and 53.2 TFLOP/s in the same run). In double the
    // H200's two stages (48.8) stay: one buffer ran the squares at 52.4 but k = 256 at 0.50-0.53
    // of cuBLAS against 0.72-0.77 (switchyard bench gemm). In single two stages beat three
    // (50.3). The H100 PCIe and NVL, with fewer SMs and lower clocks, are not matched: their
    // rates come from nv_estimated_gflops.
    "d | H100 80GB HBM3 | family=mma shape=m16n8k16 ml=128 nl=64 kl=16 ms=64 ns=32 stages=2 copy=reg group=8 tiles=xor | 48800",
    "s | H100 80GB HBM3 | family=ffma ml=128 nl=64 kl=16 ms=8 ns=8 lanes=4 stages=2 copy=async group=8 | 51000",
    // PoCL 3.1 on x86 (2 cores of an AMD EPYC, AVX-512): switchyard tune, budgets 3 and 2.5 minutes.
    "d | pthread | ml=16 nl=32 kl=32 ms=16 ns=4 ks=1 vw=4 local=- layout=ROW,CBL | 91.1",
    "s | pthread | ml=32 nl=16 kl=32 ms=4 ns=16 ks=4 vw=1 local=- layout=ROW,CBL | 112.9",
};

}  // namespace

const std::vector<TuningEntry>& shipped_entries() {
  // Never destroyed: a start in the background reads them on a helper thread, which may still be
  // running while the process exits.
  static const std::vector<TuningEntry>& entries = *new std::vector<TuningEntry>([] {
    std::vector<TuningEntry> v;
    for (const char* line : kShipped) {
      TuningEntry e;
      if (parse_entry(line, e)) v.push_back(e);
    }
    return v;
  }());
  return entries;
}

}  // namespace switchyard::gemm
