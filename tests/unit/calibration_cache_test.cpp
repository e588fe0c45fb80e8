// The calibration files through load_figures and store_figures: the planted
// attacks of planted_cache_test.cpp.
#include <gtest/gtest.h>

#include "calibration.hpp"
#include "planted_cache.hpp"

namespace switchyard::test {
namespace {

const std::string kLibrary = "/usr/lib/x86_64-linux-gnu/openblas-pthread/liblapack.so.3";
constexpr int kThreads = 7;

HostFigures sample_figures() {
  HostFigures f;
  double value = 1.0;
  for (auto* rates :
       {&f.rates.gemm_square, &f.rates.gemm_gram, &f.rates.gemm_wide, &f.rates.gemm_narrow,
        &f.rates.gemm_rank, &f.rates.syrk, &f.rates.syrk_wide}) {
    (*rates)[0] = value++;
    (*rates)[1] = value++;
  }
  for (auto* qr : {&f.rates.geqrf, &f.rates.orgqr, &f.rates.ormqr, &f.rates.geqp3}) {
    for (auto& size : *qr) {
      for (auto& width : size) width[0] = value++, width[1] = value++;
    }
  }
  for (auto& size : f.cpu_tsqr.geqrf) {
    for (auto& width : size) width[0] = value++, width[1] = value++;
  }
  f.cpu_tsqr.call_s = 0.004;
  f.cpu_tsqr.first_call_s = 0.012;
  f.cuda_start_s = 0.25;
  f.opencl_start_s = 0.5;
  return f;
}

// The figures are compared through their file text, which names every field.
bool loads_sample(const std::string& directory) {
  HostFigures loaded;
  return load_figures(directory, kLibrary, kThreads, loaded) &&
         format_figures(kLibrary, kThreads, loaded) ==
             format_figures(kLibrary, kThreads, sample_figures());
}

void store_sample(const std::string& directory) {
  std::string error;
  store_figures(directory, kLibrary, kThreads, sample_figures(), error);
}

const CacheUser kCalibration{"Calibration", calibration_name(kLibrary, kThreads), store_sample,
                             loads_sample};

INSTANTIATE_TEST_SUITE_P(Calibration, PlantedCache, ::testing::Values(kCalibration),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace switchyard::test
