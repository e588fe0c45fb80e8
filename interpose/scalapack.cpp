// ScaLAPACK's Fortran psgeqrf_ and pdgeqrf_ (libscalapack-openmpi's names), exported by
// libswitchyard.so alone: ScaLAPACK's integers are 32-bit. What Switchyard does not take runs
// in the next library's definition, found as the fallback finds the next BLAS/LAPACK.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "export.hpp"
#include "loaded_objects.hpp"
#include "scalapack/pgeqrf.hpp"

namespace switchyard::scalapack {
namespace {

template <class T>
PgeqrfFn<T>* next_pgeqrf(const char* name) {
  void* next = dlsym(RTLD_NEXT, name);
  if (!next || is_own(next)) {
    std::fprintf(stderr, "switchyard: fatal: no ScaLAPACK library after Switchyard provides %s\n",
                 name);
    std::abort();
  }
  return reinterpret_cast<PgeqrfFn<T>*>(next);
}

}  // namespace
}  // namespace switchyard::scalapack

SWITCHYARD_EXPORT void psgeqrf_(const int* m, const int* n, float* a, const int* ia, const int* ja,
                                const int* desca, float* tau, float* work, const int* lwork,
                                int* info) {
  static auto* const next = switchyard::scalapack::next_pgeqrf<float>("psgeqrf_");
  switchyard::scalapack::pgeqrf(*m, *n, a, *ia, *ja, desca, tau, work, *lwork, info, next);
}

SWITCHYARD_EXPORT void pdgeqrf_(const int* m, const int* n, double* a, const int* ia, const int* ja,
                                const int* desca, double* tau, double* work, const int* lwork,
                                int* info) {
  static auto* const next = switchyard::scalapack::next_pgeqrf<double>("pdgeqrf_");
  switchyard::scalapack::pgeqrf(*m, *n, a, *ia, *ja, desca, tau, work, *lwork, info, next);
}
