#include "cg/solve.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <string>

#include "cg/cg_cpu.hpp"
#include "cg/convert.hpp"
#include "cg/gpu_backend.hpp"
#include "cg/read_input.hpp"
#include "config.hpp"
#include "trace.hpp"

namespace switchyard::cg {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

const char* format_name(const switchyard_cg_matrix& a) {
  switch (a.format) {
    case SWITCHYARD_CG_CSR: return a.symmetry == SWITCHYARD_CG_FULL ? "csr-full" : "csr-triangle";
    case SWITCHYARD_CG_SLAP_TRIAD:
      return a.symmetry == SWITCHYARD_CG_FULL ? "slap-triad-full" : "slap-triad-triangle";
    case SWITCHYARD_CG_SLAP_COLUMN:
      return a.symmetry == SWITCHYARD_CG_FULL ? "slap-column-full" : "slap-column-triangle";
    case SWITCHYARD_CG_DIA: return a.symmetry == SWITCHYARD_CG_FULL ? "dia-full" : "dia-half";
  }
  return "?";
}

const char* status_word(int status) {
  switch (status) {
    case SWITCHYARD_CG_CONVERGED: return "converged";
    case SWITCHYARD_CG_MAX_ITERATIONS: return "max-iterations";
    case SWITCHYARD_CG_NOT_SPD: return "not-spd";
    case SWITCHYARD_CG_PRECONDITIONER_NOT_SPD: return "preconditioner-not-spd";
    case SWITCHYARD_CG_NAN: return "nan";
    case SWITCHYARD_CG_ERR_N: return "bad-n";
    case SWITCHYARD_CG_ERR_INDEX: return "bad-index";
    case SWITCHYARD_CG_ERR_UNSORTED: return "unsorted";
    case SWITCHYARD_CG_ERR_DUPLICATE: return "duplicate";
    case SWITCHYARD_CG_ERR_NOT_SYMMETRIC: return "not-symmetric";
    case SWITCHYARD_CG_ERR_ARGUMENT: return "bad-argument";
    case SWITCHYARD_CG_ERR_NO_MEMORY: return "no-memory";
  }
  return "?";
}

// What the trace line says of one solve.
struct TraceFacts {
  const char* input = "?";
  const char* values = "double";
  const char* kernel = "-";
  int ndiag = 0;
  double dia_mb = 0.0, csr_mb = 0.0;  // bytes per product of each form, when measured
  double convert_ms = 0.0;
  const char* route = "-";
  std::string reason;
};

void trace(const SolveRequest& request, const switchyard_cg_matrix& a, const TraceFacts& f,
           const switchyard_cg_result& r, double seconds, std::uint64_t id) {
  if (!trace_enabled()) return;
  char line[640];
  std::snprintf(line, sizeof line,
                "switchyard: call=%llu parent=0 depth=0 %s n=%d input=%s values=%s kernel=%s "
                "ndiag=%d dia_mb=%.3f csr_mb=%.3f convert_ms=%.3f route=%s reason=\"%s\" "
                "status=%s iterations=%d relres=%.3e time_ms=%.3f\n",
                (unsigned long long)id, request.caller, a.n, f.input, f.values, f.kernel, f.ndiag,
                f.dia_mb, f.csr_mb, f.convert_ms, f.route, f.reason.c_str(),
                status_word(r.status), r.iterations, r.relative_residual, seconds * 1e3);
  write_trace_line(line);
}

int check_request(const switchyard_cg_matrix& a, const double* b, const double* x,
                  const SolveRequest& q) {
  if (!b || !x) return SWITCHYARD_CG_ERR_ARGUMENT;
  const CgParams& p = q.params;
  if (!(p.tolerance >= 0.0) || !std::isfinite(p.tolerance) || p.max_iterations < 0) {
    return SWITCHYARD_CG_ERR_ARGUMENT;
  }
  if (p.criterion == Criterion::preconditioned_residual && !p.jacobi) {
    return SWITCHYARD_CG_ERR_ARGUMENT;
  }
  if (p.criterion == Criterion::error && !p.solution) return SWITCHYARD_CG_ERR_ARGUMENT;
  if (q.backend < SWITCHYARD_CG_AUTO || q.backend > SWITCHYARD_CG_GPU) {
    return SWITCHYARD_CG_ERR_ARGUMENT;
  }
  if (q.kernel < SWITCHYARD_CG_KERNEL_AUTO || q.kernel > SWITCHYARD_CG_KERNEL_CSR) {
    return SWITCHYARD_CG_ERR_ARGUMENT;
  }
  (void)a;
  return 0;
}

// Host or device: the caller's choice, else SWITCHYARD_CG_BACKEND, else the
// device when there is one and the matrix is large enough.
int pick_backend(const SolveRequest& q, int n, std::string& reason) {
  int wanted = q.backend;
  if (wanted == SWITCHYARD_CG_AUTO) {
    switch (config().cg.backend) {
      case RouteChoice::gpu: wanted = SWITCHYARD_CG_GPU; break;
      case RouteChoice::cpu:
      case RouteChoice::fallback: wanted = SWITCHYARD_CG_CPU; break;
      case RouteChoice::automatic: break;
    }
    if (wanted != SWITCHYARD_CG_AUTO) reason = "SWITCHYARD_CG_BACKEND; ";
  } else {
    reason = "asked for; ";
  }
  if (wanted == SWITCHYARD_CG_CPU) {
    reason += "cpu";
    return SWITCHYARD_CG_CPU;
  }
  if (!gpu_backend) {
    reason += "no gpu route in this build";
    return SWITCHYARD_CG_CPU;
  }
  if (wanted == SWITCHYARD_CG_AUTO && n < config().cg.gpu_min_rows) {
    reason += "n below SWITCHYARD_CG_GPU_MIN_ROWS";
    return SWITCHYARD_CG_CPU;
  }
  if (const char* why = gpu_backend->unusable()) {
    reason += std::string("gpu unusable: ") + why;
    return SWITCHYARD_CG_CPU;
  }
  reason += "gpu";
  return SWITCHYARD_CG_GPU;
}

bool run_on_gpu(const DiaHalf<double>& a, const double* b, double* x, const CgParams& p,
                CgOutcome& o, const char** why) {
  return gpu_backend->solve_dia_double(a, b, x, p, o, why);
}
bool run_on_gpu(const DiaHalf<float>& a, const double* b, double* x, const CgParams& p,
                CgOutcome& o, const char** why) {
  return gpu_backend->solve_dia_float(a, b, x, p, o, why);
}
template <class V>
bool run_on_gpu(const CsrFull<V>&, const double*, double*, const CgParams&, CgOutcome&,
                const char** why) {
  *why = "the gpu route has no CSR kernel";
  return false;
}

template <class Matrix>
void run(const Matrix& m, const double* b, double* x, const SolveRequest& q, TraceFacts& facts,
         SolveReport& report) {
  std::string reason;
  int backend = pick_backend(q, m.n, reason);
  CgOutcome outcome;
  if (backend == SWITCHYARD_CG_GPU) {
    const char* why = "";
    if (!run_on_gpu(m, b, x, q.params, outcome, &why)) {
      reason += std::string("; gpu declined or failed, ran on the cpu: ") + why;
      backend = SWITCHYARD_CG_CPU;
    }
  }
  if (backend == SWITCHYARD_CG_CPU) outcome = cg_cpu(m, b, x, q.params, cg_cpu_threads(m.n));
  facts.route = backend == SWITCHYARD_CG_GPU ? "gpu" : "cpu";
  facts.reason = reason;
  report.result.status = outcome.status;
  report.result.iterations = outcome.iterations;
  report.result.relative_residual = outcome.relative_residual;
  report.result.backend = backend;
  report.error = outcome.error;
}

template <class V>
void solve_typed(const switchyard_cg_matrix& a, const double* b, double* x,
                 const SolveRequest& q, TraceFacts& facts, SolveReport& report) {
  const Clock::time_point start = Clock::now();
  InputError e;
  if (a.format == SWITCHYARD_CG_DIA) {
    DiaHalf<V> dia;
    if ((e = read_dia(a, dia)).status == 0) {
      facts.ndiag = dia.ndiag();
      facts.dia_mb = dia_product_bytes<V>(a.n, dia.ndiag()) * 1e-6;
      if (q.kernel == SWITCHYARD_CG_KERNEL_CSR) {
        CsrFull<V> csr = csr_from_lower(lower_from_dia(dia, false));
        dia = DiaHalf<V>();
        facts.kernel = "csr";
        facts.convert_ms = seconds_since(start) * 1e3;
        report.result.kernel = SWITCHYARD_CG_KERNEL_CSR;
        run(csr, b, x, q, facts, report);
      } else {
        facts.kernel = "dia";
        facts.convert_ms = seconds_since(start) * 1e3;
        report.result.kernel = SWITCHYARD_CG_KERNEL_DIA;
        run(dia, b, x, q, facts, report);
      }
      return;
    }
  } else {
    LowerCsr<V> lower;
    if ((e = read_sparse(a, lower)).status == 0) {
      const Kernel forced = q.kernel == SWITCHYARD_CG_KERNEL_DIA ? Kernel::dia : Kernel::csr;
      const KernelChoice c = choose_kernel(lower, config().cg.dia_max_ratio,
                                           q.kernel == SWITCHYARD_CG_KERNEL_AUTO ? nullptr : &forced);
      facts.ndiag = c.ndiag;
      facts.dia_mb = c.dia_bytes * 1e-6;
      facts.csr_mb = c.csr_bytes * 1e-6;
      if (c.kernel == Kernel::dia) {
        DiaHalf<V> dia = dia_from_lower(lower);
        lower = LowerCsr<V>();
        facts.kernel = "dia";
        facts.convert_ms = seconds_since(start) * 1e3;
        report.result.kernel = SWITCHYARD_CG_KERNEL_DIA;
        run(dia, b, x, q, facts, report);
      } else {
        CsrFull<V> csr = csr_from_lower(lower);
        lower = LowerCsr<V>();
        facts.kernel = "csr";
        facts.convert_ms = seconds_since(start) * 1e3;
        report.result.kernel = SWITCHYARD_CG_KERNEL_CSR;
        run(csr, b, x, q, facts, report);
      }
      return;
    }
  }
  report.result.status = e.status;
  report.result.bad_entry = e.bad_entry;
}

}  // namespace

SolveReport solve(const switchyard_cg_matrix& a, const double* b, double* x,
                  const SolveRequest& request) {
  const Clock::time_point start = Clock::now();
  const std::uint64_t id = next_call_id();
  SolveReport report;
  report.result.bad_entry = -1;
  report.result.backend = SWITCHYARD_CG_CPU;
  report.result.kernel = SWITCHYARD_CG_KERNEL_AUTO;
  TraceFacts facts;
  facts.input = format_name(a);
  facts.values = a.value_type == SWITCHYARD_CG_FLOAT ? "float" : "double";
  int status = check_request(a, b, x, request);
  if (status == 0) status = check_descriptor(a).status;
  if (status != 0) {
    report.result.status = status;
  } else {
    try {
      if (a.value_type == SWITCHYARD_CG_FLOAT) {
        solve_typed<float>(a, b, x, request, facts, report);
      } else {
        solve_typed<double>(a, b, x, request, facts, report);
      }
    } catch (const std::exception&) {
      // Host memory (or threads) ran out while reading or converting; the
      // solve never started, so x is as the caller gave it.
      report.result.status = SWITCHYARD_CG_ERR_NO_MEMORY;
    }
  }
  if (report.result.status < 0) report.result.relative_residual = NAN;
  trace(request, a, facts, report.result, seconds_since(start), id);
  return report;
}

}  // namespace switchyard::cg
