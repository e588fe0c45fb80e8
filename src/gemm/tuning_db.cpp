#include "gemm/tuning_db.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "config.hpp"
#include "gemm/nv_families.hpp"
#include "trusted_files.hpp"

namespace switchyard::gemm {
namespace {

// Far above what a tuner writes (a line per device and precision).
constexpr std::size_t kMaxDatabaseBytes = 1 << 20;

std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const std::size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Generic parameters for a device with no entry: modest tiles every OpenCL
// 1.2 device with fp64 can run.
KernelParams generic(bool gpu, Precision precision) {
  KernelParams p;
  p.precision = precision;
  if (gpu) {
    p.ml = 64, p.nl = 64, p.kl = 16, p.ms = 4, p.ns = 4, p.ks = 2, p.vw = 1;
    p.local_a = p.local_b = true;
  } else {
    p.ml = 32, p.nl = 16, p.kl = 16, p.ms = 8, p.ns = 4, p.ks = 2, p.vw = 4;
  }
  p.layout_a = p.layout_b = Layout::cbl;
  return p;
}

// The database file's lines, none when it is missing or not trusted.
std::vector<std::string> database_lines(const std::string& directory) {
  std::vector<std::string> lines;
  std::string text;
  if (trusted_files::read(directory, kDatabaseName, kMaxDatabaseBytes, text)) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  return lines;
}

}  // namespace

bool parse_entry(const std::string& line, TuningEntry& entry) {
  const std::string text = trim(line.substr(0, line.find('#')));
  if (text.empty()) return false;
  std::vector<std::string> fields;
  std::istringstream in(text);
  for (std::string f; std::getline(in, f, '|');) fields.push_back(trim(f));
  if (fields.size() != 4 || (fields[0] != "d" && fields[0] != "s") || fields[1].empty()) {
    return false;
  }
  TuningEntry e;
  e.precision = fields[0] == "d" ? Precision::f64 : Precision::f32;
  e.device = fields[1];
  if (!parse(fields[2], e.precision, e.params)) return false;
  char* end = nullptr;
  e.gflops = std::strtod(fields[3].c_str(), &end);
  if (end == fields[3].c_str() || *end || !(e.gflops >= 0)) return false;
  entry = e;
  return true;
}

std::string format_entry(const TuningEntry& e) {
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.1f", e.gflops);
  return std::string(e.precision == Precision::f64 ? "d" : "s") + " | " + e.device + " | " +
         describe(e.params) + " | " + rate;
}

std::vector<TuningEntry> read_database(const std::string& directory) {
  std::vector<TuningEntry> entries;
  for (const std::string& line : database_lines(directory)) {
    TuningEntry e;
    if (parse_entry(line, e)) entries.push_back(e);
  }
  return entries;
}

bool store_entry(const std::string& directory, const TuningEntry& entry, std::string& error) {
  std::string text;
  for (const std::string& line : database_lines(directory)) {
    TuningEntry e;
    if (parse_entry(line, e) && e.precision == entry.precision && e.device == entry.device) {
      continue;
    }
    text += line + "\n";
  }
  if (text.empty()) {
    text = "# switchyard gemm tuning database: precision | device | parameters | TN GFLOP/s\n";
  }
  text += format_entry(entry) + "\n";
  return trusted_files::write(directory, kDatabaseName, text, error);
}

std::string database_path() {
  const std::string dir = cache_directory();
  return dir.empty() ? "" : dir + "/" + kDatabaseName;
}

Selection select(const opencl::DeviceInfo& device, Precision precision) {
  for (const TuningEntry& e : read_database(cache_directory())) {
    if (e.precision == precision && e.device == device.name) {
      return {e, "tuned (" + database_path() + ")"};
    }
  }
  for (const TuningEntry& e : shipped_entries()) {
    if (e.precision == precision && device.name.find(e.device) != std::string::npos) {
      return {e, "shipped (" + e.device + ")"};
    }
  }
  TuningEntry e;
  e.precision = precision;
  e.device = device.name;
  if (nv_default(device.nv_compute_capability, precision, e.params)) {
    e.gflops = nv_estimated_gflops(device.nv_compute_capability, device.compute_units,
                                   device.max_clock_mhz, precision);
    return {e, "NVIDIA sm_" + std::to_string(device.nv_compute_capability) + " default (" +
                   (precision == Precision::f64 ? "mma" : "ffma") + " family, rate estimated)"};
  }
  e.params = generic(device.is_gpu, precision);
  return {e, device.is_gpu ? "generic GPU default" : "generic CPU default"};
}

}  // namespace switchyard::gemm
