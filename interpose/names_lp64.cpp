// libswitchyard.so's 32-bit names, as reference BLAS, CBLAS, LAPACK and
// LAPACKE have them (dgemm_, cblas_dgemm, LAPACKE_dgeqrf), and the Fortran
// names without the trailing underscore that some compilers use.
#include <cstddef>

#include "entry.hpp"
#include "export.hpp"

#define SWITCHYARD_CONVENTION switchyard::Lp64
#define SWITCHYARD_NAME(name) name
#include "names.inc"

SWITCHYARD_EXPORT decltype(sgemm_) sgemm SWITCHYARD_ALIAS(sgemm_);
SWITCHYARD_EXPORT decltype(dgemm_) dgemm SWITCHYARD_ALIAS(dgemm_);
SWITCHYARD_EXPORT decltype(ssyrk_) ssyrk SWITCHYARD_ALIAS(ssyrk_);
SWITCHYARD_EXPORT decltype(dsyrk_) dsyrk SWITCHYARD_ALIAS(dsyrk_);
SWITCHYARD_EXPORT decltype(sgeqrf_) sgeqrf SWITCHYARD_ALIAS(sgeqrf_);
SWITCHYARD_EXPORT decltype(dgeqrf_) dgeqrf SWITCHYARD_ALIAS(dgeqrf_);
SWITCHYARD_EXPORT decltype(sorgqr_) sorgqr SWITCHYARD_ALIAS(sorgqr_);
SWITCHYARD_EXPORT decltype(dorgqr_) dorgqr SWITCHYARD_ALIAS(dorgqr_);
SWITCHYARD_EXPORT decltype(sormqr_) sormqr SWITCHYARD_ALIAS(sormqr_);
SWITCHYARD_EXPORT decltype(dormqr_) dormqr SWITCHYARD_ALIAS(dormqr_);
SWITCHYARD_EXPORT decltype(sgeqp3_) sgeqp3 SWITCHYARD_ALIAS(sgeqp3_);
SWITCHYARD_EXPORT decltype(dgeqp3_) dgeqp3 SWITCHYARD_ALIAS(dgeqp3_);
SWITCHYARD_EXPORT decltype(sgels_) sgels SWITCHYARD_ALIAS(sgels_);
SWITCHYARD_EXPORT decltype(dgels_) dgels SWITCHYARD_ALIAS(dgels_);
SWITCHYARD_EXPORT decltype(sgelsd_) sgelsd SWITCHYARD_ALIAS(sgelsd_);
SWITCHYARD_EXPORT decltype(dgelsd_) dgelsd SWITCHYARD_ALIAS(dgelsd_);
SWITCHYARD_EXPORT decltype(sgesdd_) sgesdd SWITCHYARD_ALIAS(sgesdd_);
SWITCHYARD_EXPORT decltype(dgesdd_) dgesdd SWITCHYARD_ALIAS(dgesdd_);
SWITCHYARD_EXPORT decltype(sgesvd_) sgesvd SWITCHYARD_ALIAS(sgesvd_);
SWITCHYARD_EXPORT decltype(dgesvd_) dgesvd SWITCHYARD_ALIAS(dgesvd_);
SWITCHYARD_EXPORT decltype(sgeqrt_) sgeqrt SWITCHYARD_ALIAS(sgeqrt_);
SWITCHYARD_EXPORT decltype(dgeqrt_) dgeqrt SWITCHYARD_ALIAS(dgeqrt_);
SWITCHYARD_EXPORT decltype(sgemqrt_) sgemqrt SWITCHYARD_ALIAS(sgemqrt_);
SWITCHYARD_EXPORT decltype(dgemqrt_) dgemqrt SWITCHYARD_ALIAS(dgemqrt_);
SWITCHYARD_EXPORT decltype(sgeqr_) sgeqr SWITCHYARD_ALIAS(sgeqr_);
SWITCHYARD_EXPORT decltype(dgeqr_) dgeqr SWITCHYARD_ALIAS(dgeqr_);
SWITCHYARD_EXPORT decltype(sgemqr_) sgemqr SWITCHYARD_ALIAS(sgemqr_);
SWITCHYARD_EXPORT decltype(dgemqr_) dgemqr SWITCHYARD_ALIAS(dgemqr_);
SWITCHYARD_EXPORT decltype(sgetsls_) sgetsls SWITCHYARD_ALIAS(sgetsls_);
SWITCHYARD_EXPORT decltype(dgetsls_) dgetsls SWITCHYARD_ALIAS(dgetsls_);
