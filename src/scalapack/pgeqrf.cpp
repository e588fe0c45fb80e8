#include "pgeqrf.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "calibration.hpp"
#include "calls.hpp"
#include "config.hpp"
#include "dispatch.hpp"
#include "distributed_tsqr.hpp"
#include "distribution.hpp"
#include "fallback.hpp"
#include "gpu_ranks.hpp"
#include "mpi_runtime.hpp"
#include "rank_threads.hpp"
#include "trace.hpp"

namespace switchyard::scalapack {
namespace {

template <class T>
constexpr Routine routine = sizeof(T) == 8 ? Routine::pdgeqrf : Routine::psgeqrf;
template <class T>
constexpr Routine local_routine = sizeof(T) == 8 ? Routine::dgeqrf : Routine::sgeqrf;

// The widest sub(A) the default routing gives the TSQR: on 2 ranks of the 2-core build machine
// it beat ScaLAPACK (on reference BLAS) up to 2^15 x 512, 2.0x there, and tied at 2^14 x 1024,
// where each rank factors the stack of R factors, 5 P N^3 flops, alone (docs/scalapack.md).
constexpr int kWidestByDefault = 512;
// The fewest rows the default routing gives the TSQR, or SWITCHYARD_TSQR_MIN_ROWS if more: the
// fewest at which it was measured against ScaLAPACK (docs/scalapack.md).
constexpr int kFewestByDefault = 16384;

// What every process sends to agree: its verdicts (the TSQR, and its GPU variant) and the
// arguments that must be the same on all of them (ScaLAPACK's PCHK1MAT compares these too).
struct Agreement {
  int takes, gpu;
  int m, n, ia, ja, dtype, rows, cols, mb, nb, rsrc, csrc;
};

Agreement agreement(bool takes, bool gpu, int m, int n, int ia, int ja, const Descriptor& d) {
  return {takes ? 1 : 0, gpu ? 1 : 0, m, n, ia, ja, d.dtype, d.m, d.n, d.mb, d.nb, d.rsrc, d.csrc};
}

bool same_arguments(const Agreement& a, const Agreement& b) {
  return a.m == b.m && a.n == b.n && a.ia == b.ia && a.ja == b.ja && a.dtype == b.dtype &&
         a.rows == b.rows && a.cols == b.cols && a.mb == b.mb && a.nb == b.nb && a.rsrc == b.rsrc &&
         a.csrc == b.csrc;
}

Decision decision(Backend b, const char* format, const char* detail = "") {
  Decision d;
  d.backend = b;
  std::snprintf(d.reason, sizeof d.reason, format, detail);
  return d;
}

// Why this process would not take the call, or null.
template <class T>
const char* local_verdict(bool forced, int m, int n, int ia, int ja, const Descriptor& d,
                          const Grid& g, int lwork) {
  if (lwork == -1) return "workspace query";
  if (check_arguments(m, n, ia, ja, d, g) != 0) {
    return "an argument is invalid: ScaLAPACK reports it";
  }
  if (lwork < minimum_lwork(m, n, ia, ja, d, g)) return "LWORK < LWMIN: ScaLAPACK reports it";
  if (const char* why = layout_declines(m, n, ia, ja, d, g)) return why;
  if (!forced) {
    const Thresholds& t = config().thresholds;
    if (m < kFewestByDefault) return "too small: M < 16384";
    if (m < t.tsqr_min_rows) return "too small: M < SWITCHYARD_TSQR_MIN_ROWS";
    if (double(m) < t.tsqr_min_aspect * double(n)) {
      return "not tall-skinny: M/N < SWITCHYARD_TSQR_MIN_ASPECT";
    }
    if (n > kWidestByDefault) return "N > 512: not measured to beat ScaLAPACK";
  }
  if (factor_bytes(n, sizeof(T)) * std::size_t(g.nprow * g.npcol) > std::size_t(INT32_MAX)) {
    return "N too large for one all-gather";
  }
  return nullptr;
}

// Whether this process's rows, as a local xGEQRF, would go to its device by the router's model
// (the device's start-up if it is cold), weighed against the CPU TSQR and the fallback on this
// process's share of the host's cores; why not in `why`.
template <class T>
bool local_rows_go_to_gpu(int h, int n, char* why, std::size_t size) {
  using Call = GeqrfCall<T>;
  const HostView host = current_host_view(calibration_of(fallback().lapack_origin, rank_threads()));
  const Decision d =
      decide(config(), local_routine<T>, Shape{h, n}, nullptr,
             candidate(Implementations<Call>::cpu), candidate(Implementations<Call>::gpu), &host);
  // The rows run inside this call, not alone: what they forwent is the model's figure.
  if (d.cold) count_forgone(*d.cold, d.cold->modelled_gain(), nullptr, 0);
  if (d.backend == Backend::gpu) return true;
  // The trace line has room for the start of the local decision's reason only.
  std::snprintf(why, size, "its rows as a local %s: %.120s", routine_name(local_routine<T>),
                d.reason);
  return false;
}

// Why this process would not take its share on its device, or null, once the TSQR takes the
// call; a reason made here is written to `because`.
template <class T>
const char* gpu_verdict(bool forced, int m, int n, const T* a, int ia, int ja, const Descriptor& d,
                        const Grid& g, char* because, std::size_t size) {
  const GpuRanks<T>* gpu = GpuRanks<T>::plugged;
  if (!gpu) return "this build has no CUDA routes";
  if (const char* why = gpu_layout_declines(m, n, ia, d, g)) return why;
  const Share share = share_of(m, ia, ja, d, g);
  if (!share.in_column || share.rows == 0) return nullptr;  // nothing of its own to factor
  if (gpu->resident(a + share.first_row + std::ptrdiff_t{share.first_col} * d.lld)) {
    return "sub(A) is in device memory";
  }
  if (!forced && !local_rows_go_to_gpu<T>(share.rows, n, because, size)) return because;
  return gpu->unusable();
}

// The processes' joint verdict, once every process's Agreement is in `all`.
Decision joint_verdict(RouteChoice choice, const Agreement& mine, const std::vector<Agreement>& all,
                       const char* why_not, const char* why_not_gpu) {
  if (why_not) return decision(Backend::fallback, "%s", why_not);
  bool every_gpu = true;
  for (const Agreement& other : all) {
    if (!same_arguments(other, mine)) {
      return decision(Backend::fallback, "the processes' arguments differ: ScaLAPACK reports it");
    }
    if (!other.takes) return decision(Backend::fallback, "another process of the grid declines");
    every_gpu = every_gpu && other.gpu;
  }
  const char* gpu_missing = why_not_gpu ? why_not_gpu : "another process declines its GPU share";
  if (choice == RouteChoice::gpu) {
    if (every_gpu) return decision(Backend::gpu, "forced");
    return decision(Backend::fallback, "forced gpu: %s", gpu_missing);
  }
  if (every_gpu) return decision(Backend::gpu, "auto");
  if (choice == RouteChoice::cpu) return decision(Backend::cpu, "forced");
  return decision(Backend::cpu, "auto; not on the GPUs: %s", gpu_missing);
}

// Decides with the other processes; where the TSQR takes the call on the CPU, the
// factorization is allocated and ready.
template <class T>
Decision agree(RouteChoice choice, int m, int n, T* a, int ia, int ja, const Descriptor& d,
               int lwork, const Grid& g, const GridCommunicator& comm,
               std::optional<DistributedTsqr<T>>& run) {
  const char* why_not =
      local_verdict<T>(choice != RouteChoice::automatic, m, n, ia, ja, d, g, lwork);
  const char* why_not_gpu = "not asked for";
  char because[160] = "";
  if (!why_not && choice != RouteChoice::cpu) {
    why_not_gpu =
        gpu_verdict(choice == RouteChoice::gpu, m, n, a, ia, ja, d, g, because, sizeof because);
  }
  // The CPU TSQR is ready wherever it may run: a process whose device takes its share may be
  // outvoted by another's.
  if (!why_not && choice != RouteChoice::gpu) {
    const Share share = share_of(m, ia, ja, d, g);
    run.emplace(layout_of(n, ia, ja, d, g), share.in_column ? share.rows : 0,
                a + share.first_row + std::ptrdiff_t{share.first_col} * d.lld, d.lld,
                rank_threads());
    if (run->allocate() != kOk) why_not = "out of memory";
  }
  const Agreement mine = agreement(!why_not, !why_not && !why_not_gpu, m, n, ia, ja, d);
  std::vector<Agreement> all(std::size_t(comm.size()));
  if (!comm.all_gather(&mine, all.data(), sizeof mine)) {
    return decision(Backend::fallback, "MPI_Allgather failed");
  }
  return joint_verdict(choice, mine, all, why_not, why_not_gpu);
}

[[noreturn]] void exchange_failed(Routine r) {
  // A is partly overwritten, and ScaLAPACK cannot take over a collective half done.
  std::fprintf(stderr,
               "switchyard: fatal: an exchange of %s's TSQR failed (MPI, or host memory for it)\n",
               routine_name(r));
  std::abort();
}

}  // namespace

template <class T>
void pgeqrf(int m, int n, T* a, int ia, int ja, const int* desca, T* tau, T* work, int lwork,
            int* info, PgeqrfFn<T>* scalapack) {
  CallRecord record(routine<T>, Shape{m, n});
  const Config& cfg = config();
  const RouteChoice choice = cfg.route[int(routine<T>)];
  const auto to_scalapack = [&](const Decision& d) {
    record.set_decision(d);
    scalapack(&m, &n, a, &ia, &ja, desca, tau, work, &lwork, info);
  };
  if (cfg.disabled) return to_scalapack(decision(Backend::fallback, "disabled"));
  if (choice == RouteChoice::fallback) return to_scalapack(decision(Backend::fallback, "forced"));
  if (const char* why = mpi_unusable()) return to_scalapack(decision(Backend::fallback, "%s", why));
  const Descriptor d = descriptor_from(desca);
  const Grid g = grid_info(d.ctxt);
  if (g.nprow < 0) {
    return to_scalapack(decision(Backend::fallback, "this process is not in the context's grid"));
  }
  GridCommunicator comm;
  if (const char* why = comm.open(d.ctxt, g)) {
    return to_scalapack(decision(Backend::fallback, "%s", why));
  }
  std::optional<DistributedTsqr<T>> run;
  Decision verdict = agree(choice, m, n, a, ia, ja, d, lwork, g, comm, run);
  if (verdict.backend == Backend::fallback) return to_scalapack(verdict);
  const Share share = share_of(m, ia, ja, d, g);
  const auto gather = [&comm](const void* mine, void* all, std::size_t bytes) {
    return comm.all_gather(mine, all, bytes);
  };
  T* const my_tau = share.in_column ? tau + share.first_col : nullptr;
  if (verdict.backend == Backend::gpu) {
    const GpuRanks<T>& gpu = *GpuRanks<T>::plugged;
    const int status = gpu.run(layout_of(n, ia, ja, d, g), share.in_column ? share.rows : 0,
                               a + share.first_row + std::ptrdiff_t{share.first_col} * d.lld, d.lld,
                               my_tau, gather);
    if (status == kGpuStepFailed) {
      return to_scalapack(
          decision(Backend::fallback, "gpu route failed on a process: ran in ScaLAPACK"));
    }
    if (status != kOk) exchange_failed(routine<T>);
    const std::size_t used = std::strlen(verdict.reason);
    std::snprintf(verdict.reason + used, sizeof verdict.reason - used, "; on CUDA device %d",
                  gpu.device());
  } else if (run->run(gather, my_tau) != kOk) {
    exchange_failed(routine<T>);
  }
  work[0] = T(minimum_lwork(m, n, ia, ja, d, g));
  *info = 0;
  record.set_decision(verdict);
}

template void pgeqrf<float>(int, int, float*, int, int, const int*, float*, float*, int, int*,
                            PgeqrfFn<float>*);
template void pgeqrf<double>(int, int, double*, int, int, const int*, double*, double*, int, int*,
                             PgeqrfFn<double>*);

}  // namespace switchyard::scalapack
