// The names NumPy's pip wheels call in their bundled OpenBLAS (the scipy-openblas64 build):
// every 32-bit name with "scipy_" prepended and "64_" appended (scipy_dgemm_64_,
// scipy_cblas_dgemm64_, scipy_LAPACKE_dgeqrf64_), taking 64-bit integers. Their calls are
// handed on to that OpenBLAS (docs/pip-wheels.md).
#include <cstddef>
#include <cstdint>

#include "entry.hpp"
#include "export.hpp"

#define SWITCHYARD_CONVENTION switchyard::ScipyOpenblas64
#define SWITCHYARD_NAME(name) scipy_##name##64_
#include "names.inc"
