// Feeds the gemm tuning database's line parser (gemm::parse_entry) and the
// kernel parameter parsers under it (gemm::parse, gemm::nv_parse) arbitrary
// text. A line must be taken or dropped; parameters taken must describe
// themselves as text that parses back to the same description.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "gemm/nv_families.hpp"
#include "gemm/tuning_db.hpp"

namespace {

using namespace switchyard::gemm;

void check_round_trip(const KernelParams& p) {
  KernelParams again;
  if (!parse(describe(p), p.precision, again) || describe(again) != describe(p)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  TuningEntry entry;
  if (parse_entry(text, entry)) {
    check_round_trip(entry.params);
    TuningEntry again;
    if (!parse_entry(format_entry(entry), again)) std::abort();
  }
  for (Precision precision : {Precision::f64, Precision::f32}) {
    KernelParams p;
    if (parse(text, precision, p)) check_round_trip(p);
    if (nv_parse(text, precision, p)) check_round_trip(p);
  }
  return 0;
}
