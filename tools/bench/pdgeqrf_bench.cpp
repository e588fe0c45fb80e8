// switchyard bench pdgeqrf [--ranks LIST] [--m-log2 LIST] [--n LIST] [--repeat R]
//                          [--route auto|cpu|gpu]
//
// ScaLAPACK's pdgeqrf alone against the same program with libswitchyard.so preloaded: for each
// rank count, 2^M_LOG2 rows per rank by N columns on a P x 1 grid, each rank one block of rows,
// as pdgeqrf-timing (installed beside this program) times it under `mpirun --oversubscribe`:
// the best of R runs of the slowest rank. --route forces Switchyard's route of pdgeqrf
// (SWITCHYARD_ROUTE_PDGEQRF): its CPU TSQR, or the TSQR on each rank's GPU; by default it
// routes as a program's call is routed. "route" is how Switchyard ran the call (its trace);
// each side's "check" is max_j | ||R(:,j)|| / ||A(:,j)|| - 1 |, at rounding level for both.
// mpirun comes from the PATH and runs with this program's environment (a root user needs
// OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, as Open MPI asks).
#include "pdgeqrf_bench.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "child_process.hpp"

namespace switchyard::bench {
namespace {

struct Options {
  std::vector<int> ranks = {2, 4};
  std::vector<int> m_log2 = {16, 18, 20};  // rows per rank
  std::vector<int> n = {16, 64};
  int repeat = 3;
  std::string route = "auto";
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 0; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    const char* value = argv[i + 1];
    if (arg == "--ranks") {
      o.ranks = parse_list(value);
    } else if (arg == "--m-log2") {
      o.m_log2 = parse_list(value);
    } else if (arg == "--n") {
      o.n = parse_list(value);
    } else if (arg == "--repeat") {
      o.repeat = std::max(1, std::atoi(value));
    } else if (arg == "--route" && (std::string(value) == "auto" || std::string(value) == "cpu" ||
                                    std::string(value) == "gpu")) {
      o.route = value;
    } else {
      return false;
    }
  }
  return argc % 2 == 0;
}

// One mpirun of pdgeqrf-timing: its seconds and check, or a negative time; with `preload`, the
// route of Switchyard's last pdgeqrf call from its trace.
struct Timing {
  double seconds = -1, check = 0;
  std::string route;
};

Timing run(int ranks, int log2_rows, int n, int repeat, const std::string& route, bool preload) {
  Timing t;
  char trace[] = "/tmp/switchyard-pdgeqrf-XXXXXX";
  const int fd = mkstemp(trace);
  if (fd >= 0) close(fd);
  std::string command = "mpirun --oversubscribe -np " + std::to_string(ranks);
  if (preload) {
    command += " -x LD_PRELOAD=" + quoted(library_path()) +
               " -x SWITCHYARD_TRACE=" + quoted(trace) + " -x SWITCHYARD_ROUTE_PDGEQRF=" + route;
  }
  command += " " + quoted(sibling("pdgeqrf-timing")) + " --repeat " + std::to_string(repeat) + " " +
             std::to_string(log2_rows) + "x" + std::to_string(n) + " 2>&1";
  const ChildOutput child = output_of(command);
  const std::string output = child.status == 0 ? child.text : "";
  const std::size_t best = output.find("best of");
  const std::size_t colon = best == std::string::npos ? best : output.find(": ", best);
  if (colon == std::string::npos ||
      std::sscanf(output.c_str() + colon, ": %lf s  check %lf", &t.seconds, &t.check) != 2) {
    t.seconds = -1;
  }
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    const std::size_t r = line.find(" route=");
    if (line.find(" pdgeqrf ") == std::string::npos || r == std::string::npos) continue;
    if (line.find("workspace query") != std::string::npos) continue;
    t.route = line.substr(r + 7, line.find(' ', r + 7) - r - 7);
  }
  unlink(trace);
  return t;
}

}  // namespace

int pdgeqrf_main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: switchyard bench pdgeqrf [--ranks LIST] [--m-log2 LIST] [--n LIST] "
                 "[--repeat R] [--route auto|cpu|gpu]\n"
                 "  --m-log2: rows per rank, log2 (default 16,18,20); --n default 16,64; --ranks "
                 "default 2,4\n");
    return 2;
  }
  std::printf(
      "pdgeqrf on a P x 1 grid, one block of rows per rank: ScaLAPACK alone against "
      "Switchyard preloaded, best of %d (seconds, slowest rank)\n",
      o.repeat);
  std::printf("%5s %9s %4s %12s %12s %8s %6s %9s %9s\n", "ranks", "m/rank", "n", "ScaLAPACK",
              "Switchyard", "speed-up", "route", "check", "check");
  for (int ranks : o.ranks) {
    int log2_ranks = 0;
    while ((1 << log2_ranks) < ranks) ++log2_ranks;
    for (int lg : o.m_log2) {
      for (int n : o.n) {
        if (n > (1 << lg)) continue;
        const int total_log2 = lg + log2_ranks;  // pdgeqrf-timing splits 2^total over the ranks
        const Timing alone = run(ranks, total_log2, n, o.repeat, o.route, false);
        const Timing ours = run(ranks, total_log2, n, o.repeat, o.route, true);
        if (alone.seconds < 0 || ours.seconds < 0) {
          std::printf("%5d %9d %4d   (a run failed; is mpirun on the PATH?)\n", ranks, 1 << lg, n);
          continue;
        }
        std::printf("%5d %9d %4d %12.4e %12.4e %7.2fx %6s %9.1e %9.1e\n", ranks,
                    (1 << total_log2) / ranks, n, alone.seconds, ours.seconds,
                    alone.seconds / ours.seconds, ours.route.c_str(), alone.check, ours.check);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace switchyard::bench
