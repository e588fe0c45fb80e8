// switchyard gen-fem: the FEM Poisson test problem of the seed (see
// src/cg/fem_poisson.hpp), built directly in half-storage DIA on host
// threads. --mtx writes its lower triangle as a Matrix Market file
// (symmetric, coordinate); --solve solves it through switchyard_cg_solve
// and reports iterations, time and the error against the exact solution.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "cg/convert.hpp"
#include "cg/fem_poisson.hpp"
#include "cg/formats_out.hpp"
#include "cg_commands.hpp"
#include "switchyard.h"

namespace {

using switchyard::cg::DiaHalf;
using switchyard::cg::FemGrid;
using switchyard::cg::FormattedMatrix;
using switchyard::cg::Index;

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int usage(FILE* out = stderr, int status = 2) {
  std::fputs(
      "usage: switchyard gen-fem NX NY NZ [--mtx=PATH] [--solve] [--float]\n"
      "                          [--backend=auto|cpu|gpu] [--tol=T] [--threads=N]\n"
      "Builds the sparse CG's FEM Poisson problem (Q1 hexahedra on an NX x NY x NZ node\n"
      "grid of the unit box, u = 0 on x = 0, du/dn = 1 on x = 1, exact solution u = x),\n"
      "builds it, writes it (--mtx) and solves it (--solve), printing iterations, time\n"
      "and the error against u = x.\n"
      "  NX NY NZ         nodes per direction (>= 2 each), box [0,1]^3\n"
      "  --mtx=PATH       write the lower triangle as Matrix Market (symmetric)\n"
      "  --solve          solve with switchyard_cg_solve (Jacobi CG)\n"
      "  --float          store the matrix values in float\n"
      "  --backend=B      where the solve runs (default auto)\n"
      "  --tol=T          relative residual to reach (default 1e-12)\n"
      "  --threads=N      threads building the matrix (default: all cores)\n"
      "example: switchyard gen-fem 64 64 64 --solve --backend=cpu\n",
      out);
  return status;
}

template <class V>
bool write_matrix_market(const DiaHalf<V>& a, const char* path) {
  std::FILE* f = std::fopen(path, "w");
  if (!f) return false;
  Index entries = a.n;  // the diagonal
  for (int d = 0; d < a.ndiag(); ++d) {
    for (Index i = a.offsets[std::size_t(d)]; i < a.n; ++i) entries += a.lower_diagonal(d)[i] != V(0);
  }
  std::fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n");
  std::fprintf(f, "%% switchyard gen-fem: Q1 Poisson, u = 0 on x = 0, du/dn = 1 on x = 1\n");
  std::fprintf(f, "%d %d %lld\n", a.n, a.n, (long long)entries);
  for (Index i = 0; i < a.n; ++i) {
    for (int d = a.ndiag() - 1; d >= 0; --d) {
      const Index m = a.offsets[std::size_t(d)];
      if (i >= m && a.lower_diagonal(d)[i] != V(0)) {
        std::fprintf(f, "%lld %lld %.17g\n", (long long)i + 1, (long long)(i - m) + 1,
                     double(a.lower_diagonal(d)[i]));
      }
    }
    std::fprintf(f, "%lld %lld %.17g\n", (long long)i + 1, (long long)i + 1, double(a.diag[std::size_t(i)]));
  }
  return std::fclose(f) == 0;
}

template <class V>
int run(const FemGrid& g, int threads, const std::string& mtx, bool solve, int backend,
        double tol) {
  Clock::time_point t = Clock::now();
  const DiaHalf<V> a = switchyard::cg::fem_poisson_dia<V>(g, threads);
  std::printf("grid %d x %d x %d: n = %d, %d lower diagonals, built in %.3f s on %d threads\n",
              g.nx, g.ny, g.nz, a.n, a.ndiag(), since(t), threads);
  if (!mtx.empty()) {
    if (!write_matrix_market(a, mtx.c_str())) {
      std::fprintf(stderr, "switchyard gen-fem: cannot write %s\n", mtx.c_str());
      return 1;
    }
    std::printf("wrote %s\n", mtx.c_str());
  }
  if (!solve) return 0;
  const std::vector<double> b = switchyard::cg::fem_poisson_rhs(g);
  const std::vector<double> u = switchyard::cg::fem_poisson_solution(g);
  const FormattedMatrix<V> lower = switchyard::cg::to_dia(a, SWITCHYARD_CG_TRIANGLE);
  const switchyard_cg_matrix m = lower.descriptor();
  switchyard_cg_options o;
  switchyard_cg_options_default(&o);
  o.tolerance = tol;
  o.backend = backend;
  o.max_iterations = 100000;
  std::vector<double> x(b.size());
  switchyard_cg_result r;
  t = Clock::now();
  const int status = switchyard_cg_solve(&m, b.data(), x.data(), &o, &r);
  const double seconds = since(t);
  double error = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) error = std::max(error, std::abs(x[i] - u[i]));
  std::printf("solve: %s on the %s, %d iterations, relative residual %.3e, %.3f s "
              "(%.3f ms per iteration), max error against u = x %.3e\n",
              switchyard_cg_status_string(status), r.backend == SWITCHYARD_CG_GPU ? "gpu" : "cpu",
              r.iterations, r.relative_residual, seconds,
              r.iterations ? seconds * 1e3 / r.iterations : 0.0, error);
  return status == SWITCHYARD_CG_CONVERGED ? 0 : 1;
}

}  // namespace

int gen_fem_command(int argc, char** argv) {
  if (argc >= 1 && (std::string(argv[0]) == "--help" || std::string(argv[0]) == "-h")) {
    return usage(stdout, 0);
  }
  if (argc < 3) return usage();
  FemGrid g;
  g.nx = std::atoi(argv[0]);
  g.ny = std::atoi(argv[1]);
  g.nz = std::atoi(argv[2]);
  if (!switchyard::cg::fem_grid_valid(g)) {
    std::fprintf(stderr, "switchyard gen-fem: need NX, NY, NZ >= 2 with NX NY NZ < 2^31\n");
    return usage();
  }
  std::string mtx;
  bool solve = false, single = false;
  int backend = SWITCHYARD_CG_AUTO;
  double tol = 1e-12;
  int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--mtx=", 0) == 0) {
      mtx = arg.substr(6);
    } else if (arg == "--solve") {
      solve = true;
    } else if (arg == "--float") {
      single = true;
    } else if (arg == "--backend=auto" || arg == "--backend=cpu" || arg == "--backend=gpu") {
      backend = arg == "--backend=cpu" ? SWITCHYARD_CG_CPU
                : arg == "--backend=gpu" ? SWITCHYARD_CG_GPU : SWITCHYARD_CG_AUTO;
    } else if (arg.rfind("--tol=", 0) == 0) {
      tol = std::atof(arg.c_str() + 6);
    } else if (arg.rfind("--threads=", 0) == 0 && std::atoi(arg.c_str() + 10) > 0) {
      threads = std::atoi(arg.c_str() + 10);
    } else {
      std::fprintf(stderr, "switchyard gen-fem: unknown option %s\n", arg.c_str());
      return usage();
    }
  }
  return single ? run<float>(g, threads, mtx, solve, backend, tol)
                : run<double>(g, threads, mtx, solve, backend, tol);
}
