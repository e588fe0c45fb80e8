#pragma once

#include "fallback.hpp"

namespace switchyard::tsqr {

// The LAPACK entry point the CPU TSQR calls, for T = float (s*) or double (d*): geqrf, for the
// shapes too short to split. In the library the fallback's, in tests reference LAPACK's.
template <class T>
struct Lapack {
  GeqrfFn<T>* geqrf = nullptr;  // sgeqrf_ / dgeqrf_

  bool complete() const { return geqrf != nullptr; }
};

}  // namespace switchyard::tsqr
