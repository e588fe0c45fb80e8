// switchyard bench routing [--fallback LIB] [--routines LIST] [--repeat R] [--warm-up S]
//                          [--cold-samples C] [--quick] [--shapes LIST] [--max-seconds S]
//                          [--horizon S] [--skip-gpu] [--small-calls N] [--out PATH]
//
// Each shape runs as a program makes the call: switchyard-bench-call, linked with reference
// -llapack -lblas, its operands in pageable host memory, in fresh processes:
//   routed    Switchyard preloaded in front of the fallback, as for a program linked with it;
//   fallback  the fallback library alone, preloaded, no Switchyard;
//   gpu       Switchyard preloaded with the routine forced onto its device route;
//   cpu       the same forced onto its route on the host's cores (the CPU TSQR of dgeqrf and
//             dgeqp3, the compact-WY blocks of dorgqr and dormqr).
// Whole LAPACK drivers (dgesdd, dsyevd, dgels, ...; switchyard-bench-call's list) run the same
// way against the fallback alone: Switchyard takes the routed calls the driver makes (and dgels
// itself, whole, on a GPU), so its row has no forced routes, its route column reads "nested",
// and the line under it counts those calls by route (from SWITCHYARD_REPORT, which costs nothing
// a call, where a trace line for each of thousands of small calls would).
// The first call of each process is the cold one (a fresh process, devices not started).
// Warm is the best of R calls made after the same call has been repeated for S seconds (2 by
// default) in the routed process, as in a program with a history of such calls, where the
// router may have started a device on the way; the fallback and forced processes, whose route
// does not change, are warm after one call. A row is marked WRONG where the route the router
// chose, cold or warm, took at least 10% and 5 ms longer than another route did, but for a warm
// call the router still kept off a cold device at the ski rental's horizon (docs/router.md): the
// same call is then run again in a process that repeats it until the rule has run its course
// (routing_verdict.hpp, up to --horizon seconds, 20 by default), and where the route it takes
// there is not wrong, the row reads "horizon", counted apart from the wrong ones. A process's
// first call varies by up to a third from process to process (the CUDA driver's start took
// either about 105 or about 190 ms in back-to-back processes on the H200), so where the two cold
// times are within that of each other, or the chosen route's is the longer by enough to be
// judged wrong, each side's cold time is the median of C fresh processes (--cold-samples, 3 by
// default), the first of them the column's own; a driver's warm time too, since OpenBLAS's own
// times vary as much from process to process. A forced route that does
// not take the call (no device) is not a route to compare with, and a driver whose routed calls
// all ran in the fallback is not judged: it ran the fallback's own code.
//
// Then, unless --small-calls 0, the small-call table (small_calls.cpp): what the router's look
// costs the small calls that stay in the fallback, in nanoseconds per call.
#include "routing_bench.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "child_process.hpp"
#include "routing_verdict.hpp"
#include "small_calls.hpp"

namespace switchyard::bench {
namespace {

struct Options {
  std::string fallback;
  std::vector<std::string> routines;  // empty: all
  std::vector<std::string> shapes;    // "dgemm:T:N:64:64:4194304"; empty: the sweep
  int repeat = 3;
  int cold_samples = 3;
  double warm_up_s = 2.0;
  bool quick = false, gpu = true;
  double max_seconds = 5.0;
  double horizon_s =
      20.0;  // the longest warm-up a call at the ski rental's horizon is run again with
  long small_calls = 200000;  // calls per loop of the small-call table; 0: no table
  std::string out;
};

// One call to measure: the routine it traces as, and what switchyard-bench-call takes: the
// call's name (the routine's, or dgram/sgram for a Gram product) and its arguments.
struct Shape {
  std::string routine;
  std::vector<std::string> args;
  double flops;
  std::string call = routine;
  std::string text() const {
    std::string s = call;
    for (const std::string& a : args) s += " " + a;
    return s;
  }
};

Shape gemm(const char* p, const char* ta, const char* tb, long m, long n, long k) {
  return {std::string(p) + "gemm",
          {ta, tb, std::to_string(m), std::to_string(n), std::to_string(k)},
          2.0 * m * n * k};
}
// C = A^T A through gemm('T', 'N') with both operands the same host matrix A, k x n.
Shape gram(const char* p, long n, long k) {
  return {std::string(p) + "gemm",
          {std::to_string(n), std::to_string(k)},
          2.0 * n * n * k,
          std::string(p) + "gram"};
}
Shape syrk(const char* p, const char* uplo, const char* trans, long n, long k) {
  return {std::string(p) + "syrk",
          {uplo, trans, std::to_string(n), std::to_string(k)},
          double(k) * n * (n + 1)};
}
Shape qr(const char* routine, long m, long n, long k = 0) {
  std::vector<std::string> args = {std::to_string(m), std::to_string(n)};
  if (k) args.push_back(std::to_string(k));
  const double nn = double(n);
  double flops = 2.0 * nn * nn * (double(m) - nn / 3);  // geqrf and geqp3
  if (std::strcmp(routine, "dorgqr") == 0) flops = 4.0 * m * nn * nn - 2.0 * (m + nn) * nn * nn;
  if (std::strcmp(routine, "dormqr") == 0) flops = 4.0 * m * nn * k - 2.0 * nn * k * k;
  return {routine, args, flops};
}

// A whole LAPACK driver. Its flops are left at 0: a driver's fallback run is never skipped
// (below), and they are counted for nothing else.
Shape driver(const char* name, const std::vector<long>& sizes) {
  std::vector<std::string> args;
  for (long v : sizes) args.push_back(std::to_string(v));
  return {name, args, 0.0};
}

bool is_driver(const std::string& routine) {
  for (const char* d :
       {"dgesv", "dposv", "dsyevd", "dgesdd", "dgesvd", "dgels", "dgetsls", "dgelsd"}) {
    if (routine == d) return true;
  }
  return false;
}

// The drivers a program calls, on the shapes where their routed calls are large: the square
// solvers and eigensolvers of 4096 (dgesv and dposv: OpenBLAS runs their factorizations in its
// own code, so they show what preloading costs a call that is not taken), and least squares and
// SVD of tall matrices.
std::vector<Shape> drivers(bool quick) {
  if (quick) return {driver("dsyevd", {2048}), driver("dgesdd", {1 << 20, 64})};
  return {driver("dgesv", {4096, 1}),        driver("dposv", {4096, 1}),
          driver("dsyevd", {2048}),          driver("dsyevd", {4096}),
          driver("dgesdd", {4096, 4096}),    driver("dgesdd", {1 << 20, 64}),
          driver("dgesdd", {1 << 18, 256}),  driver("dgesvd", {1 << 20, 64}),
          driver("dgels", {1 << 22, 64, 1}), driver("dgetsls", {1 << 22, 64, 1}),
          driver("dgelsd", {1 << 20, 64, 1})};
}

// The shapes of the default sweep, or a few of them (--quick).
std::vector<Shape> sweep(bool quick) {
  std::vector<Shape> s;
  const std::vector<long> squares =
      quick ? std::vector<long>{256, 2048} : std::vector<long>{256, 1024, 2048, 4096, 8192};
  for (long n : squares) s.push_back(gemm("d", "N", "N", n, n, n));
  // Long inner dimension, small C: the Gram products of least squares and statistics.
  const std::vector<std::pair<long, long>> long_k =
      quick ? std::vector<std::pair<long, long>>{{64, 1 << 22}}
            : std::vector<std::pair<long, long>>{{16, 1 << 22},   {64, 1 << 16},  {64, 1 << 20},
                                                 {64, 1 << 22},   {256, 1 << 20}, {1024, 1 << 16},
                                                 {4096, 1 << 12}, {4096, 1 << 14}};
  for (auto [n, k] : long_k) s.push_back(gemm("d", "T", "N", n, n, k));
  // The same with op(A) and op(B) one matrix, as a program forms X^T X.
  s.push_back(gram("d", 64, 1 << 22));
  if (!quick) s.push_back(gram("d", 256, 1 << 20));
  // One side narrow: panel updates and tall-skinny products.
  for (long n : quick ? std::vector<long>{64} : std::vector<long>{16, 64, 256}) {
    s.push_back(gemm("d", "N", "N", 8192, n, 8192));
  }
  if (!quick) {
    // The updates inside a blocked QR of a tall matrix (LAPACK's dlarfb): W = V^T C, then
    // C - V W, with m large and the block (k or m) and the rest of the panel 32 to 256 wide.
    s.push_back(gemm("d", "T", "N", 32, 224, 65536));
    s.push_back(gemm("d", "N", "N", 65536, 224, 32));
    s.push_back(gemm("d", "T", "N", 64, 192, 1 << 18));
    s.push_back(gemm("d", "N", "N", 1 << 18, 192, 64));
    s.push_back(gemm("d", "N", "N", 8192, 8192, 256));
    s.push_back(gemm("s", "N", "N", 4096, 4096, 4096));
    s.push_back(gemm("s", "T", "N", 64, 64, 1 << 22));
    s.push_back(gram("s", 64, 1 << 22));
  }
  s.push_back(syrk("d", "U", "T", 64, 1 << 22));
  if (!quick) {
    s.push_back(syrk("d", "L", "N", 256, 1 << 20));
    s.push_back(syrk("d", "U", "T", 4096, 4096));
    s.push_back(syrk("s", "U", "T", 64, 1 << 22));
  }
  const std::vector<int> rows_log2 =
      quick ? std::vector<int>{14, 17, 22} : std::vector<int>{12, 14, 16, 17, 18, 20, 22, 23};
  const std::vector<long> widths =
      quick ? std::vector<long>{32} : std::vector<long>{8, 32, 128, 256};
  for (int r : rows_log2) {
    for (long n : widths) {
      const long m = 1L << r;
      if (double(m) * n > double(1L << 30) || m < 16 * n) continue;  // at most 8 GiB of A
      s.push_back(qr("dgeqrf", m, n));
    }
  }
  for (int r : quick ? std::vector<int>{17, 22} : std::vector<int>{14, 17, 20, 22}) {
    for (long n : quick ? std::vector<long>{32} : std::vector<long>{32, 128}) {
      s.push_back(qr("dorgqr", 1L << r, n));
      s.push_back(qr("dormqr", 1L << r, 16, n));
    }
  }
  if (!quick) s.push_back(qr("dgeqrf", 4096, 4096));  // square: blocked, its updates routed
  // Pivoted QR, as SciPy's qr(pivoting=True) and dgelsy call it.
  for (int r : quick ? std::vector<int>{17} : std::vector<int>{14, 17, 20}) {
    for (long n : quick ? std::vector<long>{32} : std::vector<long>{32, 64}) {
      s.push_back(qr("dgeqp3", 1L << r, n));
    }
  }
  for (const Shape& d : drivers(quick)) s.push_back(d);
  return s;
}

// Parses "dgemm:T:N:64:64:4194304" (the routine, then switchyard-bench-call's arguments).
bool parse_shape(const std::string& text, Shape& shape) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
  if (parts.size() < 2) return false;
  const std::string& r = parts[0];
  const auto number = [&](std::size_t i) { return std::atol(parts[i].c_str()); };
  if ((r == "dgemm" || r == "sgemm") && parts.size() == 6) {
    shape = gemm(r.substr(0, 1).c_str(), parts[1].c_str(), parts[2].c_str(), number(3), number(4),
                 number(5));
  } else if ((r == "dgram" || r == "sgram") && parts.size() == 3) {
    shape = gram(r.substr(0, 1).c_str(), number(1), number(2));
  } else if ((r == "dsyrk" || r == "ssyrk") && parts.size() == 5) {
    shape = syrk(r.substr(0, 1).c_str(), parts[1].c_str(), parts[2].c_str(), number(3), number(4));
  } else if ((r == "dgeqrf" || r == "sgeqrf" || r == "dorgqr" || r == "dgeqp3") &&
             parts.size() == 3) {
    shape = qr(r.c_str(), number(1), number(2));
  } else if (r == "dormqr" && parts.size() == 4) {
    shape = qr(r.c_str(), number(1), number(2), number(3));
  } else if (is_driver(r)) {
    std::vector<long> sizes;
    for (std::size_t i = 1; i < parts.size(); ++i) sizes.push_back(number(i));
    shape = driver(r.c_str(), sizes);  // switchyard-bench-call checks how many
  } else {
    return false;
  }
  return true;
}

// What one child process measured.
struct Run {
  bool ran = false;
  bool skipped = false;
  double cold = 0, warm = 0;  // ms
  int cold_samples = 1;       // fresh processes whose median `cold` is
  int warm_samples = 1;       // the same of `warm` (a driver's)
  double check = 0;
  int calls = 0;
  std::string cold_route, warm_route, cold_reason, warm_reason, error;
  std::string nested;            // a driver's routed calls by route, from the report
  bool all_in_fallback = false;  // every one of them ran in the fallback
};

// "dgemm 340 (gpu 12), dgeqrf 1 (cpu 1)" from a SWITCHYARD_REPORT table: the process's routed
// calls, each routine's count and those not left to the fallback.
std::string summarize_report(const std::string& report, bool& all_in_fallback) {
  all_in_fallback = true;
  std::istringstream lines(report);
  std::string line, summary;
  std::getline(lines, line);  // the column heads
  while (std::getline(lines, line) && line.rfind("time includes", 0) != 0) {
    std::istringstream words(line);
    std::string routine;
    unsigned long long calls = 0, fallback = 0, cpu = 0, gpu = 0;
    if (!(words >> routine >> calls >> fallback >> cpu >> gpu)) continue;
    all_in_fallback = all_in_fallback && gpu == 0 && cpu == 0;
    std::string routes;
    if (gpu) routes += "gpu " + std::to_string(gpu);
    if (cpu) routes += std::string(routes.empty() ? "" : ", ") + "cpu " + std::to_string(cpu);
    summary += std::string(summary.empty() ? "" : ", ") + routine + " " + std::to_string(calls) +
               " (" + (routes.empty() ? "all fallback" : routes) + ")";
  }
  return summary.empty() ? "no routed calls" : summary;
}

// The route and reason of the top-level calls of `routine` in a trace, first and last (the
// child may make other calls first, such as the dgeqrf that makes dorgqr's reflectors).
void read_trace(const std::string& path, const std::string& routine, Run& run) {
  std::ifstream in(path);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (line.find(" depth=0 " + routine + " ") == std::string::npos) continue;
    const std::size_t r = line.find(" route=");
    if (r == std::string::npos) continue;
    const std::string route = line.substr(r + 7, line.find(' ', r + 7) - r - 7);
    const std::size_t q = line.find("reason=\"");
    const std::string reason =
        q == std::string::npos ? "" : line.substr(q + 8, line.find('"', q + 8) - q - 8);
    // A workspace query (dgeqp3's, made before the clock starts) computes nothing.
    if (reason == "workspace query") continue;
    if (first) {
      run.cold_route = route;
      run.cold_reason = reason;
      first = false;
    }
    run.warm_route = route;
    run.warm_reason = reason;
  }
}

Run run_child(const Shape& shape, const std::string& environment, double warm_up_s, int repeat,
              bool traced) {
  Run run;
  char trace[] = "/tmp/switchyard-routing-XXXXXX";
  const int fd = mkstemp(trace);
  if (fd >= 0) close(fd);
  std::string command = environment;
  if (traced) command += " SWITCHYARD_TRACE=" + quoted(trace);
  command += " " + quoted(sibling("switchyard-bench-call")) + " " + shape.call;
  for (const std::string& a : shape.args) command += " " + a;
  command += " " + std::to_string(warm_up_s * 1e3) + " " + std::to_string(repeat) + " 2>&1";
  const ChildOutput child = output_of(command);
  if (child.started) {
    std::string output = child.text;
    // The report, when asked for, comes last (at exit, on stderr; the child has flushed its
    // line of times by then).
    if (const std::size_t r = output.find("switchyard report\n"); r != std::string::npos) {
      run.nested = summarize_report(output.substr(output.find('\n', r) + 1), run.all_in_fallback);
      output.erase(r);
    }
    const CallTimes t = call_times(output);
    run.check = t.check;
    run.calls = t.calls;
    run.ran = child.status == 0 && int(t.ms.size()) == repeat + 1;
    if (run.ran) {
      run.cold = t.ms[0];
      run.warm = repeat > 0 ? *std::min_element(t.ms.begin() + 1, t.ms.end()) : run.cold;
    } else {
      run.error = output.substr(0, output.find('\n'));
      if (run.error.empty()) run.error = "exit status " + std::to_string(child.status);
    }
  }
  if (traced) read_trace(trace, shape.routine, run);
  if (is_driver(shape.routine)) run.cold_route = run.warm_route = "nested";
  unlink(trace);
  return run;
}

// Where the two sides need more than one process each (routing_verdict.hpp), each side's time
// is the median of `samples` fresh processes, the run's own first: its cold time, or with `warm`
// its warm time (the best of `repeat` calls after the side's warm-up, in each process).
struct Side {
  Run* run;
  const std::string* environment;
  double warm_up_s;
};
void settle(const Shape& shape, Side ours, Side other, int samples, bool warm, int repeat) {
  if (!ours.run->ran || !other.run->ran || samples <= 1) return;
  const auto time = [warm](Run& r) -> double& { return warm ? r.warm : r.cold; };
  if (!needs_more_samples(time(*ours.run), time(*other.run))) return;
  for (const Side& side : {ours, other}) {
    std::vector<double> times{time(*side.run)};
    for (int i = 1; i < samples; ++i) {
      Run again = run_child(shape, *side.environment, warm ? side.warm_up_s : 0.0,
                            warm ? repeat : 0, false);
      if (again.ran) times.push_back(time(again));
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    time(*side.run) = times[times.size() / 2];
    (warm ? side.run->warm_samples : side.run->cold_samples) = int(times.size());
  }
}

std::string ms(const Run& r, bool cold) {
  if (r.skipped) return "skip";
  if (!r.ran) return "fail";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%s", cold ? r.cold : r.warm,
                (cold ? r.cold_samples : r.warm_samples) > 1 ? "*" : "");
  return text;
}

std::string upper_case(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Why a forced run did not take its route, or "".
std::string forced_note(const Run& forced, const char* route) {
  if (!forced.ran || forced.skipped || forced.warm_route == route) return "";
  return forced.cold_reason;
}

// The routines with a route on the host's cores.
bool has_cpu_route(const std::string& routine) {
  for (const char* r : {"dgeqrf", "sgeqrf", "dgeqp3", "dorgqr", "dormqr"}) {
    if (routine == r) return true;
  }
  return false;
}

// One way to run a shape, for comparing the router's choice with: its runs' route name, what
// it measured, and its processes' environment.
struct Way {
  const char* route;
  Run* run;
  std::string environment;
  // Whether the run is one of this route's: the fallback always, a forced route when it took it.
  bool took() const {
    return run->ran && (std::strcmp(route, "fallback") == 0 || run->warm_route == route);
  }
};

}  // namespace

int routing_main(int argc, char** argv) {
  Options o;
  if (const char* f = std::getenv("SWITCHYARD_FALLBACK")) o.fallback = f;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    const auto list = [&](std::vector<std::string>& into) {
      std::stringstream in(value);
      for (std::string item; std::getline(in, item, ',');) into.push_back(item);
      ++i;
    };
    if (arg == "--fallback" && value) {
      o.fallback = value, ++i;
    } else if (arg == "--routines" && value) {
      list(o.routines);
    } else if (arg == "--shapes" && value) {
      list(o.shapes);
    } else if (arg == "--warm-up" && value) {
      o.warm_up_s = std::max(0.0, std::atof(value)), ++i;
    } else if (arg == "--repeat" && value) {
      o.repeat = std::max(1, std::atoi(value)), ++i;
    } else if (arg == "--cold-samples" && value) {
      o.cold_samples = std::max(1, std::atoi(value)), ++i;
    } else if (arg == "--max-seconds" && value) {
      o.max_seconds = std::atof(value), ++i;
    } else if (arg == "--horizon" && value) {
      o.horizon_s = std::max(0.0, std::atof(value)), ++i;
    } else if (arg == "--small-calls" && value) {
      o.small_calls = std::max(0L, std::atol(value)), ++i;
    } else if (arg == "--out" && value) {
      o.out = value, ++i;
    } else if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--skip-gpu") {
      o.gpu = false;
    } else {
      std::fprintf(stderr,
                   "usage: switchyard bench routing [--fallback LIB] [--routines LIST] "
                   "[--shapes R:ARGS,...]\n"
                   "         [--repeat R] [--warm-up S] [--cold-samples C] [--quick] "
                   "[--max-seconds S] [--horizon S] [--skip-gpu] [--small-calls N] [--out PATH]\n"
                   "  --routines: dgemm, sgemm, dsyrk, ssyrk, dgeqrf, dorgqr, dormqr, or a "
                   "LAPACK driver\n"
                   "    (dgesv, dposv, dsyevd, dgesdd, dgesvd, dgels, dgetsls, dgelsd, dgeqp3); "
                   "programs: every "
                   "driver\n"
                   "  --shapes: e.g. dgemm:T:N:64:64:4194304, dgram:64:4194304, "
                   "sgeqrf:8192:256, dgesdd:1048576:64, dgels:4194304:64:1\n");
      return 2;
    }
  }
  if (o.fallback.empty()) o.fallback = "liblapack.so.3";
  std::vector<Shape> shapes;
  for (const std::string& text : o.shapes) {
    Shape s;
    if (!parse_shape(text, s)) {
      std::fprintf(stderr, "switchyard bench routing: bad shape %s\n", text.c_str());
      return 2;
    }
    shapes.push_back(s);
  }
  if (o.shapes.empty()) shapes = sweep(o.quick);
  if (!o.routines.empty()) {
    shapes.erase(std::remove_if(shapes.begin(), shapes.end(),
                                [&](const Shape& s) {
                                  const auto has = [&](const std::string& name) {
                                    return std::find(o.routines.begin(), o.routines.end(), name) !=
                                           o.routines.end();
                                  };
                                  return !has(s.routine) &&
                                         !(is_driver(s.routine) && has("programs"));
                                }),
                 shapes.end());
  }

  // The fallback's library first in the global scope, as in a program linked with it;
  // Switchyard in front of it where it takes part.
  const std::string alone = "env -u SWITCHYARD_FALLBACK LD_PRELOAD=" + quoted(o.fallback);
  const std::string routed =
      "env -u SWITCHYARD_FALLBACK LD_PRELOAD=" + quoted(library_path() + ":" + o.fallback);
  std::printf(
      "switchyard bench routing: fallback %s, warm: best of %d after %g s of the same "
      "call, pageable host memory, each column a fresh process\n",
      o.fallback.c_str(), o.repeat, o.warm_up_s);
  std::printf("%-34s %-17s %9s %9s %9s %9s %9s %9s %9s %9s  %s\n", "call", "route cold/warm",
              "ours c", "ours w", "fb c", "fb w", "gpu c", "gpu w", "cpu c", "cpu w", "verdict");
  FILE* out = o.out.empty() ? nullptr : std::fopen(o.out.c_str(), "w");
  if (out) {
    std::fprintf(out,
                 "call\troute_cold\troute_warm\tours_cold_ms\tours_warm_ms\tfallback_cold_ms\t"
                 "fallback_warm_ms\tgpu_cold_ms\tgpu_warm_ms\tcpu_cold_ms\tcpu_warm_ms\t"
                 "verdict\treason\n");
  }
  std::map<std::string, double> fallback_gflops;  // best seen, per routine, to skip long runs
  int wrong_cold = 0, wrong_warm = 0, at_horizon = 0, rows = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape& s = shapes[i];
    std::fprintf(stderr, "\rrouting: %zu/%zu %-40s", i + 1, shapes.size(), s.text().c_str());
    std::fflush(stderr);
    const bool program = is_driver(s.routine);
    const auto known = fallback_gflops.find(s.routine);
    // A shape whose fallback call would take longer than --max-seconds at the best rate seen
    // on a smaller one is not run in the fallback. A driver always runs: its rate on one shape
    // says little of another (a tall SVD is a QR, a square one a bidiagonalization).
    const double estimate = known != fallback_gflops.end() ? s.flops / (known->second * 1e9) : 0.0;
    Run fb;
    if (!program && known != fallback_gflops.end() && estimate > o.max_seconds) {
      fb.skipped = true;
    } else {
      fb = run_child(s, alone, 0.0, o.repeat, false);
      if (fb.ran && !program) {
        const double rate = s.flops / (fb.warm * 1e6);
        fallback_gflops[s.routine] = std::max(fallback_gflops[s.routine], rate);
      }
    }
    Run ours = run_child(s, program ? routed + " SWITCHYARD_REPORT=1" : routed, o.warm_up_s,
                         o.repeat, !program);
    const std::string forced = routed + " SWITCHYARD_ROUTE_" + upper_case(s.routine) + "=";
    Run gpu, cpu;
    gpu.skipped = !o.gpu || program;
    if (!gpu.skipped) gpu = run_child(s, forced + "gpu", 0.0, o.repeat, true);
    cpu.skipped = !has_cpu_route(s.routine);
    if (!cpu.skipped) cpu = run_child(s, forced + "cpu", 0.0, o.repeat, true);
    const Way ways[] = {
        {"fallback", &fb, alone}, {"gpu", &gpu, forced + "gpu"}, {"cpu", &cpu, forced + "cpu"}};
    // The fastest of the other routes than `route`, cold or warm; null when none ran.
    const auto best_other_than = [&](const std::string& route, bool cold) -> const Way* {
      const Way* best = nullptr;
      for (const Way& w : ways) {
        if (route == w.route || !w.took()) continue;
        const double t = cold ? w.run->cold : w.run->warm;
        if (!best || t < (cold ? best->run->cold : best->run->warm)) best = &w;
      }
      return best;
    };
    // The same of the route chosen.
    const auto best_other = [&](bool cold) {
      return best_other_than(cold ? ours.cold_route : ours.warm_route, cold);
    };
    if (const Way* other = ours.ran ? best_other(true) : nullptr) {
      settle(s, {&ours, &routed, o.warm_up_s}, {other->run, &other->environment, 0.0},
             o.cold_samples, false, o.repeat);
      // A driver's warm calls vary from process to process as much as its cold ones.
      if (program) {
        settle(s, {&ours, &routed, o.warm_up_s}, {other->run, &other->environment, 0.0},
               o.cold_samples, true, o.repeat);
      }
    }
    std::string verdict = "ok";
    // A driver whose routed calls all ran in the fallback ran the fallback's own code: no route
    // was chosen that could be wrong, and what its times differ by is the processes'.
    const bool chose_nothing = program && ours.all_in_fallback;
    const auto judge = [&](bool cold) {
      const Way* other = best_other(cold);
      if (!ours.ran || !other || chose_nothing) return false;
      return slower(cold ? ours.cold : ours.warm, cold ? other->run->cold : other->run->warm);
    };
    const bool bad_cold = judge(true);
    bool bad_warm = judge(false);
    // A warm call still kept off a cold device ran at the ski rental's horizon, which the warm-up
    // fell short of: a process that repeats the call until the rule has run its course shows
    // where the router takes it after (within --horizon seconds of calls).
    Run past;
    const Way* past_other = nullptr;
    if (bad_warm && !program) {
      const double longer = horizon_warm_up_s(ours.warm_reason, ours.calls, o.warm_up_s);
      if (longer > o.warm_up_s && longer <= o.horizon_s) {
        past = run_child(s, routed, longer, o.repeat, true);
        past_other = past.ran ? best_other_than(past.warm_route, false) : nullptr;
        if (past_other && !slower(past.warm, past_other->run->warm)) {
          bad_warm = false;
          ++at_horizon;
          verdict = "horizon";
        }
      }
    }
    wrong_cold += bad_cold;
    wrong_warm += bad_warm;
    if (bad_cold || bad_warm) {
      verdict = std::string("WRONG") + (bad_cold ? " cold" : "") + (bad_warm ? " warm" : "");
      if (!bad_warm && past.ran) verdict += ", horizon warm";
    }
    if (!ours.ran) verdict = "FAILED: " + ours.error;
    if (ours.ran && fb.ran &&
        std::abs(ours.check - fb.check) > 1e-3 * std::max(1.0, std::abs(fb.check))) {
      verdict += " CHECK";  // a different answer
    }
    ++rows;
    std::fprintf(stderr, "\r%70s\r", "");
    const std::string routes = ours.cold_route + "/" + ours.warm_route;
    std::printf("%-34s %-17s %9s %9s %9s %9s %9s %9s %9s %9s  %s\n", s.text().c_str(),
                routes.c_str(), ms(ours, true).c_str(), ms(ours, false).c_str(),
                ms(fb, true).c_str(), ms(fb, false).c_str(), ms(gpu, true).c_str(),
                ms(gpu, false).c_str(), ms(cpu, true).c_str(), ms(cpu, false).c_str(),
                verdict.c_str());
    if (program) std::printf("%34s nested: %s\n", "", ours.nested.c_str());
    if (bad_cold && !program) std::printf("%34s cold: %s\n", "", ours.cold_reason.c_str());
    if ((bad_warm || past.ran) && !program) {
      std::printf("%34s warm, after %d calls: %s\n", "", ours.calls, ours.warm_reason.c_str());
      if (const int calls = calls_to_pay_for_start(ours.warm_reason); calls > ours.calls) {
        std::printf("%34s the device starts once about %d such calls have forgone its start-up\n",
                    "", calls);
      }
    }
    if (past.ran) {
      std::printf("%34s past the horizon, after %d calls: %s %.1f ms%s%s %.1f ms\n", "", past.calls,
                  past.warm_route.c_str(), past.warm, past_other ? ", " : "",
                  past_other ? past_other->route : "", past_other ? past_other->run->warm : 0.0);
      std::printf("%34s %s\n", "", past.warm_reason.c_str());
    }
    for (const Way* forced_way : {&ways[1], &ways[2]}) {
      if (const std::string note = forced_note(*forced_way->run, forced_way->route);
          !note.empty()) {
        std::printf("%34s %s not taken: %s\n", "", forced_way->route, note.c_str());
      }
    }
    std::fflush(stdout);
    if (out) {
      std::fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.text().c_str(),
                   ours.cold_route.c_str(), ours.warm_route.c_str(), ms(ours, true).c_str(),
                   ms(ours, false).c_str(), ms(fb, true).c_str(), ms(fb, false).c_str(),
                   ms(gpu, true).c_str(), ms(gpu, false).c_str(), ms(cpu, true).c_str(),
                   ms(cpu, false).c_str(), verdict.c_str(),
                   (program ? ours.nested : ours.cold_reason).c_str());
    }
  }
  if (out) std::fclose(out);
  std::printf(
      "summary: %d shapes, %d wrong choices cold, %d warm (chosen route at least 10%% "
      "and 5 ms slower than another), %d warm at the ski rental's horizon and right past it; * "
      "the median of %d processes\n",
      rows, wrong_cold, wrong_warm, at_horizon, o.cold_samples);
  if (o.small_calls > 0) print_small_calls(alone, routed, o.small_calls, 5);
  return 0;
}

}  // namespace switchyard::bench
