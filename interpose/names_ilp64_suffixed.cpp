// libswitchyard.so's 64-bit names: every 32-bit name with "64_" appended, as
// OpenBLAS's ILP64 builds (SYMBOLSUFFIX=64_) and libblastrampoline name them
// (dgemm_64_, cblas_dgemm64_, LAPACKE_dgeqrf64_); and the C names as
// reference LAPACK's 64-bit API and MKL spell them (cblas_dgemm_64,
// LAPACKE_dgeqrf_64).
#include <cstddef>
#include <cstdint>

#include "entry.hpp"
#include "export.hpp"
#include "fallback.hpp"

#define SWITCHYARD_CONVENTION switchyard::Ilp64
#define SWITCHYARD_NAME(name) name##64_
#include "names.inc"

SWITCHYARD_EXPORT decltype(cblas_sgemm64_) cblas_sgemm_64 SWITCHYARD_ALIAS(cblas_sgemm64_);
SWITCHYARD_EXPORT decltype(cblas_dgemm64_) cblas_dgemm_64 SWITCHYARD_ALIAS(cblas_dgemm64_);
SWITCHYARD_EXPORT decltype(cblas_ssyrk64_) cblas_ssyrk_64 SWITCHYARD_ALIAS(cblas_ssyrk64_);
SWITCHYARD_EXPORT decltype(cblas_dsyrk64_) cblas_dsyrk_64 SWITCHYARD_ALIAS(cblas_dsyrk64_);
SWITCHYARD_EXPORT decltype(LAPACKE_sgeqrf64_) LAPACKE_sgeqrf_64 SWITCHYARD_ALIAS(LAPACKE_sgeqrf64_);
SWITCHYARD_EXPORT decltype(LAPACKE_dgeqrf64_) LAPACKE_dgeqrf_64 SWITCHYARD_ALIAS(LAPACKE_dgeqrf64_);
SWITCHYARD_EXPORT decltype(LAPACKE_sgeqrf_work64_) LAPACKE_sgeqrf_work_64
    SWITCHYARD_ALIAS(LAPACKE_sgeqrf_work64_);
SWITCHYARD_EXPORT decltype(LAPACKE_dgeqrf_work64_) LAPACKE_dgeqrf_work_64
    SWITCHYARD_ALIAS(LAPACKE_dgeqrf_work64_);

// libblastrampoline (Julia's BLAS) recognises a library by its isamax_ or dpotrf_ with the
// suffix it is given, and tells the width of its integers from what isamax makes of an N whose
// upper half is set. Switchyard does not route isamax: this one hands every call on.
SWITCHYARD_EXPORT std::int64_t isamax_64_(const std::int64_t* n, const float* x,
                                          const std::int64_t* incx) {
  using Isamax = std::int64_t(const std::int64_t*, const float*, const std::int64_t*);
  static Isamax* const next = reinterpret_cast<Isamax*>(switchyard::next_symbol64("isamax_"));
  return next(n, x, incx);
}
