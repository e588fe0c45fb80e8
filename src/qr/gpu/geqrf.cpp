// The gpu route of sgeqrf/dgeqrf: A's QR on a CUDA device, one TSQR up to the panel width,
// panels of TSQRs beyond (blocked_qr.hpp), taken automatically for tall-skinny shapes that pay
// (src/route.cpp) when a CUDA device is present. A in host memory up to the panel width streams
// up in chunks, the leaves of each chunk factored as it arrives, and V and R stream back once
// everything ran. A wider one of at least kStreamedPanelsMinBytes streams a panel at a time, each
// going back while the panels after it go up (streamed_qr.hpp); a smaller one goes up whole
// before its panels.
#include <string>
#include <vector>

#include "calls.hpp"
#include "device/probe.hpp"
#include "dispatch.hpp"
#include "optimal_lwork.hpp"
#include "qr/gpu/cost.hpp"
#include "qr/gpu/drivers.hpp"
#include "qr/gpu/fallback_on_host.hpp"
#include "qr/gpu/outcome.hpp"
#include "qr/gpu/residence.hpp"
#include "qr/gpu/split_devices.hpp"
#include "qr/gpu/split_tsqr.hpp"
#include "qr/gpu/streamed_qr.hpp"

namespace switchyard {
namespace qr::gpu {

template <class T>
bool geqrf_gpu(int m, int n, T* a, int lda, T* tau, std::string& error) {
  if (m < n || n < 1 || n > kMaxColumns || lda < m) {
    error = "invalid arguments";
    return false;
  }
  // A large host matrix's rows are split over the devices SWITCHYARD_DEVICES names, once they
  // have started (the first such call starts them; it and those until they are up run on one
  // device). So is managed memory whose shares the program prefetched to those devices: one
  // device would fetch the others' rows over the link (2^22 x 64 on two H200s: 6.2 ms split,
  // 70-100 ms on one). Other device data stays on its device.
  const std::vector<int>& wanted = cuda::device_ordinals();
  if (splits(wanted, m, n) &&
      pays_to_split(sizeof(T) * std::size_t(m) * std::size_t(n), wanted.size()) &&
      (!cuda::device_accessible(a) || lies_split(wanted, a, lda, m, n)) &&
      cuda::started_device_ordinals().size() == wanted.size()) {
    if (!geqrf_split(wanted, m, n, a, lda, tau, error)) return false;
    ran_as = split_note(wanted);
    return true;
  }
  if (n > kSingleTsqrColumns &&
      sizeof(T) * std::size_t(m) * std::size_t(n) >= kStreamedPanelsMinBytes &&
      !cuda::device_accessible(a) && !cuda::device_accessible(tau)) {
    return geqrf_streamed(m, n, a, lda, tau, error);
  }
  return cuda::run_guarded(error, [&] {
    Residence where;
    if (where.status() != cudaSuccess) return cuda::fail(error, "no stream", where.status());
    const cudaStream_t stream = where.stream();
    Operand<T> on_a(where, a, lda, m, n);
    if (on_a.status() != cudaSuccess) return cuda::fail(error, "no copy of A", on_a.status());
    cuda::DeviceBuffer device_tau(sizeof(T) * std::size_t(n), stream);
    if (device_tau.status() != cudaSuccess) {
      return cuda::fail(error, "no device workspace", device_tau.status());
    }
    T* const tau_out = static_cast<T*>(device_tau.get());

    cudaError_t status;
    if (n <= kSingleTsqrColumns) {
      // One TSQR: each chunk's leaves factored as the chunk arrives.
      TsqrTree<T> tree(m, n, on_a.get(), on_a.ld(), stream);
      status = tree.status();
      if (status == cudaSuccess) {
        status = on_a.arrive(n, kTsqrBlockRows, [&](long long first, long long rows) {
          return tree.factor_leaves(first, rows);
        });
      }
      if (status == cudaSuccess) status = tree.finish(tau_out);
    } else {
      // Panels on device data, or on a host A that goes up whole (small, or tau on the device).
      status = on_a.arrive();
      if (status == cudaSuccess) status = enqueue_qr(m, n, on_a.get(), on_a.ld(), tau_out, stream);
    }
    std::vector<T> host_tau;
    if (status == cudaSuccess) status = to_host(tau_out, n, host_tau, stream);
    return finish_call(
        where, status, on_a.in_place() ? "QR on device data" : "QR on host data", error, [&] {
          on_a.write_back();
          cudaMemcpy(tau, host_tau.data(), sizeof(T) * host_tau.size(), cudaMemcpyDefault);
        });
  });
}

template bool geqrf_gpu<float>(int, int, float*, int, float*, std::string&);
template bool geqrf_gpu<double>(int, int, double*, int, double*, std::string&);

}  // namespace qr::gpu

namespace {

template <class T>
const char* declines(const GeqrfCall<T>& g) {
  if (g.m < g.n) return "TSQR needs m >= n";
  if (g.n > qr::gpu::kMaxColumns) return "the GPU QR takes at most 256 columns";
  return nullptr;
}

template <class T>
bool run(const GeqrfCall<T>& g) {
  std::string error;
  if (!qr::gpu::ran(qr::gpu::geqrf_gpu(g.m, g.n, g.a, g.lda, g.tau, error),
                    qr::gpu::of_precision<T>(Routine::sgeqrf, Routine::dgeqrf), error)) {
    return false;
  }
  cuda::store(g.work, optimal_lwork(g));
  *g.info = 0;
  return true;
}

template <class T>
bool resident(const GeqrfCall<T>& g) {
  return cuda_device_pointer(g.a);
}

template <class T>
const RouteCost cost{
    device::Family::cuda,
    qr::gpu::device_seconds<T, qr::gpu::of_precision<T>(Routine::sgeqrf, Routine::dgeqrf)>};

template <class T>
const Implementation<GeqrfCall<T>> gpu_geqrf{
    cuda::unavailable, declines<T>, run<T>,      nullptr,
    nullptr,           &cost<T>,    resident<T>, qr::gpu::fallback_on_host<GeqrfCall<T>>};

// Plugging the route in: the router sees it from the first call on, and a background start
// starts the CUDA device through it.
[[maybe_unused]] const bool registered = [] {
  Implementations<GeqrfCall<float>>::gpu = &gpu_geqrf<float>;
  Implementations<GeqrfCall<double>>::gpu = &gpu_geqrf<double>;
  // A start in the background makes the context and pins the first staging.
  device::register_starter(device::Family::cuda, [] {
    if (!cuda::unavailable()) cuda::Staging().pin();
  });
  return true;
}();

}  // namespace
}  // namespace switchyard
