#pragma once

// The rule by which `switchyard bench routing` judges a route the router chose against another
// route run on the same shape, and when one process's time is not enough to judge by.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace switchyard::bench {

// Whether the chosen route, taking `chosen` ms, was the wrong choice against one taking `other`
// ms: at least 10% and 5 ms longer.
inline bool slower(double chosen, double other) {
  return chosen >= 1.1 * other && chosen - other >= 5.0;
}

// A process's time varies by up to a third from process to process (the CUDA driver's start;
// OpenBLAS's dgesv 4096, which makes no routed call, took 955 to 1356 ms in twelve processes on
// the H100 host, with and without libraries preloaded), and a single process on a busy machine
// can take several times its usual time (a cold dgeqrf 20000 x 8 that ran in the fallback took
// 30.6 ms once against 5.2 for the fallback alone, on a 2-core machine running other tests).
// Two sides within this ratio of each other are told apart by more processes.
constexpr double kNoise = 1.35;

// Whether the two sides' times need the median of more fresh processes: where they are close,
// or where ours would be judged wrong (a verdict rests on more than one process).
inline bool needs_more_samples(double ours, double other) {
  const double ratio = ours / other;
  const bool close = ratio <= kNoise && ratio >= 1 / kNoise;
  return close || slower(ours, other);
}

// How many calls like one whose trace reason holds "cold device: start-up S s > gain G s" the
// router keeps off the device before their forgone gain pays for its start (the ski rental of
// docs/router.md): S / G, rounded up, G being what the call forwent as run ("; forwent G s")
// where the reason says so, else the model's gain; 0 where the reason holds no such figures. A
// warm call still on the host after fewer calls than that is the rule's price, not the model's
// error.
inline int calls_to_pay_for_start(const std::string& reason) {
  const std::size_t at = reason.find("cold device: start-up ");
  if (at == std::string::npos) return 0;
  double start = 0.0, gain = 0.0;
  const int read =
      std::sscanf(reason.c_str() + at, "cold device: start-up %lf s > gain %lf s", &start, &gain);
  if (read != 2) return 0;
  if (const std::size_t ran = reason.find("; forwent ", at); ran != std::string::npos) {
    if (std::sscanf(reason.c_str() + ran, "; forwent %lf s", &gain) != 1) return 0;
  }
  if (!(gain > 0.0) || !(start > 0.0)) return 0;
  return int(std::ceil(start / gain));
}

// How long a process must repeat a call for the ski rental to have run its course, where its warm
// calls after `warm_up_s` seconds and `calls` calls in all were still kept off a cold device with
// the trace reason `reason`: the calls still to forgo the start-up, at the pace of those made,
// then the start itself, taken as twice its figure and half a second (a start in the background
// shares the cores with the calls: on the H200 host the CUDA start's 0.17 s ran 0.32 s beside the
// CPU TSQR's 16 threads); and at least four times the warm-up, since what each call forgoes
// varies from process to process (the CPU TSQR of 2^22 x 16 took 33-42 ms in one machine's
// processes against the device's 24, so a call forwent 5 to 13 ms). 0 where the reason does not
// say the device was cold.
inline double horizon_warm_up_s(const std::string& reason, int calls, double warm_up_s) {
  const std::size_t at = reason.find("cold device: start-up ");
  if (at == std::string::npos || calls <= 0 || !(warm_up_s > 0.0)) return 0.0;
  double start = 0.0;
  if (std::sscanf(reason.c_str() + at, "cold device: start-up %lf s", &start) != 1) return 0.0;
  const int more = std::max(0, calls_to_pay_for_start(reason) - calls);
  return std::max(4 * warm_up_s, warm_up_s + more * (warm_up_s / calls) + 2 * start + 0.5);
}

}  // namespace switchyard::bench
