#pragma once

// The rule by which `switchyard bench routing` judges a route the router chose against another
// route run on the same shape, and when one process's time is not enough to judge by.

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

}  // namespace switchyard::bench
