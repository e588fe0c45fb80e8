// Feeds parse_config() (config.hpp) an environment built from the input:
// lines of NAME=value, looked up by name as getenv would. Every value must
// be taken or refused with a warning; what is taken must lie in range.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::map<std::string, std::string> variables;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    const std::size_t eq = line.find('=');
    // As in a real environment, a value ends at its first NUL.
    if (eq != std::string::npos) {
      variables[line.substr(0, eq)] = std::string(line.c_str() + eq + 1);
    }
    start = end + 1;
  }
  std::vector<std::string> warnings;
  const switchyard::Config c = switchyard::parse_config(
      [&](const char* name) -> const char* {
        const auto it = variables.find(name);
        return it == variables.end() ? nullptr : it->second.c_str();
      },
      warnings);
  if (c.device < 0 || c.thresholds.tsqr_min_rows < 1 || c.cg.gpu_min_rows < 1 ||
      !(c.thresholds.gemm_min_flops >= 0.0) || !(c.thresholds.tsqr_min_aspect >= 0.0) ||
      !(c.cg.dia_max_ratio >= 0.0)) {
    std::abort();
  }
  return 0;
}
