// switchyard_calibrate: times the fallback library on one shape of each class of routed call,
// and the start-up a cold device costs the first call routed to it, and stores the figures
// for the router (calibration.hpp).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "calibration.hpp"
#include "calls.hpp"
#include "dispatch.hpp"
#include "export.hpp"
#include "fallback.hpp"
#include "switchyard.h"
#include "tsqr/cpu_tsqr.hpp"

namespace switchyard {
namespace {

using Clock = std::chrono::steady_clock;

// The shapes timed: large enough that the fallback runs at its rate, small enough that reference
// BLAS takes about a second each.
constexpr int kSquare = 1024, kGram = 64, kGramK = 1 << 18, kWideGram = 256, kWideGramK = 1 << 14,
              kPanel = 4096, kNarrowSide = 32;
// Tall-skinny QR at each of kQrSizes and kQrWidths, since its rate changes with both
// (calibration.hpp): rows = size / width.
struct Tall {
  int rows, cols;
};
Tall tall(int size, int width) {
  return {int(kQrSizes[size] / kQrWidths[width]), kQrWidths[width]};
}
// The timed runs of the CPU TSQR at each shape, after one untimed.
constexpr int kCpuTsqrRuns = 5;
// The QR that times a cold CUDA start.
constexpr Tall kNarrow = {1 << 17, 32};

template <class T>
std::vector<T> random_matrix(std::size_t count) {
  std::mt19937 engine(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<T> v(count);
  for (T& x : v) x = T(uniform(engine));
  return v;
}

// The best of `timed` runs of `call` after `untimed` ones, each after an untimed `prepare` (a
// fresh copy of the operands a routine overwrites). The untimed runs warm the thread pools and
// pages, as a program that calls the fallback more than once finds them.
template <class Prepare, class Call>
double best_seconds(Prepare&& prepare, Call&& call, int untimed = 1, int timed = 2) {
  for (int i = 0; i < untimed; ++i) {
    prepare();
    call();
  }
  double best = 1e300;
  for (int i = 0; i < timed; ++i) {
    prepare();
    const auto start = Clock::now();
    call();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

template <class Call>
double best_seconds(Call&& call) {
  return best_seconds([] {}, call);
}

class Progress {
 public:
  Progress(FILE* out, int steps) : out_(out), steps_(steps) {}
  void step(const char* what) {
    if (!out_) return;
    ++done_;
    const int width = 30, filled = width * done_ / steps_;
    std::fprintf(out_, "\rcalibrating [%s%s] %d/%d %-28s", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), done_, steps_, what);
    if (done_ == steps_) std::fputc('\n', out_);
    std::fflush(out_);
  }

 private:
  FILE* out_;
  int steps_, done_ = 0;
};

double gflops(Routine r, const Shape& s, double seconds) {
  return routine_flops(r, s) / seconds / 1e9;
}

// p: 0 double, 1 single (FallbackRates' index).
template <class T>
constexpr int precision_index = sizeof(T) == 8 ? 0 : 1;

template <class T>
void time_gemm(GemmFn<T>* gemm, FallbackRates& rates, Progress& progress) {
  const int p = precision_index<T>;
  const Routine r = p == 0 ? Routine::dgemm : Routine::sgemm;
  const T one = 1, zero = 0;
  {
    const int n = kSquare;
    std::vector<T> a = random_matrix<T>(std::size_t(n) * n), c(std::size_t(n) * n);
    const double s = best_seconds([&] {
      gemm("N", "N", &n, &n, &n, &one, a.data(), &n, a.data(), &n, &zero, c.data(), &n, 1, 1);
    });
    rates.gemm_square[p] = gflops(r, Shape{n, n, n, 'N', 'N'}, s);
    progress.step(sizeof(T) == 8 ? "dgemm 1024^3" : "sgemm 1024^3");
  }
  for (const auto& [m, n, k, into, label] :
       {std::tuple{kPanel, kNarrowSide, kPanel, &FallbackRates::gemm_narrow,
                   "gemm 4096 x 32 x 4096"},
        std::tuple{kPanel, kPanel, kNarrowSide, &FallbackRates::gemm_rank,
                   "gemm 4096 x 4096 x 32"}}) {
    std::vector<T> a = random_matrix<T>(std::size_t(m) * k),
                   b = random_matrix<T>(std::size_t(k) * n), c(std::size_t(m) * n);
    const double s = best_seconds([&, m = m, n = n, k = k] {
      gemm("N", "N", &m, &n, &k, &one, a.data(), &m, b.data(), &k, &zero, c.data(), &m, 1, 1);
    });
    (rates.*into)[p] = gflops(r, Shape{m, n, k, 'N', 'N'}, s);
    progress.step((std::string(p == 0 ? "d" : "s") + label).c_str());
  }
  for (const auto& [n, k, into, label] :
       {std::tuple{kGram, kGramK, &FallbackRates::gemm_gram, "gemm 64 x 64 x 2^18"},
        std::tuple{kWideGram, kWideGramK, &FallbackRates::gemm_wide, "gemm 256 x 256 x 2^14"}}) {
    std::vector<T> a = random_matrix<T>(std::size_t(k) * n), c(std::size_t(n) * n);
    const double s = best_seconds([&, n = n, k = k] {
      gemm("T", "N", &n, &n, &k, &one, a.data(), &k, a.data(), &k, &zero, c.data(), &n, 1, 1);
    });
    (rates.*into)[p] = gflops(r, Shape{n, n, k, 'T', 'N'}, s);
    progress.step((std::string(p == 0 ? "d" : "s") + label).c_str());
  }
}

template <class T>
void time_syrk(SyrkFn<T>* syrk, FallbackRates& rates, Progress& progress) {
  const int p = precision_index<T>;
  const T one = 1, zero = 0;
  for (const auto& [n, k, into, label] :
       {std::tuple{kGram, kGramK, &FallbackRates::syrk, "syrk 64 x 2^18"},
        std::tuple{kWideGram, kWideGramK, &FallbackRates::syrk_wide, "syrk 256 x 2^14"}}) {
    std::vector<T> a = random_matrix<T>(std::size_t(k) * n), c(std::size_t(n) * n);
    const double s = best_seconds([&, n = n, k = k] {
      syrk("U", "T", &n, &k, &one, a.data(), &k, &zero, c.data(), &n, 1, 1);
    });
    (rates.*into)[p] =
        gflops(p == 0 ? Routine::dsyrk : Routine::ssyrk, Shape{n, n, k, 'U', 'T'}, s);
    progress.step((std::string(p == 0 ? "d" : "s") + label).c_str());
  }
}

template <class T>
void time_qr(GeqrfFn<T>* geqrf, OrgqrFn<T>* orgqr, OrmqrFn<T>* ormqr, Geqp3Fn<T>* geqp3, int size,
             int width, HostFigures& figures, Progress& progress) {
  FallbackRates& rates = figures.rates;
  const Tall shape = tall(size, width);
  const int p = precision_index<T>;
  const bool d = p == 0;
  // C of ormqr keeps 32 columns at every width: only the reflectors' count changes. The
  // workspace lets each routine block as it likes (blocks of up to 64, and ormqr's T).
  const int m = shape.rows, n = shape.cols, c_cols = kOrmqrColumns;
  const int lwork = 64 * std::max(n, c_cols) + 65 * 64;
  // The large size has no untimed run: the small one has warmed the threads, and each of its
  // runs takes up to 3 s in reference LAPACK.
  const int untimed = size == 0 ? 1 : 0, timed = 2;
  const std::vector<T> a0 = random_matrix<T>(std::size_t(m) * n);
  std::vector<T> a, tau(n), work(lwork), c;
  int info = 0;
  const auto step = [&](const char* routine) {
    progress.step(
        (std::string(d ? "d" : "s") + routine + " " + std::to_string(m) + " x " + std::to_string(n))
            .c_str());
  };
  const double factor = best_seconds(
      [&] { a = a0; }, [&] { geqrf(&m, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info); },
      untimed, timed);
  rates.geqrf[size][width][p] = gflops(d ? Routine::dgeqrf : Routine::sgeqrf, Shape{m, n}, factor);
  step("geqrf");
  const std::vector<T> reflectors = a;
  // The CPU TSQR on the same matrix and as many threads as it runs with in a call, the fallback
  // factoring what it leaves to it. A status other than kOk (no memory) leaves its rate at
  // the fallback's, so the router never prefers it.
  // It takes a few tens of milliseconds, where its threads' start and the machine's other work
  // show: on the H200 host, the best of 2 runs at 2^17 x 32 gave 9.8 GFLOP/s in one
  // calibration and 25 in the next; hence the best of more runs.
  const tsqr::Lapack<T> lapack{geqrf};
  std::vector<T> tsqr_tau(n);  // tau stays xGEQRF's, for the routines below
  int status = tsqr::kOk;
  const double tsqr_seconds =
      best_seconds([&] { a = a0; },
                   [&] {
                     const int s = tsqr::factor_cpu(m, n, a.data(), m, tsqr_tau.data(), lapack,
                                                    fallback_threads());
                     if (s != tsqr::kOk) status = s;
                   },
                   1, kCpuTsqrRuns);
  figures.cpu_tsqr.geqrf[size][width][p] =
      status == tsqr::kOk ? gflops(d ? Routine::dgeqrf : Routine::sgeqrf, Shape{m, n}, tsqr_seconds)
                          : rates.geqrf[size][width][p];
  step("cpu TSQR");
  const double form =
      best_seconds([&] { a = reflectors; },
                   [&] { orgqr(&m, &n, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info); },
                   untimed, timed);
  rates.orgqr[size][width][p] = gflops(d ? Routine::dorgqr : Routine::sorgqr, Shape{m, n, n}, form);
  step("orgqr");
  const std::vector<T> c0 = random_matrix<T>(std::size_t(m) * c_cols);
  const double apply =
      best_seconds([&] { c = c0; },
                   [&] {
                     ormqr("L", "T", &m, &c_cols, &n, reflectors.data(), &m, tau.data(), c.data(),
                           &m, work.data(), &lwork, &info, 1, 1);
                   },
                   untimed, timed);
  rates.ormqr[size][width][p] =
      gflops(d ? Routine::dormqr : Routine::sormqr, Shape{m, c_cols, n, 'L', 'T'}, apply);
  step("ormqr");
  // Pivoted QR, once: it takes at least xGEQRF's time (reference LAPACK on a 2-core host: 10 s
  // at the large size and 256 columns), and xGEQRF's runs have warmed the threads and pages.
  // A fallback without xGEQP3 leaves its rate unmeasured.
  if (geqp3) {
    std::vector<int> jpvt(tau.size());
    const double pivoted = best_seconds(
        [&] {
          a = a0;
          std::fill(jpvt.begin(), jpvt.end(), 0);
        },
        [&] { geqp3(&m, &n, a.data(), &m, jpvt.data(), tau.data(), work.data(), &lwork, &info); },
        0, 1);
    rates.geqp3[size][width][p] =
        gflops(d ? Routine::dgeqp3 : Routine::sgeqp3, Shape{m, n}, pivoted);
  }
  step("geqp3");
}

// One CPU TSQR call as the route makes it (the fallback's thread count, the fallback's geqrf for
// what it leaves to it) on a fresh copy of the same random m x n matrix each time, the copy not
// timed: its seconds, or -1 when it could not run.
template <class T>
class CpuTsqrCall {
 public:
  CpuTsqrCall(GeqrfFn<T>* geqrf, int m, int n)
      : geqrf_(geqrf), m_(m), n_(n), a0_(random_matrix<T>(std::size_t(m) * n)), tau_(n) {}
  double operator()() {
    a_ = a0_;
    const auto start = Clock::now();
    const int status = tsqr::factor_cpu(m_, n_, a_.data(), m_, tau_.data(), tsqr::Lapack<T>{geqrf_},
                                        fallback_threads());
    return status == tsqr::kOk ? std::chrono::duration<double>(Clock::now() - start).count()
                               : -1.0;
  }

 private:
  GeqrfFn<T>* geqrf_;
  int m_, n_;
  std::vector<T> a0_, a_, tau_;
};

// The median seconds of kCpuTsqrRuns calls after an untimed one, or -1 when one could not run.
// Short calls are timed by their median rather than their best: starting the threads is much
// of such a call, and varies from one call to the next.
template <class T>
double median_seconds(CpuTsqrCall<T>& call) {
  std::vector<double> times;
  for (int i = 0; i <= kCpuTsqrRuns; ++i) {
    const double seconds = call();
    if (seconds < 0.0) return -1.0;
    if (i > 0) times.push_back(seconds);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

// What a call of the CPU TSQR costs whatever its size: the median time of 16384 x 8, whose flops
// take a fraction of it.
double cpu_tsqr_call_seconds(GeqrfFn<double>* geqrf) {
  CpuTsqrCall<double> call(geqrf, 1 << 14, 8);
  const double seconds = median_seconds(call);
  return seconds < 0.0 ? 1.0 : seconds;  // it could not run: a cost the router never pays
}

// The CPU TSQR's rate on kShortQrRows x kQrWidths[width] (calibration.hpp), from its median
// time. A call that could not run leaves a rate at which the route never pays.
template <class T>
void time_cpu_tsqr_short(GeqrfFn<T>* geqrf, int width, CpuRouteRates& rates, Progress& progress) {
  const int m = kShortQrRows, n = kQrWidths[width], p = precision_index<T>;
  CpuTsqrCall<T> call(geqrf, m, n);
  const double seconds = median_seconds(call);
  const Routine r = p == 0 ? Routine::dgeqrf : Routine::sgeqrf;
  rates.short_geqrf[width][p] = seconds < 0.0 ? 1e-3 : gflops(r, Shape{m, n}, seconds);
  progress.step((std::string(p == 0 ? "d" : "s") + "cpu TSQR " + std::to_string(m) + " x " +
                 std::to_string(n))
                    .c_str());
}

// The fallback's xGEQRF rate on kShortQrRows x kQrWidths[width], from its best time (which
// errs on the fallback's side) of kCpuTsqrRuns calls after an untimed one.
template <class T>
void time_fallback_short(GeqrfFn<T>* geqrf, int width, FallbackRates& rates, Progress& progress) {
  const int m = kShortQrRows, n = kQrWidths[width], p = precision_index<T>;
  const int lwork = 64 * n + 65 * 64;
  const std::vector<T> a0 = random_matrix<T>(std::size_t(m) * n);
  std::vector<T> a, tau(n), work(lwork);
  int info = 0;
  const double seconds = best_seconds(
      [&] { a = a0; }, [&] { geqrf(&m, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info); },
      1, kCpuTsqrRuns);
  const Routine r = p == 0 ? Routine::dgeqrf : Routine::sgeqrf;
  rates.short_geqrf[width][p] = gflops(r, Shape{m, n}, seconds);
  progress.step(
      (std::string(p == 0 ? "d" : "s") + "geqrf " + std::to_string(m) + " x " + std::to_string(n))
          .c_str());
}

// What a cold device costs the first call routed to it: that call's time less the same call's
// once the device is warm (driver, context, programs, pinned staging, module loading). 0 when
// the route is not in this build or can not run here.
template <class Call>
double cold_start_seconds(const Call& call, const std::function<void()>& reset) {
  const Implementation<Call>* gpu = Implementations<Call>::gpu;
  if (!gpu) return 0.0;
  const auto timed = [&] {
    reset();
    const auto start = Clock::now();
    const bool ran = !gpu->unusable() && gpu->run(call);
    return ran ? std::chrono::duration<double>(Clock::now() - start).count() : -1.0;
  };
  const double cold = timed();
  if (cold < 0.0) return 0.0;
  double warm = 1e300;
  for (int i = 0; i < 2; ++i) warm = std::min(warm, timed());
  // Compiling the OpenCL programs is paid once per machine: every later process loads them
  // from the cache, and that is the start it pays.
  const double once = device::phase_seconds(device::Family::opencl, "program compiled");
  return cold - once > warm ? cold - once - warm : 0.0;
}

// `measure` run in a child process of this one, which has started no device: each start is
// timed as a program's first call pays it, not after the other family has loaded the driver
// they share. 0 when the child could not run it.
double in_child(const std::function<double()>& measure) {
  int fds[2];
  if (pipe(fds) != 0) return 0.0;
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    const double seconds = measure();
    const bool sent = write(fds[1], &seconds, sizeof seconds) == ssize_t(sizeof seconds);
    _exit(sent ? 0 : 1);
  }
  close(fds[1]);
  double seconds = 0.0;
  if (child < 0 || read(fds[0], &seconds, sizeof seconds) != ssize_t(sizeof seconds)) {
    seconds = 0.0;
  }
  close(fds[0]);
  if (child > 0) waitpid(child, nullptr, 0);
  return seconds;
}

// A device's start as a program pays it: `measure` in three children, the first dropped, the
// mean of the others. The first start on a machine also pays what later ones find done: on the
// H200, OpenCL's first start took 0.84 s against 0.25-0.35 for later ones (the driver's caches,
// files not yet read). Later ones vary from process to process: the CUDA driver's own start
// took either about 105 or about 190 ms in back-to-back processes on the H200, whatever their
// memory, so one figure is the mean, which a cold call pays on average.
double later_start(const std::function<double()>& measure) {
  in_child(measure);
  const double first = in_child(measure), second = in_child(measure);
  if (first <= 0.0 || second <= 0.0) return std::max(first, second);
  return (first + second) / 2;
}

// What the first CPU TSQR call of a process costs beyond later ones, in a child process of this
// one, which has run none: its first 131072 x 32 call less the best of three later ones, as
// later_start takes it over fresh processes. Right before it the child runs a product in the
// fallback, as a program that has loaded or just used its BLAS finds it: a threaded BLAS's idle
// threads spin for a while after they start and after each call, and on a 2-core host
// OpenBLAS's took a core from the CPU TSQR's first call, 46-63 ms against 26-43 for later ones
// (docs/routing.md). A forked child has none of them running until then.
double cpu_tsqr_first_call_seconds(GeqrfFn<double>* geqrf, GemmFn<double>* gemm) {
  return later_start([geqrf, gemm] {
    CpuTsqrCall<double> call(geqrf, kNarrow.rows, kNarrow.cols);
    const int n = kSquare / 2;  // a product a threaded BLAS runs on its threads
    const std::vector<double> a = random_matrix<double>(std::size_t(n) * n);
    std::vector<double> c(a.size());
    const double one = 1.0, zero = 0.0;
    gemm("N", "N", &n, &n, &n, &one, a.data(), &n, a.data(), &n, &zero, c.data(), &n, 1, 1);
    const double first = call();
    // The later calls once those threads sleep (OpenBLAS's spin about 0.1 s), as a program's
    // repeated calls find them, which the CPU TSQR's rates were measured with.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    double later = 1e300;
    for (int i = 0; i < 3; ++i) later = std::min(later, call());
    return first < 0.0 || later < 0.0 ? 0.0 : std::max(0.0, first - later);
  });
}

}  // namespace
}  // namespace switchyard

SWITCHYARD_EXPORT int switchyard_calibrate(FILE* progress_out) {
  using namespace switchyard;
  HostFigures figures = calibration().figures;  // start-ups stay as they were where none runs
  Progress progress(progress_out, 18 + 4 * kQrWidthCount + 10 * kQrSizeCount * kQrWidthCount);
  {
    // The device start-ups first, each in a child of this process, which starts none.
    const int m = kNarrow.rows, n = kNarrow.cols, lwork = 1, k = kSquare;
    const std::vector<double> a0 = random_matrix<double>(std::size_t(m) * n);
    std::vector<double> a, tau(n), work(1), c(std::size_t(k) * k);
    int info = 0;
    const GeqrfCall<double> geqrf{m, n, nullptr, m, tau.data(), work.data(), lwork, &info};
    GeqrfCall<double> call = geqrf;
    const double cuda = later_start([&] {
      return cold_start_seconds(call, [&] {
        a = a0;
        call.a = a.data();
      });
    });
    if (cuda > 0.0) figures.cuda_start_s = cuda;
    progress.step("CUDA start-up");
    const GemmCall<double> gemm{'N', 'N',       k, k,   k,        1.0, a0.data(),
                                k,   a0.data(), k, 0.0, c.data(), k};
    const double opencl = later_start([&] { return cold_start_seconds(gemm, [] {}); });
    if (opencl > 0.0) figures.opencl_start_s = opencl;
    progress.step("OpenCL start-up");
  }
  const Fallback& f = fallback();
  // The CPU TSQR's first call too, before this process runs one. The file takes positive
  // figures only; a tenth of a millisecond is no cost to the router.
  figures.cpu_tsqr.first_call_s = std::max(1e-4, cpu_tsqr_first_call_seconds(f.dgeqrf, f.dgemm));
  progress.step("CPU TSQR first call");
  time_gemm(f.dgemm, figures.rates, progress);
  time_gemm(f.sgemm, figures.rates, progress);
  time_syrk(f.dsyrk, figures.rates, progress);
  time_syrk(f.ssyrk, figures.rates, progress);
  figures.cpu_tsqr.call_s = cpu_tsqr_call_seconds(f.dgeqrf);
  progress.step("cpu TSQR call");
  for (int width = 0; width < kQrWidthCount; ++width) {
    time_cpu_tsqr_short(f.dgeqrf, width, figures.cpu_tsqr, progress);
    time_cpu_tsqr_short(f.sgeqrf, width, figures.cpu_tsqr, progress);
  }
  // After the CPU TSQR's: a BLAS's threads spin a while after its calls, which would slow them.
  for (int width = 0; width < kQrWidthCount; ++width) {
    time_fallback_short(f.dgeqrf, width, figures.rates, progress);
    time_fallback_short(f.sgeqrf, width, figures.rates, progress);
  }
  for (int size = 0; size < kQrSizeCount; ++size) {
    for (int width = 0; width < kQrWidthCount; ++width) {
      time_qr(f.dgeqrf, f.dorgqr, f.dormqr, f.dgeqp3, size, width, figures, progress);
      time_qr(f.sgeqrf, f.sorgqr, f.sormqr, f.sgeqp3, size, width, figures, progress);
    }
  }
  std::string error;
  if (!store_calibration(figures, error)) {
    std::fprintf(stderr, "switchyard: calibration not stored: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
