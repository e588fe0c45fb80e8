// The tuning entries shipped with the library, in the database's own text
// format (tuning_db.hpp). Each came from `switchyard tune` on the device it
// names; README "GEMM" gives the runs.
#include "gemm/tuning_db.hpp"

namespace switchyard::gemm {
namespace {

constexpr const char* kShipped[] = {
    // PoCL on x86 (the CI machine's CPU device).
    "d | pthread | ml=32 nl=16 kl=16 ms=8 ns=4 ks=2 vw=4 local=- layout=CBL,CBL | 20",
    "s | pthread | ml=32 nl=16 kl=16 ms=8 ns=4 ks=2 vw=4 local=- layout=CBL,CBL | 40",
};

}  // namespace

const std::vector<TuningEntry>& shipped_entries() {
  static const std::vector<TuningEntry> entries = [] {
    std::vector<TuningEntry> v;
    for (const char* line : kShipped) {
      TuningEntry e;
      if (parse_entry(line, e)) v.push_back(e);
    }
    return v;
  }();
  return entries;
}

}  // namespace switchyard::gemm
