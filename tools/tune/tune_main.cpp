// switchyard tune: finds the fastest TN kernel of the generator's space on an
// OpenCL device, by the procedure of Matsumoto, Nakasato and Sedukhin:
//   1. screen every variant at two sizes;
//   2. measure the best 50 over a sweep of sizes;
//   3. keep the best mean, written to the tuning database.
// Each measurement is appended to a progress file as it is made, so that an
// interrupted run (or one out of budget) resumes where it stopped.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "config.hpp"
#include "device/opencl_runtime.hpp"
#include "gemm/device_gemm.hpp"
#include "gemm/tuning_db.hpp"
#include "tune/variants.hpp"

namespace switchyard::tune {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  gemm::Precision precision = gemm::Precision::f64;
  std::string device;      // SWITCHYARD_OPENCL_DEVICE's form
  double budget_s = 30 * 60;
  int refine_count = 50;
};

void usage() {
  std::fprintf(stderr,
               "usage: switchyard tune [--precision d|s] [--device N] [--budget MINUTES]\n"
               "  screens the TN kernel variants at two sizes, refines the best 50 over a\n"
               "  sweep of sizes and writes the best to the tuning database\n"
               "  (%s); rerun to resume.\n",
               gemm::database_path().c_str());
}

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--precision" && has_value) {
      const std::string v = argv[++i];
      if (v != "d" && v != "s") return false;
      o.precision = v == "d" ? gemm::Precision::f64 : gemm::Precision::f32;
    } else if (a == "--device" && has_value) {
      o.device = argv[++i];
    } else if (a == "--budget" && has_value) {
      o.budget_s = std::atof(argv[++i]) * 60;
      if (!(o.budget_s > 0)) return false;
    } else if (a == "--refine" && has_value) {
      o.refine_count = std::atoi(argv[++i]);
      if (o.refine_count < 1) return false;
    } else {
      return false;
    }
  }
  return true;
}

// One device-resident square problem of each size, reused by every variant.
class Bench {
 public:
  Bench(opencl::Runtime& rt, gemm::Precision precision) : rt_(rt), precision_(precision) {}

  // GFLOP/s of the TN kernel of `kernels` at m = n = k = `size`; 0 when it fails.
  double rate(gemm::Kernels& kernels, int size) {
    const gemm::Padded p = gemm::padded(kernels.params, size, size, size);
    const std::size_t es = precision_ == gemm::Precision::f64 ? 8 : 4;
    std::string error;
    opencl::Buffer a = rt_.acquire(es * std::size_t(p.kp) * p.mp, error);
    opencl::Buffer b = rt_.acquire(es * std::size_t(p.kp) * p.np, error);
    opencl::Buffer c = rt_.acquire(es * std::size_t(size) * size, error);
    if (!a.get() || !b.get() || !c.get()) return 0;
    const double one = 1.0 / size;
    const float onef = float(one);
    for (const opencl::Buffer* buf : {&a, &b}) {
      if (es == 8) {
        rt_.cl().EnqueueFillBuffer(rt_.queue(), buf->get(), &one, es, 0, buf->bytes(), 0,
                                   nullptr, nullptr);
      } else {
        rt_.cl().EnqueueFillBuffer(rt_.queue(), buf->get(), &onef, es, 0, buf->bytes(), 0,
                                   nullptr, nullptr);
      }
    }
    const gemm::DeviceMatrix dc{c.get(), 0, size};
    auto once = [&] {
      const bool ok = es == 8 ? gemm::enqueue_tn<double>(rt_, kernels, p, a.get(), b.get(), size,
                                                         size, 1.0, 0.0, dc, error)
                              : gemm::enqueue_tn<float>(rt_, kernels, p, a.get(), b.get(), size,
                                                        size, 1.0f, 0.0f, dc, error);
      return ok && rt_.cl().Finish(rt_.queue()) == CL_SUCCESS;
    };
    if (!once()) return 0;  // warm-up
    double best = 1e30, spent = 0;
    for (int run = 0; run < 5 && (run < 2 || spent < 0.3); ++run) {
      const auto t0 = Clock::now();
      if (!once()) return 0;
      const double t = std::chrono::duration<double>(Clock::now() - t0).count();
      best = std::min(best, t);
      spent += t;
    }
    return 2.0 * size * double(size) * size / best * 1e-9;
  }

 private:
  opencl::Runtime& rt_;
  gemm::Precision precision_;
};

void progress(const char* phase, std::size_t done, std::size_t total, double best,
              const std::string& what, double elapsed, double budget) {
  const int width = 30;
  const int filled = total ? int(width * done / total) : width;
  std::fprintf(stderr, "\r%s [%.*s%*s] %zu/%zu  best %.1f GFLOP/s  %.0f/%.0f s  %-60.60s", phase,
               filled, "##############################", width - filled, "", done, total, best,
               elapsed, budget, what.c_str());
  std::fflush(stderr);
}

std::string sanitized(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

int run(const Options& o) {
  if (!o.device.empty()) setenv("SWITCHYARD_OPENCL_DEVICE", o.device.c_str(), 1);
  const char* why = nullptr;
  opencl::Runtime* rt = opencl::runtime(&why);
  if (!rt) {
    std::fprintf(stderr, "switchyard tune: no OpenCL device: %s\n", why);
    return 1;
  }
  const opencl::DeviceInfo& dev = rt->device();
  const char p = o.precision == gemm::Precision::f64 ? 'd' : 's';
  if (p == 'd' && !dev.has_fp64) {
    std::fprintf(stderr, "switchyard tune: %s has no fp64\n", dev.name.c_str());
    return 1;
  }
  // The seed's sizes on a GPU; smaller ones on a CPU device, where a
  // variant's compile and run take seconds.
  const std::vector<int> screen = dev.is_gpu ? std::vector<int>{1536, 4096}
                                             : std::vector<int>{256, 512};
  const std::vector<int> sweep = dev.is_gpu ? std::vector<int>{1024, 2048, 3072, 4096, 6144, 8192}
                                            : std::vector<int>{256, 384, 512, 768};
  const std::vector<gemm::KernelParams> all = variants(dev, o.precision);
  const std::string dir = cache_directory();
  const std::string log_path =
      dir + "/tune-" + std::string(1, p) + "-" + sanitized(dev.name) + ".progress";
  std::fprintf(stderr, "device %s (%s), %c precision, %zu variants, budget %.0f s\nprogress %s\n",
               dev.name.c_str(), dev.driver.c_str(), p, all.size(), o.budget_s, log_path.c_str());

  // Measurements of earlier runs: "screen|params|rate" and "refine|params|rate".
  std::map<std::string, double> screened, refined;
  {
    std::ifstream in(log_path);
    for (std::string line; std::getline(in, line);) {
      const std::size_t a = line.find('|'), b = line.rfind('|');
      if (a == std::string::npos || a == b) continue;
      const std::string kind = line.substr(0, a), params = line.substr(a + 1, b - a - 1);
      const double rate = std::atof(line.c_str() + b + 1);
      (kind == "screen" ? screened : refined)[params] = rate;
    }
  }
  for (std::size_t i = 1; i <= dir.size(); ++i) {  // the cache directory, made if missing
    if (i == dir.size() || dir[i] == '/') mkdir(dir.substr(0, i).c_str(), 0700);
  }
  FILE* log = std::fopen(log_path.c_str(), "a");
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  Bench bench(*rt, o.precision);

  // 1. Screening, until the variants or 60% of the budget run out.
  double best = 0;
  std::string best_name;
  std::size_t done = 0;
  for (const gemm::KernelParams& v : all) {
    const std::string name = gemm::describe(v);
    if (screened.count(name)) {
      ++done;
      continue;
    }
    if (elapsed() > 0.6 * o.budget_s) break;
    std::string error;
    double rate = 0;
    if (gemm::Kernels* k = gemm::kernels_for(*rt, v, error)) {
      rate = 0.5 * (bench.rate(*k, screen[0]) + bench.rate(*k, screen[1]));
    }
    screened[name] = rate;
    if (log) std::fprintf(log, "screen|%s|%.2f\n", name.c_str(), rate), std::fflush(log);
    ++done;
    for (const auto& [n, r] : screened) {
      if (r > best) best = r, best_name = n;
    }
    progress("screen", done, all.size(), best, best_name, elapsed(), o.budget_s);
  }
  std::fprintf(stderr, "\n");

  // 2. The best of the screen over the sweep of sizes.
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [n, r] : screened) {
    if (r > 0) ranked.push_back({r, n});
  }
  std::sort(ranked.rbegin(), ranked.rend());
  if (ranked.size() > std::size_t(o.refine_count)) ranked.resize(o.refine_count);
  best = 0, best_name.clear();
  done = 0;
  for (const auto& [screen_rate, name] : ranked) {
    if (!refined.count(name) && elapsed() < o.budget_s) {
      gemm::KernelParams v;
      gemm::parse(name, o.precision, v);
      std::string error;
      double sum = 0;
      if (gemm::Kernels* k = gemm::kernels_for(*rt, v, error)) {
        for (int size : sweep) sum += bench.rate(*k, size);
      }
      refined[name] = sum / double(sweep.size());
      if (log) std::fprintf(log, "refine|%s|%.2f\n", name.c_str(), refined[name]), std::fflush(log);
    }
    ++done;
    if (refined.count(name) && refined[name] > best) best = refined[name], best_name = name;
    progress("refine", done, ranked.size(), best, best_name, elapsed(), o.budget_s);
  }
  std::fprintf(stderr, "\n");
  if (log) std::fclose(log);
  if (best_name.empty()) {
    std::fprintf(stderr, "switchyard tune: no variant ran on %s\n", dev.name.c_str());
    return 1;
  }

  // 3. The database: this device's entry for this precision replaced.
  gemm::TuningEntry entry;
  entry.precision = o.precision;
  entry.device = dev.name;
  gemm::parse(best_name, o.precision, entry.params);
  entry.gflops = best;
  std::string error;
  if (!gemm::store_entry(dir, entry, error)) {
    std::fprintf(stderr, "switchyard tune: the tuning database not written: %s\n", error.c_str());
    return 1;
  }
  std::printf("%s\nwritten to %s\n", gemm::format_entry(entry).c_str(),
              gemm::database_path().c_str());
  return 0;
}

}  // namespace
}  // namespace switchyard::tune

int main(int argc, char** argv) {
  switchyard::tune::Options o;
  if (!switchyard::tune::parse_options(argc - 1, argv + 1, o)) {
    switchyard::tune::usage();
    return 2;
  }
  return switchyard::tune::run(o);
}
