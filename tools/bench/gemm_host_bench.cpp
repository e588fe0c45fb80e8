#include "gemm_host_bench.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace switchyard::bench {
namespace {

using Dgemm = void(const char*, const char*, const int*, const int*, const int*, const double*,
                   const double*, const int*, const double*, const int*, const double*, double*,
                   const int*, std::size_t, std::size_t);

struct Timed {
  double ms = -1;
  bool ok = false;
};

// gemm_once in a child of this program, with `environment` before it.
Timed in_child(const std::string& environment, int n, int repeat) {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return {};
  self[length] = 0;
  const std::string command = environment + " '" + self + "' gemm --dgemm-once " +
                              std::to_string(n) + " " + std::to_string(repeat);
  Timed t;
  if (FILE* child = popen(command.c_str(), "r")) {
    char verdict[16] = "";
    if (std::fscanf(child, "%lf %15s", &t.ms, verdict) == 2) t.ok = std::string(verdict) == "ok";
    pclose(child);
  }
  return t;
}

}  // namespace

int gemm_once(int n, int repeat) {
  // Resolved in the process's global scope: NVBLAS when it is preloaded,
  // else the library this program links.
  auto* dgemm = reinterpret_cast<Dgemm*>(dlsym(RTLD_DEFAULT, "dgemm_"));
  if (!dgemm) return 1;
  const std::size_t count = std::size_t(n) * n;
  std::vector<double> a(count, 0.5), b(count, 0.25), c(count, 1.0);
  const double one = 1, zero = 0;
  double best = 1e30;
  for (int r = 0; r <= repeat; ++r) {  // the first: start-up, compilation, pinning
    const auto t0 = std::chrono::steady_clock::now();
    dgemm("N", "N", &n, &n, &n, &one, a.data(), &n, b.data(), &n, &zero, c.data(), &n, 1, 1);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best = std::min(best, ms);
    // The first call starts the other devices of SWITCHYARD_DEVICES on a helper thread; the
    // timed calls are those that find them started.
    if (r == 0 && std::getenv("SWITCHYARD_DEVICES"))
      std::this_thread::sleep_for(std::chrono::seconds(2));
  }
  // Every element is n * 0.5 * 0.25, exactly.
  const bool ok = std::all_of(c.begin(), c.end(), [&](double v) { return v == n * 0.125; });
  std::printf("%.3f %s\n", best, ok ? "ok" : "wrong");
  return 0;
}

void gemm_host_resident(const std::vector<int>& sizes, int repeat, const std::string& nvblas,
                        const std::string& cpu_blas, const std::string& devices) {
  const std::string config = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                             "/switchyard-bench-nvblas.conf";
  if (FILE* f = std::fopen(config.c_str(), "w")) {
    std::fprintf(f, "NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\n", cpu_blas.c_str());
    std::fclose(f);
  }
  const bool split = !devices.empty(), anchor = nvblas != "none";
  std::printf(
      "\ndgemm NN, host-resident (pageable, beta = 0), best of %d, each in a child "
      "process%s%s\n%6s %10s %10s",
      repeat, split ? "; split over devices " : "", devices.c_str(), "n", "ours ms", "ours TF/s");
  if (split) std::printf(" %10s %10s %9s", "split ms", "split TF/s", "speed-up");
  if (anchor) std::printf(" %12s %12s %8s", "NVBLAS ms", "NVBLAS TF/s", "speedup");
  std::printf("\n");
  for (int n : sizes) {
    const Timed ours = in_child("SWITCHYARD_ROUTE_DGEMM=gpu", n, repeat);
    const double flops = 2.0 * n * double(n) * n;
    const auto rate = [&](const Timed& t) { return t.ok ? flops / (t.ms * 1e-3) * 1e-12 : 0.0; };
    bool all_ok = ours.ok;
    std::printf("%6d %10.1f %10.2f", n, ours.ms, rate(ours));
    if (split) {
      const Timed over =
          in_child("SWITCHYARD_ROUTE_DGEMM=gpu SWITCHYARD_DEVICES='" + devices + "'", n, repeat);
      all_ok = all_ok && over.ok;
      std::printf(" %10.1f %10.2f %8.2fx", over.ms, rate(over),
                  ours.ok && over.ok ? ours.ms / over.ms : 0.0);
    }
    if (anchor) {
      const Timed theirs =
          in_child("LD_PRELOAD='" + nvblas + "' NVBLAS_CONFIG_FILE='" + config + "'", n, repeat);
      all_ok = all_ok && theirs.ok;
      std::printf(" %12.1f %12.2f %8.2f", theirs.ms, rate(theirs),
                  ours.ok && theirs.ok ? theirs.ms / ours.ms : 0.0);
    }
    std::printf("%s\n", all_ok ? "" : "  (a run failed or gave a wrong C)");
    std::fflush(stdout);
  }
}

}  // namespace switchyard::bench
