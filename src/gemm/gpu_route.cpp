// The gpu route of sgemm/dgemm: the copy kernels and the generated TN kernel
// on the OpenCL device, host operands streamed through pinned slots
// (streamed_gemm.hpp), with the kernel parameters of the device's tuning
// entry; a large product is split over several devices when
// SWITCHYARD_DEVICES names them (split_gemm.hpp). Taken automatically when
// the cost model (cost_model.hpp) gives the device, start-up included when it
// is cold, less time than the fallback on this host (route.cpp), and never on
// an OpenCL CPU device (PoCL), where it runs only when forced.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "calls.hpp"
#include "config.hpp"
#include "device/opencl_runtime.hpp"
#include "device/opencl_shared_staging.hpp"
#include "device/opencl_staging.hpp"
#include "device/startup.hpp"
#include "dispatch.hpp"
#include "fallback.hpp"
#include "gemm/device_gemm.hpp"
#include "gemm/finish_blocks.hpp"
#include "gemm/opencl_route.hpp"
#include "gemm/split_gemm.hpp"
#include "gemm/streamed_gemm.hpp"
#include "gemm/tuning_db.hpp"
#include "info_hooks.hpp"

namespace switchyard {
namespace {

using opencl_route::selection;
using opencl_route::unusable;

template <class T>
const char* declines(const GemmCall<T>& g) {
  return opencl_route::too_large<T>(g.m, g.n, g.k);
}

template <class T>
GemmFn<T>* fallback_gemm() {
  if constexpr (sizeof(T) == 8) {
    return fallback_blas().dgemm;
  } else {
    return fallback_blas().sgemm;
  }
}

std::vector<opencl::Runtime*> runtimes_of(const std::vector<gemm::Share>& shares) {
  std::vector<opencl::Runtime*> runtimes;
  for (const gemm::Share& s : shares) runtimes.push_back(s.rt);
  return runtimes;
}

// The shares a call may split over (SWITCHYARD_DEVICES), once every one has started with its
// kernels of T and its staging. The first call that asks starts them on a helper thread; it and
// every call until they are up run on one device. Empty without SWITCHYARD_DEVICES, and for
// good when a device can not start.
template <class T>
std::vector<gemm::Share> started_shares(opencl::Runtime& main) {
  static std::atomic<bool> ready{false};
  static std::vector<gemm::Share>& shares = *new std::vector<gemm::Share>;  // never destroyed
  static std::once_flag once;
  if (!config().all_devices && config().devices.empty()) return {};
  std::call_once(once, [&main] {
    const auto start = [&main] {
      std::string why;
      std::vector<gemm::Share> made;
      for (opencl::Runtime* rt : opencl::split_runtimes(why)) {
        gemm::Kernels* kernels = gemm::kernels_for(*rt, selection<T>(main).entry.params, why);
        if (!kernels || !opencl::staging(*rt, why)) return;  // calls stay on one device
        made.push_back({rt, kernels});
      }
      // Without it, each device copies the operand they all read for itself.
      opencl::shared_staging(runtimes_of(made), why);
      shares = std::move(made);
      ready = !shares.empty();
    };
    device::start_detached(start);  // without a thread to spare, calls stay on one device
  });
  return ready ? shares : std::vector<gemm::Share>{};
}

// "split over OpenCL devices 0,0,1": the trace's note of a split call.
const char* split_note(const std::vector<gemm::Share>& shares) {
  // Never destroyed: the report at exit prints it after static destructors have run.
  static const std::string* note = [&] {
    std::string text = "split over OpenCL devices ";
    for (std::size_t s = 0; s < shares.size(); ++s) {
      text += (s ? "," : "") + std::to_string(shares[s].rt->device().index);
    }
    return new std::string(text);
  }();
  return note->c_str();
}

// The call on the devices: split over several when the product pays for it and they have
// started (only such a call starts them), else on one. True when all of C is written; else the
// blocks left as given in `unwritten`.
template <class T>
bool run_on_devices(opencl::Runtime& rt, gemm::Kernels& kernels, const GemmCall<T>& g,
                    std::vector<gemm::CBlock>& unwritten, std::string& error) {
  const std::vector<gemm::Share> shares = gemm::pays_to_split(g.m, g.n, g.k, sizeof(T), 2)
                                              ? started_shares<T>(rt)
                                              : std::vector<gemm::Share>{};
  if (shares.size() > 1) {
    std::string unshared;  // without shared staging, each device copies for itself
    opencl::SharedStaging* shared = opencl::shared_staging(runtimes_of(shares), unshared);
    if (!gemm::gemm_split<T>(shares, shared, g.transa, g.transb, g.m, g.n, g.k, g.alpha, g.a,
                             g.lda, g.b, g.ldb, g.beta, g.c, g.ldc, unwritten, error)) {
      return false;
    }
    ran_as = split_note(shares);
    return true;
  }
  return gemm::gemm_streamed<T>(rt, kernels, g.transa, g.transb, g.m, g.n, g.k, g.alpha, g.a,
                                g.lda, g.b, g.ldb, g.beta, g.c, g.ldc,
                                gemm::default_plan(kernels.params, g.n), unwritten, error);
}

// A failure before any of C was written returns false, C untouched, and the
// whole call runs in the fallback. A failure after that can not hand the
// call back (beta C would be read where C already holds the result), so the
// blocks not yet written are finished here in the fallback.
template <class T>
bool run(const GemmCall<T>& g) {
  const char* why = nullptr;
  opencl::Runtime* rt = opencl::runtime(&why);
  std::string error;
  std::vector<gemm::CBlock> unwritten;
  gemm::Kernels* kernels = opencl_route::kernels<T>(*rt, error);
  if (kernels && run_on_devices(*rt, *kernels, g, unwritten, error)) return true;
  const char name = sizeof(T) == 8 ? 'd' : 's';
  if (!kernels || gemm::untouched(unwritten, g.m, g.n)) {
    std::fprintf(stderr, "switchyard: %cgemm on the OpenCL device failed (%s); running it in the "
                 "fallback\n", name, error.c_str());
    return false;
  }
  std::fprintf(stderr, "switchyard: %cgemm on the OpenCL device failed after writing part of C "
               "(%s); finishing %zu blocks in the fallback\n", name, error.c_str(),
               unwritten.size());
  gemm::finish_blocks(fallback_gemm<T>(), g, unwritten);
  return true;
}

template <class T>
const Implementation<GemmCall<T>> opencl_gemm{unusable<T>, declines<T>, run<T>,
                                              opencl_route::forced_only, opencl_route::pays<T>,
                                              &opencl_route::cost<T>};

// For switchyard info: the device the route would take and its tuning
// entries, found without starting the device.
void print_info(FILE* out) {
  std::string why;
  const std::vector<opencl::DeviceInfo> devices = opencl::list_devices(why);
  const int chosen = opencl::choose_device(devices, config().opencl_device);
  if (chosen < 0) {
    std::fprintf(out, "gemm route      no OpenCL device%s%s\n", why.empty() ? "" : ": ",
                 why.empty() ? "named by SWITCHYARD_OPENCL_DEVICE" : why.c_str());
    return;
  }
  const opencl::DeviceInfo& d = devices[chosen];
  std::fprintf(out, "gemm route      OpenCL device %d, %s (%s, driver %s)%s\n", chosen,
               d.name.c_str(), d.is_gpu ? "GPU" : "not a GPU: forced only", d.driver.c_str(),
               config().opencl_device.empty() ? "" : " by SWITCHYARD_OPENCL_DEVICE");
  for (gemm::Precision p : {gemm::Precision::f64, gemm::Precision::f32}) {
    const gemm::Selection s = gemm::select(d, p);
    std::fprintf(out, "gemm kernel %c   %s: %s\n", p == gemm::Precision::f64 ? 'd' : 's',
                 s.source.c_str(), gemm::describe(s.entry.params).c_str());
  }
}

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<GemmCall<float>>::gpu = &opencl_gemm<float>;
  Implementations<GemmCall<double>>::gpu = &opencl_gemm<double>;
  print_gemm_info = print_info;
  // A start in the background makes everything a first call would otherwise wait for: the
  // context, the double kernels' program and the pinned staging. Not for a device that is not a
  // GPU (PoCL on a machine without one), which the router never picks: its program and staging
  // took 0.6 s of the cores the program's own calls were running on (the 2-core development
  // machine), and a forced call makes them when it needs them.
  device::register_starter(device::Family::opencl, [] {
    if (opencl_route::forced_only() || unusable<double>()) return;
    const char* why = nullptr;
    opencl::Runtime& rt = *opencl::runtime(&why);
    if (device::exiting()) return;  // no compile for an exit to wait for
    if (!rt.device().is_gpu) {
      device::end_start(device::Family::opencl, true);
      return;
    }
    std::string error;
    opencl_route::kernels<double>(rt, error);
    opencl::staging(rt, error);
  });
  return true;
}();

}  // namespace
}  // namespace switchyard
