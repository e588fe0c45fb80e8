// The gemm tuning database: for each device and precision, the kernel
// parameters the tuner found fastest, as readable text, one entry a line:
//
//   d | NVIDIA H200 | ml=64 nl=64 kl=16 ms=8 ns=4 ks=2 vw=2 local=AB layout=CBL,CBL | 12000
//   precision | device name | parameters (kernel_source.hpp) | TN GFLOP/s
//
// The rate is the TN kernel's mean over the tuner's sweep of sizes; the
// cost model takes it as the device's rate.
//
// '#' starts a comment. `switchyard tune` writes gemm-tuning.txt in the cache
// directory, read and written under the rules of trusted_files.hpp; entries
// shipped with the library (tuning_defaults.cpp) cover the devices it was
// tuned on. The library takes, for its device, the database entry whose
// device name is the device's, else the first shipped entry whose device name
// is part of the device's, else a generic default.
//
// The file carries no checksum: it is text meant to be read and edited, the
// parser drops any line that is not a whole entry, and a checksum that anyone
// able to write the file can recompute would add nothing to the ownership
// check.
#pragma once

#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/kernel_source.hpp"

namespace switchyard::gemm {

struct TuningEntry {
  Precision precision = Precision::f64;
  std::string device;   // the device name, or (shipped) a part of it
  KernelParams params;
  double gflops = 0.0;  // the TN kernel's mean rate over the tuner's sweep
};

// Parses one database line; false for blank lines, comments and malformed lines.
bool parse_entry(const std::string& line, TuningEntry& entry);
std::string format_entry(const TuningEntry& entry);

// The database's file name in its directory.
inline constexpr const char* kDatabaseName = "gemm-tuning.txt";

// Every entry of the database in `directory`, in order (none when it is
// missing or not trusted).
std::vector<TuningEntry> read_database(const std::string& directory);

// Writes `entry` to the database in `directory`, in place of the entry for the
// same precision and device, keeping every other line; false with the reason
// in `error`.
bool store_entry(const std::string& directory, const TuningEntry& entry, std::string& error);

// The tuner's database file: <cache directory>/gemm-tuning.txt.
std::string database_path();

// The entries shipped with the library.
const std::vector<TuningEntry>& shipped_entries();

// The chosen entry and where it came from, for the route and `switchyard info`.
struct Selection {
  TuningEntry entry;
  std::string source;  // "tuned (path)", "shipped (H200)", "generic GPU default"...
};
Selection select(const opencl::DeviceInfo& device, Precision precision);

}  // namespace switchyard::gemm
