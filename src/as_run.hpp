// What each route took as run against what the router's model gave it, per class of shape, so
// that the router weighs a later call of the class by the times this process has seen rather
// than by figures measured on another machine, or on this one at another time: a host whose
// cores run the CPU TSQR at half its shipped rate, or a fallback faster than its calibration on
// the shape, stops costing the calls after the first few.
//
// A class is a routine, a route and the binary order of each of the shape's dimensions
// (2^16 <= m < 2^17 rows and 8 <= n < 16 columns, say). The first call of a route in a class is
// not counted: it pays what later ones do not (its threads' first start, its memory's first
// touch, a device's first allocations). From the second counted call on, the class's ratio is
// the median of its last three, within [1/4, 4]; 1 before that.
#pragma once

#include "routine.hpp"

namespace switchyard::as_run {

// Counts one call of `routine` on `route` that took `ran_s` seconds where the model, unscaled,
// gave it `modelled_s`.
void record(Routine routine, int route, const Shape& s, double modelled_s, double ran_s);

// What the model's time for a call of the class is to be multiplied by.
double ratio(Routine routine, int route, const Shape& s);

// How many calls of the class on `route` its ratio rests on (at most three).
int counted(Routine routine, int route, const Shape& s);

}  // namespace switchyard::as_run
