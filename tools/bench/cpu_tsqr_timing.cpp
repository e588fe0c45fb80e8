// cpu-tsqr-timing [--repeat R] [--threads P] [--block-rows H,...] [M_LOG2xN ...]
//
// Times the CPU TSQR (tsqr::factor_cpu with the LAPACK this program is linked with serving the
// short shapes) against that LAPACK's own xGEQRF on the same column-major 2^M_LOG2 x N Gaussian
// matrix, in double and float. Each time is the best of R runs on a fresh copy (the copy not
// timed); best-of, because other work on the machine only ever adds time. "check" is the
// largest relative difference of |R(j,j)| between the two factorizations. With --block-rows,
// the TSQR is also timed with leaves of each height H (factor_cpu_with_block_rows), one line
// each. Defaults: 18x32 18x64 16x8.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tsqr/cpu_tsqr.hpp"

extern "C" {
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
}

namespace {

using switchyard::tsqr::Lapack;

template <class T>
struct Linked;
template <>
struct Linked<float> {
  static constexpr const char* name = "s";
  static constexpr auto geqrf = sgeqrf_;
  static Lapack<float> table() { return {sgeqrf_}; }
};
template <>
struct Linked<double> {
  static constexpr const char* name = "d";
  static constexpr auto geqrf = dgeqrf_;
  static Lapack<double> table() { return {dgeqrf_}; }
};

template <class Prepare, class Run>
double best_seconds(int repeat, const Prepare& prepare, const Run& run) {
  double best = INFINITY;
  for (int r = 0; r < repeat; ++r) {
    prepare();
    const auto start = std::chrono::steady_clock::now();
    run();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count());
  }
  return best;
}

template <class T>
void time_block_rows(int m, int n, int repeat, int threads, const std::vector<T>& input,
                     int block_rows) {
  std::vector<T> a;
  std::vector<T> tau(static_cast<std::size_t>(n));
  const Lapack<T> table = Linked<T>::table();
  int status = 0;
  const double seconds = best_seconds(
      repeat, [&] { a = input; },
      [&] {
        status |= switchyard::tsqr::factor_cpu_with_block_rows(m, n, a.data(), m, tau.data(), table,
                                                               threads, block_rows);
      });
  std::printf("%sgeqrf %8d x %3d  leaves of %6d rows     tsqr %9.4f s (%d threads)%s\n",
              Linked<T>::name, m, n, block_rows, seconds, threads,
              status ? "  (tsqr refused)" : "");
}

template <class T>
void time_shape(int m, int n, int repeat, int threads, const std::vector<int>& block_rows) {
  std::vector<T> input(std::size_t(m) * n);
  std::mt19937_64 rng(42);
  std::normal_distribution<T> normal;
  for (T& x : input) x = normal(rng);

  std::vector<T> reference = input;
  std::vector<T> tau(static_cast<std::size_t>(n));
  int lwork = -1, info = 0;
  T query{};
  Linked<T>::geqrf(&m, &n, reference.data(), &m, tau.data(), &query, &lwork, &info);
  lwork = std::max(1, int(query));
  std::vector<T> work(static_cast<std::size_t>(lwork));
  const double lapack_seconds = best_seconds(repeat, [&] { reference = input; }, [&] {
    Linked<T>::geqrf(&m, &n, reference.data(), &m, tau.data(), work.data(), &lwork, &info);
  });

  std::vector<T> tsqr = input;
  const Lapack<T> table = Linked<T>::table();
  int status = 0;
  const double tsqr_seconds = best_seconds(repeat, [&] { tsqr = input; }, [&] {
    status |= switchyard::tsqr::factor_cpu(m, n, tsqr.data(), m, tau.data(), table, threads);
  });

  double check = 0;
  for (int j = 0; j < n; ++j) {
    const double ours = std::abs(double(tsqr[j + std::size_t(j) * m]));
    const double theirs = std::abs(double(reference[j + std::size_t(j) * m]));
    check = std::max(check, std::abs(ours - theirs) / theirs);
  }
  std::printf("%sgeqrf %8d x %3d  lapack %9.4f s  tsqr %9.4f s (%d threads)  speedup %6.2fx  "
              "check %.1e%s\n",
              Linked<T>::name, m, n, lapack_seconds, tsqr_seconds, threads,
              lapack_seconds / tsqr_seconds, check, status ? "  (tsqr refused)" : "");
  for (int rows : block_rows) time_block_rows(m, n, repeat, threads, input, rows);
}

// A comma-separated list of positive heights; false if anything else is in it.
bool parse_rows(const char* list, std::vector<int>& rows) {
  for (const char* p = list;;) {
    char* end = nullptr;
    const long value = std::strtol(p, &end, 10);
    if (end == p || value < 1 || value > (1L << 30)) return false;
    rows.push_back(int(value));
    if (*end == '\0') return true;
    if (*end != ',') return false;
    p = end + 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  const unsigned cores = std::thread::hardware_concurrency();
  int threads = cores ? int(cores) : 1;
  std::vector<std::pair<int, int>> shapes;
  std::vector<int> block_rows;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--repeat" || arg == "--threads") && i + 1 < argc) {
      (arg == "--repeat" ? repeat : threads) = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--block-rows" && i + 1 < argc && parse_rows(argv[++i], block_rows)) {
    } else if (int m_log2 = 0, n = 0; std::sscanf(arg.c_str(), "%dx%d", &m_log2, &n) == 2 &&
                                      m_log2 > 0 && m_log2 < 31 && n > 0) {
      shapes.emplace_back(1 << m_log2, n);
    } else {
      std::fprintf(stderr,
                   "usage: cpu-tsqr-timing [--repeat R] [--threads P] [--block-rows H,...] "
                   "[M_LOG2xN ...]\n");
      return 2;
    }
  }
  if (shapes.empty()) shapes = {{1 << 18, 32}, {1 << 18, 64}, {1 << 16, 8}};
  for (const auto& [m, n] : shapes) {
    time_shape<double>(m, n, repeat, threads, block_rows);
    time_shape<float>(m, n, repeat, threads, block_rows);
  }
  return 0;
}
