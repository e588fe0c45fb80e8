// pdgeqrf-timing [--repeat R] [M_LOG2xN ...]   (run under mpirun)
//
// Times ScaLAPACK's pdgeqrf of a 2^M_LOG2 x N double matrix on a P x 1 grid of all the
// processes, each holding one block of rows (MB = M / P rounded up, NB = N), as a tall-skinny
// matrix is usually laid out. Run alone, it times ScaLAPACK; with libswitchyard.so preloaded,
// what Switchyard makes of the call (SWITCHYARD_ROUTE_PDGEQRF=cpu forces its TSQR, =fallback
// ScaLAPACK). Each time is the best of R runs on a fresh copy (the copy not timed), of the
// slowest process, between barriers; best-of, because other work only ever adds time.
// "check" is max_j | ||R(:,j)|| / ||A(:,j)|| - 1 |, which an orthogonal Q keeps at rounding
// level; ScaLAPACK's xdqr checks the factorization itself in the tests.
// Defaults: --repeat 5 20x32.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

extern "C" {
void blacs_pinfo_(int* rank, int* processes);
void blacs_get_(const int* context, const int* what, int* value);
void blacs_gridinit_(int* context, const char* order, const int* nprow, const int* npcol,
                     std::size_t order_length);
void blacs_gridexit_(const int* context);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* rsrc,
               const int* csrc, const int* context, const int* lld, int* info);
void pdgeqrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca,
              double* tau, double* work, const int* lwork, int* info);
}

namespace {

struct Shape {
  int log2_rows;
  int n;
};

// One shape on the grid; returns false on an error, which it reports.
bool time_shape(int context, int rank, int processes, Shape shape, int repeat) {
  const int m = 1 << shape.log2_rows, n = shape.n;
  const int mb = (m + processes - 1) / processes;
  const int first = rank * mb;
  const int rows = std::max(0, std::min(mb, m - first));
  const int lld = std::max(1, rows), zero = 0, one = 1;
  int desc[9], info = 0;
  descinit_(desc, &m, &n, &mb, &n, &zero, &zero, &context, &lld, &info);
  if (info != 0) {
    if (rank == 0) std::fprintf(stderr, "descinit: info %d\n", info);
    return false;
  }
  std::vector<double> original(std::size_t(lld) * n), a(original.size()), tau(n);
  std::mt19937_64 random(12345 + std::uint64_t(rank));
  std::normal_distribution<double> gaussian;
  for (double& x : original) x = gaussian(random);

  std::vector<double> norms(n), local(n, 0.0);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < rows; ++i)
      local[j] += original[i + std::size_t(j) * lld] * original[i + std::size_t(j) * lld];
  }
  MPI_Allreduce(local.data(), norms.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  double query = 0;
  const int minus_one = -1;
  pdgeqrf_(&m, &n, a.data(), &one, &one, desc, tau.data(), &query, &minus_one, &info);
  const int lwork = int(query);
  std::vector<double> work(std::max(1, lwork));
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    a = original;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    pdgeqrf_(&m, &n, a.data(), &one, &one, desc, tau.data(), work.data(), &lwork, &info);
    double seconds = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    best = std::min(best, slowest);
    if (info != 0) {
      if (rank == 0) std::fprintf(stderr, "pdgeqrf: info %d\n", info);
      return false;
    }
  }
  if (rank == 0) {
    // Process 0 holds R: its rows are the first mb >= n.
    double check = 0;
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int i = 0; i <= j; ++i) sum += a[i + std::size_t(j) * lld] * a[i + std::size_t(j) * lld];
      check = std::max(check, std::fabs(std::sqrt(sum / norms[j]) - 1));
    }
    std::printf("pdgeqrf 2^%d x %d  %d x 1 grid  MB %d  best of %d: %.3e s  check %.1e\n",
                shape.log2_rows, n, processes, mb, repeat, best, check);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int repeat = 5;
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    Shape s{};
    if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (std::sscanf(arg.c_str(), "%dx%d", &s.log2_rows, &s.n) == 2 && s.log2_rows > 0 &&
               s.log2_rows < 31 && s.n > 0) {
      shapes.push_back(s);
    } else {
      std::fprintf(stderr, "usage: pdgeqrf-timing [--repeat R] [M_LOG2xN ...]\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (shapes.empty()) shapes.push_back({20, 32});
  int rank = 0, processes = 1, context = 0;
  blacs_pinfo_(&rank, &processes);
  const int system = 0, what = 0, single_column = 1;
  blacs_get_(&system, &what, &context);
  blacs_gridinit_(&context, "C", &processes, &single_column, 1);
  bool ok = true;
  for (const Shape& s : shapes) {
    if (s.n > (1 << s.log2_rows) / processes) {
      if (rank == 0)
        std::fprintf(stderr, "2^%d x %d: fewer rows per process than columns\n", s.log2_rows, s.n);
      ok = false;
      continue;
    }
    ok = time_shape(context, rank, processes, s, repeat) && ok;
  }
  blacs_gridexit_(&context);
  MPI_Finalize();
  return ok ? 0 : 1;
}
