// The gpu route of sorgqr/dorgqr: Q formed on a CUDA device as one compact-WY block
// (wy_block.hpp), or as several past kWyMaxColumns columns, taken automatically for
// tall-skinny shapes that pay (src/route.cpp) when a CUDA device is present. For one block,
// the first pass over V runs on each chunk as it arrives from host memory, and a large host
// matrix is split over several devices (split_apply.hpp).
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
bool orgqr_gpu(int m, int n, int k, T* a, int lda, const T* tau, std::string& error) {
  if (k < 1 || k > n || n > kWideMax || n > m || lda < m || !q_blocks_fit(n, k)) {
    error = "invalid arguments";
    return false;
  }
  // A large host matrix's rows are split over the devices SWITCHYARD_DEVICES names, as geqrf.cpp
  // splits them, once they have started; so is managed memory that lies split over them.
  const std::vector<int>& wanted = cuda::device_ordinals();
  if (apply_splits(wanted, m, k, n) &&
      pays_to_split(sizeof(T) * std::size_t(m) * std::size_t(n), wanted.size()) &&
      (!cuda::device_accessible(a) || lies_split(wanted, a, lda, m, n)) &&
      cuda::started_device_ordinals().size() == wanted.size()) {
    if (!orgqr_split(wanted, m, n, k, a, lda, tau, error)) return false;
    ran_as = split_note(wanted);
    return true;
  }
  return cuda::run_guarded(error, [&] {
    Residence where;
    if (where.status() != cudaSuccess) return cuda::fail(error, "no stream", where.status());
    const cudaStream_t stream = where.stream();
    Operand<T> q(where, a, lda, m, n);
    if (q.status() != cudaSuccess) return cuda::fail(error, "no copy of A", q.status());
    cudaError_t status;
    if (n <= kWyMaxColumns) {
      // One block: V^T V summed as V's columns arrive; Q is formed over them.
      WyBlock<T> block(m, k, n, stream);
      const Reflectors<T> v{q.get(), q.ld(), k};
      status = block.status();
      if (status == cudaSuccess) status = block.take_tau(tau);
      if (status == cudaSuccess) {
        status = q.arrive(k, kWyBlockRows, [&](long long first, long long rows) {
          return block.gram_rows(v, first, rows);
        });
      }
      if (status == cudaSuccess) status = block.sum_gram();
      if (status == cudaSuccess) status = block.form(v, n, q.get(), q.ld());
    } else {
      status = q.arrive();
      if (status == cudaSuccess) status = form_q_blocks(m, n, k, q.get(), q.ld(), tau, stream);
    }
    return finish_call(where, status, "the GPU failed", error, [&] { q.write_back(); });
  });
}

template bool orgqr_gpu<float>(int, int, int, float*, int, const float*, std::string&);
template bool orgqr_gpu<double>(int, int, int, double*, int, const double*, std::string&);

}  // namespace qr::gpu

namespace {

template <class T>
const char* declines(const OrgqrCall<T>& g) {
  if (g.k == 0) return "no reflectors: Q is the identity's first columns";
  if (g.n > qr::gpu::kWideMax) return "the GPU forms at most 256 columns of Q";
  if (!qr::gpu::q_blocks_fit(g.n, g.k)) {
    return "more than 64 columns of Q from the last block of reflectors on";
  }
  return nullptr;
}

template <class T>
bool run(const OrgqrCall<T>& g) {
  std::string error;
  if (!qr::gpu::ran(qr::gpu::orgqr_gpu(g.m, g.n, g.k, g.a, g.lda, g.tau, error),
                    qr::gpu::of_precision<T>(Routine::sorgqr, Routine::dorgqr), error)) {
    return false;
  }
  cuda::store(g.work, optimal_lwork(g));
  *g.info = 0;
  return true;
}

template <class T>
bool resident(const OrgqrCall<T>& g) {
  return cuda_device_pointer(g.a);
}

template <class T>
const RouteCost cost{
    device::Family::cuda,
    qr::gpu::device_seconds<T, qr::gpu::of_precision<T>(Routine::sorgqr, Routine::dorgqr)>};

template <class T>
const Implementation<OrgqrCall<T>> gpu_orgqr{
    cuda::unavailable, declines<T>, run<T>,      nullptr,
    nullptr,           &cost<T>,    resident<T>, qr::gpu::fallback_on_host<OrgqrCall<T>>};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<OrgqrCall<float>>::gpu = &gpu_orgqr<float>;
  Implementations<OrgqrCall<double>>::gpu = &gpu_orgqr<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
