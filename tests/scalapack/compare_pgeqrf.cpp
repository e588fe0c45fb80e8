// Runs pdgeqrf and psgeqrf as the program sees them (Switchyard's, when it is preloaded) and
// ScaLAPACK's own (looked up in libscalapack-openmpi) on the same distributed matrices, and
// fails unless they agree: the same INFO and WORK(1), sub(A) and TAU equal to rounding,
// everything else in the local arrays and TAU bit for bit, and the Q that ScaLAPACK's pxORGQR
// forms from each equal to rounding. The cases cover what the xQR
// testers do not: IA and JA offsets, sources other than process 0, 2 x 2 grids where JA's
// column block holds the columns, a grid smaller than the run, a layout the TSQR declines,
// and too small an LWORK, which ScaLAPACK must report. Run under mpirun on 4 processes.
#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

extern "C" {
void blacs_get_(const int* context, const int* what, int* value);
void blacs_gridinit_(int* context, const char* order, const int* nprow, const int* npcol,
                     std::size_t order_length);
void blacs_gridinfo_(const int* context, int* nprow, int* npcol, int* myrow, int* mycol);
void blacs_gridexit_(const int* context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* rsrc,
               const int* csrc, const int* context, const int* lld, int* info);
void pdgeqrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca,
              double* tau, double* work, const int* lwork, int* info);
void pdorgqr_(const int* m, const int* n, const int* k, double* a, const int* ia, const int* ja,
              const int* desca, const double* tau, double* work, const int* lwork, int* info);
void psorgqr_(const int* m, const int* n, const int* k, float* a, const int* ia, const int* ja,
              const int* desca, const float* tau, float* work, const int* lwork, int* info);
void psgeqrf_(const int* m, const int* n, float* a, const int* ia, const int* ja, const int* desca,
              float* tau, float* work, const int* lwork, int* info);
}

namespace {

template <class T>
using Pgeqrf = void(const int*, const int*, T*, const int*, const int*, const int*, T*, T*,
                    const int*, int*);

struct Case {
  const char* what;
  int nprow, npcol;
  int rows, cols;  // of the whole matrix
  int m, n, ia, ja;
  int mb, nb, rsrc, csrc;
  bool short_lwork;
};

template <class T>
struct Precision;
template <>
struct Precision<double> {
  static constexpr const char* name = "pdgeqrf";
  static constexpr const char* symbol = "pdgeqrf_";
  static constexpr Pgeqrf<double>* program = pdgeqrf_;
  static constexpr auto orgqr = pdorgqr_;
  static constexpr double tolerance = 1e-12;
};
template <>
struct Precision<float> {
  static constexpr const char* name = "psgeqrf";
  static constexpr const char* symbol = "psgeqrf_";
  static constexpr Pgeqrf<float>* program = psgeqrf_;
  static constexpr auto orgqr = psorgqr_;
  static constexpr float tolerance = 2e-5f;
};

template <class T>
Pgeqrf<T>* scalapacks() {
  void* library = dlopen("libscalapack-openmpi.so.2.2", RTLD_LAZY | RTLD_NOLOAD);
  void* symbol = library ? dlsym(library, Precision<T>::symbol) : nullptr;
  return reinterpret_cast<Pgeqrf<T>*>(symbol);
}

// Entry (i, j) of the whole matrix, 0-based: the same on every process, away from any
// structure.
double entry(int i, int j) { return std::sin(0.7 * i + 1.3 * j + 0.01 * i * j) + (i == j); }

// Runs one case on this process; returns the number of mismatches it found here.
template <class T>
int run_case(const Case& c, int rank) {
  const int zero = 0, system_what = 0;
  int context = 0;
  blacs_get_(&zero, &system_what, &context);
  blacs_gridinit_(&context, "R", &c.nprow, &c.npcol, 1);
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  blacs_gridinfo_(&context, &nprow, &npcol, &myrow, &mycol);
  if (nprow < 0) return 0;  // not in this grid
  const int local_rows = numroc_(&c.rows, &c.mb, &myrow, &c.rsrc, &nprow);
  const int local_cols = numroc_(&c.cols, &c.nb, &mycol, &c.csrc, &npcol);
  const int lld = std::max(1, local_rows);
  int desc[9], info = 0;
  descinit_(desc, &c.rows, &c.cols, &c.mb, &c.nb, &c.rsrc, &c.csrc, &context, &lld, &info);
  std::vector<T> a(std::size_t(lld) * std::max(1, local_cols));
  std::vector<char> in_sub(a.size(), 0);
  for (int jl = 0; jl < local_cols; ++jl) {
    const int j = (jl / c.nb * npcol + (npcol + mycol - c.csrc) % npcol) * c.nb + jl % c.nb;
    for (int il = 0; il < local_rows; ++il) {
      const int i = (il / c.mb * nprow + (nprow + myrow - c.rsrc) % nprow) * c.mb + il % c.mb;
      const std::size_t k = il + std::size_t(jl) * lld;
      a[k] = T(entry(i, j));
      in_sub[k] = i >= c.ia - 1 && i < c.ia - 1 + c.m && j >= c.ja - 1 && j < c.ja - 1 + c.n;
    }
  }
  std::vector<T> b = a;
  const std::size_t tau_size = std::size_t(std::max(1, local_cols));
  std::vector<T> tau_a(tau_size, T(-7)), tau_b(tau_size, T(-7));
  T query = 0;
  const int minus_one = -1;
  Precision<T>::program(&c.m, &c.n, a.data(), &c.ia, &c.ja, desc, tau_a.data(), &query, &minus_one,
                        &info);
  const int lwork = c.short_lwork ? int(query) - 1 : int(query);
  std::vector<T> work_a(std::size_t(std::max(1, int(query)))), work_b(work_a.size());
  int info_a = 0, info_b = 0;
  Precision<T>::program(&c.m, &c.n, a.data(), &c.ia, &c.ja, desc, tau_a.data(), work_a.data(),
                        &lwork, &info_a);
  scalapacks<T>()(&c.m, &c.n, b.data(), &c.ia, &c.ja, desc, tau_b.data(), work_b.data(), &lwork,
                  &info_b);

  int mismatches = 0;
  const auto fail = [&](const char* what, double x, double y) {
    if (mismatches++ < 3) {
      std::printf("FAIL %s %s rank %d: %s: %g against ScaLAPACK's %g\n", Precision<T>::name, c.what,
                  rank, what, x, y);
    }
  };
  if (info_a != info_b) fail("INFO", info_a, info_b);
  if (work_a[0] != work_b[0]) fail("WORK(1)", double(work_a[0]), double(work_b[0]));
  T scale = 0;
  for (T x : b) scale = std::max(scale, std::fabs(x));
  for (std::size_t k = 0; k < a.size(); ++k) {
    // Outside sub(A) both leave A as it was, so it must be equal there.
    const bool same = in_sub[k] ? std::fabs(double(a[k]) - double(b[k])) <=
                                      double(Precision<T>::tolerance) * double(scale)
                                : a[k] == b[k];
    if (!same) fail("A", double(a[k]), double(b[k]));
  }
  for (std::size_t k = 0; k < tau_size; ++k) {
    if (tau_b[k] == T(-7)
            ? tau_a[k] != T(-7)
            : std::fabs(double(tau_a[k]) - double(tau_b[k])) > double(Precision<T>::tolerance)) {
      fail("TAU", double(tau_a[k]), double(tau_b[k]));
    }
  }
  // ScaLAPACK's pxORGQR must form the same Q from either factorization.
  if (info_a == 0 && info_b == 0) {
    T size = 0;
    Precision<T>::orgqr(&c.m, &c.n, &c.n, a.data(), &c.ia, &c.ja, desc, tau_a.data(), &size,
                        &minus_one, &info);
    const int q_lwork = int(size);
    std::vector<T> q_work(std::size_t(std::max(1, q_lwork)));
    Precision<T>::orgqr(&c.m, &c.n, &c.n, a.data(), &c.ia, &c.ja, desc, tau_a.data(), q_work.data(),
                        &q_lwork, &info_a);
    Precision<T>::orgqr(&c.m, &c.n, &c.n, b.data(), &c.ia, &c.ja, desc, tau_b.data(), q_work.data(),
                        &q_lwork, &info_b);
    if (info_a != 0 || info_b != 0) fail("pxORGQR's INFO", info_a, info_b);
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (in_sub[k] && std::fabs(double(a[k]) - double(b[k])) > double(Precision<T>::tolerance)) {
        fail("Q", double(a[k]), double(b[k]));
      }
    }
  }
  blacs_gridexit_(&context);
  return mismatches;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Case cases[] = {
      {"4x1, IA 5, JA 3, RSRC 1", 4, 1, 300, 10, 290, 6, 5, 3, 16, 4, 1, 0, false},
      {"2x2, JA in column block 1", 2, 2, 220, 24, 200, 8, 3, 9, 7, 8, 1, 1, false},
      {"2x2, JA offset in its block", 2, 2, 150, 16, 150, 6, 1, 3, 10, 8, 0, 0, false},
      {"3x1 on 4, fewer rows than N", 3, 1, 40, 20, 40, 20, 1, 1, 4, 20, 0, 0, false},
      {"1x1", 1, 1, 100, 5, 97, 5, 2, 1, 32, 5, 0, 0, false},
      {"2x2, columns span two blocks", 2, 2, 150, 16, 150, 7, 1, 3, 10, 8, 0, 0, false},
      {"4x1, LWORK too small", 4, 1, 300, 10, 300, 6, 1, 1, 16, 6, 0, 0, true},
  };
  if (!scalapacks<double>() || !scalapacks<float>()) {
    if (rank == 0) std::printf("FAIL: ScaLAPACK's own pdgeqrf_/psgeqrf_ not found\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int mismatches = 0;
  for (const Case& c : cases) {
    if (c.nprow * c.npcol > size) continue;
    mismatches += run_case<double>(c, rank);
    mismatches += run_case<float>(c, rank);
  }
  int total = 0;
  MPI_Allreduce(&mismatches, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0)
    std::printf("PASS: %zu cases agree with ScaLAPACK\n", std::size(cases));
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
