#include "cg/cg_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <thread>
#include <vector>

#include "cg/spmv_cpu.hpp"
#include "cg/team.hpp"
#include "switchyard.h"

namespace switchyard::cg {
namespace {

// Below this many rows per thread, barriers cost more than the rows.
constexpr Index kMinRowsPerThread = 32768;

bool finite(double v) { return std::isfinite(v); }

// The Jacobi preconditioner, 1 / a(i, i); the status that stops the solve
// before it starts when a diagonal entry cannot belong to an SPD matrix.
template <class V>
int inverse_diagonal(const std::vector<V>& diag, std::vector<double>& inverse) {
  inverse.resize(diag.size());
  for (std::size_t i = 0; i < diag.size(); ++i) {
    const double d = double(diag[i]);
    if (!finite(d)) return SWITCHYARD_CG_NAN;
    if (d <= 0.0) return SWITCHYARD_CG_PRECONDITIONER_NOT_SPD;
    inverse[i] = 1.0 / d;
  }
  return SWITCHYARD_CG_CONVERGED;
}

// The stopping criterion's value from the team's sums.
struct Sums {
  double bb = 0, rz = 0, rr = 0, zz = 0, dd = 0, ee = 0;
};

double criterion_value(const CgParams& p, const Sums& s) {
  switch (p.criterion) {
    case Criterion::residual: return std::sqrt(s.rr) / std::sqrt(s.bb);
    case Criterion::preconditioned_residual: return std::sqrt(s.zz) / std::sqrt(s.dd);
    case Criterion::error: return s.dd > 0 ? std::sqrt(s.ee) / std::sqrt(s.dd) : std::sqrt(s.ee);
  }
  return 0.0;
}

}  // namespace

int cg_cpu_threads(Index n) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return int(std::max<Index>(1, std::min<Index>(cores, n / kMinRowsPerThread)));
}

template <class Matrix>
CgOutcome cg_cpu(const Matrix& a, const double* b, double* x, const CgParams& params,
                 int wanted_threads) {
  const Index n = a.n;
  CgOutcome outcome;
  std::vector<double> inv;
  if (params.jacobi) {
    if (const int bad = inverse_diagonal(a.diag, inv)) {
      outcome.status = bad;
      outcome.error = outcome.relative_residual = NAN;
      return outcome;
    }
  }
  std::vector<double> r(static_cast<std::size_t>(n)), p(r.size()), q(r.size());
  std::vector<double> z_storage(params.jacobi ? std::size_t(n) : 0);
  double* z = params.jacobi ? z_storage.data() : r.data();
  const double* s = params.solution;
  // (M^-1 b)'(M^-1 b) for the preconditioned criterion, s's for the error.
  const bool preconditioned = params.criterion == Criterion::preconditioned_residual;
  const bool against_solution = params.criterion == Criterion::error;

  std::optional<TeamSums> team;
  run_team(
      int(std::max<Index>(1, std::min<Index>(wanted_threads, n))),
      [&](int threads) { team.emplace(threads); },
      [&](int t, int threads) {
        const Index r0 = n * t / threads, r1 = n * (t + 1) / threads;
        Sums s_all;
        int status = SWITCHYARD_CG_MAX_ITERATIONS;
        int iterations = 0;
        double error = 0.0;

        // r = b - A x, z = M^-1 r, and the sums the criterion needs.
        if (params.use_initial_guess) {
          spmv_rows(a, x, q.data(), r0, r1);
        } else {
          std::fill(x + r0, x + r1, 0.0);
          std::fill(q.begin() + r0, q.begin() + r1, 0.0);
        }
        {
          double mine[6] = {};
          for (Index i = r0; i < r1; ++i) {
            const double ri = b[i] - q[std::size_t(i)];
            r[std::size_t(i)] = ri;
            const double zi = params.jacobi ? inv[std::size_t(i)] * ri : ri;
            z[i] = zi;
            mine[0] += b[i] * b[i];
            mine[1] += ri * zi;
            mine[2] += ri * ri;
            mine[3] += zi * zi;
            if (preconditioned) {
              const double mb = inv[std::size_t(i)] * b[i];
              mine[4] += mb * mb;
            } else if (against_solution) {
              const double e = x[i] - s[i];
              mine[4] += s[i] * s[i];
              mine[5] += e * e;
            }
          }
          double all[6];
          team->sum(t, mine, all);
          s_all = {all[0], all[1], all[2], all[3], all[4], all[5]};
        }

        if (s_all.bb == 0.0 && finite(s_all.bb)) {
          // b = 0: the solution is x = 0.
          std::fill(x + r0, x + r1, 0.0);
          status = SWITCHYARD_CG_CONVERGED;
        } else if (!finite(s_all.bb + s_all.rz + s_all.rr + s_all.zz + s_all.dd + s_all.ee)) {
          status = SWITCHYARD_CG_NAN;
          error = NAN;
        } else if ((error = criterion_value(params, s_all)) <= params.tolerance) {
          status = SWITCHYARD_CG_CONVERGED;
        } else {
          double rz = s_all.rz, rz_previous = 0.0;
          for (int k = 1; k <= params.max_iterations; ++k) {
            if (!(rz > 0.0)) {
              status = SWITCHYARD_CG_PRECONDITIONER_NOT_SPD;
              break;
            }
            const double beta = k == 1 ? 0.0 : rz / rz_previous;
            for (Index i = r0; i < r1; ++i) p[std::size_t(i)] = z[i] + beta * p[std::size_t(i)];
            team->wait();  // the product reads p from the neighbours' rows

            double pq[1] = {spmv_rows(a, p.data(), q.data(), r0, r1)}, pq_all[1];
            team->sum(t, pq, pq_all);
            if (!finite(pq_all[0])) {
              status = SWITCHYARD_CG_NAN;
              error = NAN;
              break;
            }
            if (pq_all[0] <= 0.0) {
              status = SWITCHYARD_CG_NOT_SPD;
              break;
            }
            const double alpha = rz / pq_all[0];

            double mine[4] = {};
            for (Index i = r0; i < r1; ++i) {
              const std::size_t u = std::size_t(i);
              x[i] += alpha * p[u];
              const double ri = r[u] - alpha * q[u];
              r[u] = ri;
              const double zi = params.jacobi ? inv[u] * ri : ri;
              z[i] = zi;
              mine[0] += ri * zi;
              mine[1] += ri * ri;
              mine[2] += zi * zi;
              if (against_solution) mine[3] += (x[i] - s[i]) * (x[i] - s[i]);
            }
            double all[4];
            team->sum(t, mine, all);
            iterations = k;
            s_all.rz = all[0], s_all.rr = all[1], s_all.zz = all[2], s_all.ee = all[3];
            if (!finite(all[0] + all[1] + all[2] + all[3])) {
              status = SWITCHYARD_CG_NAN;
              error = NAN;
              break;
            }
            if ((error = criterion_value(params, s_all)) <= params.tolerance) {
              status = SWITCHYARD_CG_CONVERGED;
              break;
            }
            rz_previous = rz;
            rz = s_all.rz;
          }
        }

        // The residual of the x returned, recomputed rather than recurred.
        team->wait();
        spmv_rows(a, x, q.data(), r0, r1);
        double mine[1] = {}, all[1];
        for (Index i = r0; i < r1; ++i) {
          const double ri = b[i] - q[std::size_t(i)];
          mine[0] += ri * ri;
        }
        team->sum(t, mine, all);
        if (t == 0) {
          outcome.status = status;
          outcome.iterations = iterations;
          outcome.error = error;
          outcome.relative_residual = s_all.bb > 0 ? std::sqrt(all[0] / s_all.bb) : std::sqrt(all[0]);
        }
      });
  return outcome;
}

template CgOutcome cg_cpu<DiaHalf<double>>(const DiaHalf<double>&, const double*, double*,
                                           const CgParams&, int);
template CgOutcome cg_cpu<DiaHalf<float>>(const DiaHalf<float>&, const double*, double*,
                                          const CgParams&, int);
template CgOutcome cg_cpu<CsrFull<double>>(const CsrFull<double>&, const double*, double*,
                                           const CgParams&, int);
template CgOutcome cg_cpu<CsrFull<float>>(const CsrFull<float>&, const double*, double*,
                                          const CgParams&, int);

}  // namespace switchyard::cg
