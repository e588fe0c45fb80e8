// The names SciPy's pip wheels call in their bundled OpenBLAS (the scipy-openblas32 build):
// every 32-bit name with "scipy_" prepended (scipy_dgemm_, scipy_cblas_dgemm,
// scipy_LAPACKE_dgeqrf). Their calls are handed on to that OpenBLAS (docs/pip-wheels.md).
#include <cstddef>

#include "entry.hpp"
#include "export.hpp"

#define SWITCHYARD_CONVENTION switchyard::ScipyOpenblas32
#define SWITCHYARD_NAME(name) scipy_##name
#include "names.inc"
