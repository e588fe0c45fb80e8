#include <gtest/gtest.h>

#include <map>
#include <string>

#include "config.hpp"

namespace switchyard {
namespace {

Config parse(const std::map<std::string, std::string>& vars, std::vector<std::string>& warnings) {
  return parse_config(
      [&](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
      },
      warnings);
}

TEST(Config, DefaultsWhenNothingIsSet) {
  std::vector<std::string> warnings;
  const Config c = parse({}, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_FALSE(c.disabled);
  EXPECT_FALSE(c.report);
  EXPECT_EQ(c.trace, "");
  EXPECT_EQ(c.fallback_path, "");
  EXPECT_EQ(c.device, 0);
  EXPECT_EQ(c.device_source, "default");
  for (RouteChoice r : c.route) EXPECT_EQ(r, RouteChoice::automatic);
  EXPECT_GT(c.thresholds.gemm_min_flops, 0.0);
  EXPECT_GT(c.thresholds.tsqr_min_rows, 0);
}

TEST(Config, ReadsEveryVariable) {
  std::vector<std::string> warnings;
  const Config c = parse({{"SWITCHYARD_DISABLE", "1"},
                          {"SWITCHYARD_REPORT", "yes"},
                          {"SWITCHYARD_TRACE", "/tmp/t.log"},
                          {"SWITCHYARD_FALLBACK", "/opt/lib/libopenblas.so"},
                          {"SWITCHYARD_ROUTE_DGEMM", "GPU"},
                          {"SWITCHYARD_ROUTE_SGEQRF", "cpu"},
                          {"SWITCHYARD_ROUTE_DGEQRF", "fallback"},
                          {"SWITCHYARD_GEMM_MIN_FLOPS", "1e6"},
                          {"SWITCHYARD_TSQR_MIN_ROWS", "4096"},
                          {"SWITCHYARD_TSQR_MIN_ASPECT", "8.5"}},
                         warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(c.disabled);
  EXPECT_TRUE(c.report);
  EXPECT_EQ(c.trace, "/tmp/t.log");
  EXPECT_EQ(c.fallback_path, "/opt/lib/libopenblas.so");
  EXPECT_EQ(c.route[int(Routine::dgemm)], RouteChoice::gpu);
  EXPECT_EQ(c.route[int(Routine::sgemm)], RouteChoice::automatic);
  EXPECT_EQ(c.route[int(Routine::sgeqrf)], RouteChoice::cpu);
  EXPECT_EQ(c.route[int(Routine::dgeqrf)], RouteChoice::fallback);
  EXPECT_EQ(c.thresholds.gemm_min_flops, 1e6);
  EXPECT_EQ(c.thresholds.tsqr_min_rows, 4096);
  EXPECT_EQ(c.thresholds.tsqr_min_aspect, 8.5);
}

TEST(Config, InvalidValuesWarnOnceEachAndKeepTheDefault) {
  std::vector<std::string> warnings;
  const Config defaults = parse({}, warnings);
  const Config c = parse({{"SWITCHYARD_DISABLE", "maybe"},
                          {"SWITCHYARD_ROUTE_SGEMM", "fpga"},
                          {"SWITCHYARD_DEVICE", "-1"},
                          {"SWITCHYARD_GEMM_MIN_FLOPS", "lots"},
                          {"SWITCHYARD_TSQR_MIN_ROWS", "12abc"},
                          {"SWITCHYARD_TSQR_MIN_ASPECT", "-3"},
                          {"SWITCHYARD_REPORT", "2"},
                          {"SWITCHYARD_CG_BACKEND", "tpu"},
                          {"SWITCHYARD_CG_DIA_MAX_RATIO", "nan"},
                          {"SWITCHYARD_CG_GPU_MIN_ROWS", "0"}},
                         warnings);
  ASSERT_EQ(warnings.size(), 10u);
  EXPECT_NE(warnings[0].find("SWITCHYARD_DISABLE='maybe' is invalid"), std::string::npos);
  for (const std::string& w : warnings) EXPECT_EQ(w.find('\n'), std::string::npos);
  EXPECT_FALSE(c.disabled);
  EXPECT_EQ(c.route[int(Routine::sgemm)], RouteChoice::automatic);
  EXPECT_EQ(c.device, 0);
  EXPECT_EQ(c.thresholds.gemm_min_flops, defaults.thresholds.gemm_min_flops);
  EXPECT_EQ(c.thresholds.tsqr_min_rows, defaults.thresholds.tsqr_min_rows);
  EXPECT_EQ(c.thresholds.tsqr_min_aspect, defaults.thresholds.tsqr_min_aspect);
  EXPECT_FALSE(c.report);
  EXPECT_EQ(c.cg.backend, RouteChoice::automatic);
  EXPECT_EQ(c.cg.dia_max_ratio, defaults.cg.dia_max_ratio);
  EXPECT_EQ(c.cg.gpu_min_rows, defaults.cg.gpu_min_rows);
}

TEST(Config, StartModeOnDemandByDefaultBackgroundWhenAsked) {
  std::vector<std::string> warnings;
  EXPECT_EQ(parse({}, warnings).start, StartMode::on_demand);
  EXPECT_EQ(parse({{"SWITCHYARD_START", "Background"}}, warnings).start, StartMode::background);
  EXPECT_EQ(parse({{"SWITCHYARD_START", "on-demand"}}, warnings).start, StartMode::on_demand);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(parse({{"SWITCHYARD_START", "eager"}}, warnings).start, StartMode::on_demand);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("SWITCHYARD_START='eager' is invalid"), std::string::npos);
}

TEST(Config, DeviceFromExplicitVariableBeatsLocalRank) {
  std::vector<std::string> warnings;
  const Config c =
      parse({{"SWITCHYARD_DEVICE", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}, warnings);
  EXPECT_EQ(c.device, 3);
  EXPECT_EQ(c.device_source, "SWITCHYARD_DEVICE");
}

TEST(Config, DevicesToSplitOver) {
  std::vector<std::string> warnings;
  Config c = parse({}, warnings);
  EXPECT_FALSE(c.all_devices);
  EXPECT_TRUE(c.devices.empty());
  c = parse({{"SWITCHYARD_DEVICES", "ALL"}}, warnings);
  EXPECT_TRUE(c.all_devices);
  c = parse({{"SWITCHYARD_DEVICES", "1,0,1"}}, warnings);
  EXPECT_FALSE(c.all_devices);
  EXPECT_EQ(c.devices, (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(parse({{"SWITCHYARD_DEVICES", "0, 1"}}, warnings).devices, (std::vector<int>{0, 1}));
  EXPECT_TRUE(warnings.empty());
  for (const char* bad : {"0,", ",1", "0,,1", "0;1", "-1", "one", "0 1"}) {
    warnings.clear();
    c = parse({{"SWITCHYARD_DEVICES", bad}}, warnings);
    EXPECT_FALSE(c.all_devices) << bad;
    EXPECT_TRUE(c.devices.empty()) << bad;
    ASSERT_EQ(warnings.size(), 1u) << bad;
    EXPECT_NE(warnings[0].find("SWITCHYARD_DEVICES='"), std::string::npos) << warnings[0];
  }
}

TEST(Config, DeviceFromNodeLocalRankOfEachLauncher) {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"}) {
    std::vector<std::string> warnings;
    const Config c = parse({{var, "2"}}, warnings);
    EXPECT_EQ(c.device, 2) << var;
    EXPECT_EQ(c.device_source, var);
  }
}

// A local rank too large for a device number is not one (it once wrapped to
// a negative device).
TEST(Config, LocalRankBeyondAnyDeviceIsIgnored) {
  std::vector<std::string> warnings;
  const Config c = parse({{"SLURM_LOCALID", "999999983032658"}}, warnings);
  EXPECT_EQ(c.device, 0);
  EXPECT_EQ(c.device_source, "default");
}

TEST(Config, SettingsListEveryRouteVariable) {
  int routes = 0;
  for (const Setting& s : settings()) routes += s.name.rfind("SWITCHYARD_ROUTE_", 0) == 0;
  EXPECT_EQ(routes, routine_count);
}

}  // namespace
}  // namespace switchyard
