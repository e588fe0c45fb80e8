#include "pgeqrf.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "config.hpp"
#include "distributed_tsqr.hpp"
#include "distribution.hpp"
#include "mpi_runtime.hpp"
#include "rank_threads.hpp"
#include "trace.hpp"

namespace switchyard::scalapack {
namespace {

template <class T>
constexpr Routine routine = sizeof(T) == 8 ? Routine::pdgeqrf : Routine::psgeqrf;

// The widest sub(A) the default routing gives the TSQR: on 2 ranks of the 2-core build machine
// it beat ScaLAPACK (on reference BLAS) up to 2^15 x 512, 2.0x there, and tied at 2^14 x 1024,
// where each rank factors the stack of R factors, 5 P N^3 flops, alone (docs/scalapack.md).
constexpr int kWidestByDefault = 512;

// What every process sends to agree: its verdict and the arguments that must be the same on
// all of them (ScaLAPACK's PCHK1MAT compares these too).
struct Agreement {
  int takes;
  int m, n, ia, ja, dtype, rows, cols, mb, nb, rsrc, csrc;
};

Agreement agreement(bool takes, int m, int n, int ia, int ja, const Descriptor& d) {
  return {takes ? 1 : 0, m, n, ia, ja, d.dtype, d.m, d.n, d.mb, d.nb, d.rsrc, d.csrc};
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

// Decides with the other processes; on success the factorization is allocated and ready.
template <class T>
Decision agree(bool forced, int m, int n, T* a, int ia, int ja, const Descriptor& d, int lwork,
               const Grid& g, const GridCommunicator& comm,
               std::optional<DistributedTsqr<T>>& run) {
  const char* why_not = local_verdict<T>(forced, m, n, ia, ja, d, g, lwork);
  if (!why_not) {
    const Share share = share_of(m, ia, ja, d, g);
    run.emplace(layout_of(n, ia, ja, d, g), share.in_column ? share.rows : 0,
                a + share.first_row + std::ptrdiff_t{share.first_col} * d.lld, d.lld,
                rank_threads());
    if (run->allocate() != kOk) why_not = "out of memory";
  }
  const Agreement mine = agreement(!why_not, m, n, ia, ja, d);
  std::vector<Agreement> all(std::size_t(comm.size()));
  if (!comm.all_gather(&mine, all.data(), sizeof mine)) {
    return decision(Backend::fallback, "MPI_Allgather failed");
  }
  if (why_not) return decision(Backend::fallback, "%s", why_not);
  for (const Agreement& other : all) {
    if (!same_arguments(other, mine)) {
      return decision(Backend::fallback, "the processes' arguments differ: ScaLAPACK reports it");
    }
    if (!other.takes) return decision(Backend::fallback, "another process of the grid declines");
  }
  return decision(Backend::cpu, forced ? "forced" : "auto");
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
  if (choice == RouteChoice::gpu) {
    return to_scalapack(decision(Backend::fallback, "forced gpu: %s has no gpu route in this build",
                                 routine_name(routine<T>)));
  }
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
  const Decision verdict =
      agree(choice == RouteChoice::cpu, m, n, a, ia, ja, d, lwork, g, comm, run);
  if (verdict.backend == Backend::fallback) return to_scalapack(verdict);
  const Share share = share_of(m, ia, ja, d, g);
  const auto gather = [&comm](const void* mine, void* all, std::size_t bytes) {
    return comm.all_gather(mine, all, bytes);
  };
  if (run->run(gather, share.in_column ? tau + share.first_col : nullptr) != kOk) {
    // A is partly overwritten, and ScaLAPACK cannot take over a collective half done.
    std::fprintf(stderr, "switchyard: fatal: MPI_Allgather failed in %s's TSQR\n",
                 routine_name(routine<T>));
    std::abort();
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
