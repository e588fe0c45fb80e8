// The gpu route of sormqr/dormqr (SIDE = 'L'): Q or Q^T applied on a CUDA device as one
// compact-WY block (wy_block.hpp), or as several past kWyMaxReflectors reflectors or
// kWyMaxColumns columns of C, taken automatically for tall-skinny shapes that pay
// (src/route.cpp) when a CUDA device is present. For one block, the passes over V and C run on
// each chunk as it arrives from host memory, and large host matrices are split over several
// devices (split_apply.hpp).
#include <optional>
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
#include "qr/gpu/split_apply.hpp"
#include "qr/gpu/split_devices.hpp"
#include "qr/gpu/split_tsqr.hpp"

namespace switchyard {
namespace qr::gpu {

template <class T>
bool ormqr_gpu(bool transpose, int m, int nc, int k, const T* a, int lda, const T* tau, T* c,
               int ldc, std::string& error) {
  if (k < 1 || k > kWideMax || k > m || nc < 1 || nc > kWideMax || lda < m || ldc < m) {
    error = "invalid arguments";
    return false;
  }
  // Large host matrices' rows are split over the devices SWITCHYARD_DEVICES names, as geqrf.cpp
  // splits them, once they have started; so are managed V and C that both lie split over them.
  const std::vector<int>& wanted = cuda::device_ordinals();
  const bool on_host = !cuda::device_accessible(a) && !cuda::device_accessible(c);
  if (apply_splits(wanted, m, k, k + nc) &&
      pays_to_split(sizeof(T) * std::size_t(m) * std::size_t(k + nc), wanted.size()) &&
      (on_host || (lies_split(wanted, a, lda, m, k) && lies_split(wanted, c, ldc, m, nc))) &&
      cuda::started_device_ordinals().size() == wanted.size()) {
    if (!ormqr_split(wanted, transpose, m, nc, k, a, lda, tau, c, ldc, error)) return false;
    ran_as = split_note(wanted);
    return true;
  }
  return cuda::run_guarded(error, [&] {
    Residence where;
    if (where.status() != cudaSuccess) return cuda::fail(error, "no stream", where.status());
    const cudaStream_t stream = where.stream();
    // V is only read: a copy of it is never written back.
    Operand<T> v(where, const_cast<T*>(a), lda, m, k);
    Operand<T> on_c(where, c, ldc, m, nc);
    if (v.status() != cudaSuccess) return cuda::fail(error, "no copy of A", v.status());
    if (on_c.status() != cudaSuccess) return cuda::fail(error, "no copy of C", on_c.status());
    cudaError_t status;
    if (k <= kWyMaxReflectors && nc <= kWyMaxColumns) {
      // One block: V^T V summed as V arrives, then V^T C as C arrives after it.
      WyBlock<T> block(m, k, nc, stream);
      const Reflectors<T> reflectors{v.get(), v.ld(), k};
      status = block.status();
      if (status == cudaSuccess) status = block.take_tau(tau);
      if (status == cudaSuccess) {
        status = v.arrive(k, kWyBlockRows, [&](long long f, long long r) {
          return block.gram_rows(reflectors, f, r);
        });
      }
      if (status == cudaSuccess) status = block.sum_gram();
      if (status == cudaSuccess) {
        status = on_c.arrive(nc, kWyBlockRows, [&](long long f, long long r) {
          return block.product_rows(reflectors, false, on_c.get(), on_c.ld(), nc, f, r);
        });
      }
      if (status == cudaSuccess) status = block.sum_product(false, nc);
      if (status == cudaSuccess) {
        status = block.apply(reflectors, transpose, false, nc, on_c.get(), on_c.ld());
      }
    } else {
      status = v.arrive();
      if (status == cudaSuccess) status = on_c.arrive();
      if (status == cudaSuccess) {
        status = apply_q_blocks(transpose, m, nc, k, static_cast<const T*>(v.get()), v.ld(), tau,
                                on_c.get(), on_c.ld(), stream);
      }
    }
    return finish_call(where, status, "the GPU failed", error, [&] { on_c.write_back(); });
  });
}

template bool ormqr_gpu<float>(bool, int, int, int, const float*, int, const float*, float*, int,
                               std::string&);
template bool ormqr_gpu<double>(bool, int, int, int, const double*, int, const double*, double*,
                                int, std::string&);

}  // namespace qr::gpu

namespace {

template <class T>
const char* declines(const OrmqrCall<T>& g) {
  if (g.side != 'L') return "the GPU applies Q from the left only";
  if (g.k > qr::gpu::kWideMax) return "the GPU applies at most 256 reflectors";
  if (g.n > qr::gpu::kWideMax) return "the GPU applies Q to at most 256 columns";
  return nullptr;
}

template <class T>
bool run(const OrmqrCall<T>& g) {
  std::string error;
  if (!qr::gpu::ran(
          qr::gpu::ormqr_gpu(g.trans == 'T', g.m, g.n, g.k, g.a, g.lda, g.tau, g.c, g.ldc, error),
          qr::gpu::of_precision<T>(Routine::sormqr, Routine::dormqr), error)) {
    return false;
  }
  cuda::store(g.work, optimal_lwork(g));
  *g.info = 0;
  return true;
}

template <class T>
bool resident(const OrmqrCall<T>& g) {
  return cuda_device_pointer(g.a) || cuda_device_pointer(g.c);
}

template <class T>
const RouteCost cost{
    device::Family::cuda,
    qr::gpu::device_seconds<T, qr::gpu::of_precision<T>(Routine::sormqr, Routine::dormqr)>};

template <class T>
const Implementation<OrmqrCall<T>> gpu_ormqr{
    cuda::unavailable, declines<T>, run<T>,      nullptr,
    nullptr,           &cost<T>,    resident<T>, qr::gpu::fallback_on_host<OrmqrCall<T>>};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<OrmqrCall<float>>::gpu = &gpu_ormqr<float>;
  Implementations<OrmqrCall<double>>::gpu = &gpu_ormqr<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
