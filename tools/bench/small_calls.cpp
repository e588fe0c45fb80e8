// A program that makes millions of small calls gets nothing from a route, and every call pays
// for the router's look at it: the entry point's checks, the shape, the thresholds, the count
// for the report. This table puts that cost in nanoseconds next to the call's own time, each
// the best of several processes, since a loop of tiny calls in one process varies by a tenth
// from the next process.
#include "small_calls.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace switchyard::bench {
namespace {

// Each call's nanoseconds per call in one process, in the order printed; empty on failure.
std::vector<std::pair<std::string, double>> run_small(const std::string& environment, long calls) {
  std::vector<std::pair<std::string, double>> rows;
  const std::string command = environment + " " + quoted(sibling("switchyard-bench-small")) + " " +
                              std::to_string(calls) + " 2>/dev/null";
  FILE* child = popen(command.c_str(), "r");
  if (!child) return rows;
  char line[256];
  while (std::fgets(line, sizeof line, child)) {
    std::istringstream fields(line);
    std::string name, ns;
    if (std::getline(fields, name, '\t') && std::getline(fields, ns, '\t')) {
      rows.emplace_back(name, std::atof(ns.c_str()));
    }
  }
  if (pclose(child) != 0) rows.clear();
  return rows;
}

}  // namespace

void print_small_calls(const std::string& alone, const std::string& routed, long calls,
                       int rounds) {
  std::vector<std::string> order;
  std::map<std::string, double> best_alone, best_routed;
  const auto keep = [&](const std::vector<std::pair<std::string, double>>& rows,
                        std::map<std::string, double>& best) {
    for (const auto& [name, ns] : rows) {
      if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
      const auto it = best.find(name);
      if (it == best.end() || ns < it->second) best[name] = ns;
    }
  };
  for (int r = 0; r < rounds; ++r) {
    std::fprintf(stderr, "\rsmall calls: round %d/%d%-40s", r + 1, rounds, "");
    keep(run_small(alone, calls), best_alone);
    keep(run_small(routed, calls), best_routed);
  }
  std::fprintf(stderr, "\r%-60s\r", "");
  std::printf(
      "\nsmall calls: ns per call in a loop of %ld, the best of %d processes each, "
      "through the program's own BLAS/LAPACK names\n",
      calls, rounds);
  std::printf("%-34s %12s %12s %10s %8s\n", "call", "fallback ns", "switchyard", "extra ns",
              "ratio");
  std::vector<double> extras;
  for (const std::string& name : order) {
    const auto a = best_alone.find(name), s = best_routed.find(name);
    if (a == best_alone.end() || s == best_routed.end()) {
      std::printf("%-34s %12s\n", name.c_str(), "fail");
      continue;
    }
    const double extra = s->second - a->second;
    extras.push_back(extra);
    std::printf("%-34s %12.1f %12.1f %10.1f %8.2f\n", name.c_str(), a->second, s->second, extra,
                s->second / a->second);
  }
  if (extras.empty()) {
    std::printf("small calls: switchyard-bench-small did not run\n");
    return;
  }
  std::sort(extras.begin(), extras.end());
  std::printf("small calls: Switchyard's extra per call, median %.1f ns, at most %.1f ns\n",
              extras[extras.size() / 2], extras.back());
}

}  // namespace switchyard::bench
