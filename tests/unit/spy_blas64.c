/* A stand-in 64-bit BLAS that a program opens with dlopen(RTLD_LOCAL), as Python opens a
   wheel's bundled OpenBLAS: its dgemm_64_ marks C with 64 instead of computing, so a test can
   tell that Switchyard's 64-bit fallback found it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

void dgemm_64_(const char* transa, const char* transb, const int64_t* m, const int64_t* n,
               const int64_t* k, const double* alpha, const double* a, const int64_t* lda,
               const double* b, const int64_t* ldb, const double* beta, double* c,
               const int64_t* ldc, size_t la, size_t lb) {
  (void)transa, (void)transb, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb;
  (void)beta, (void)la, (void)lb;
  for (int64_t j = 0; j < *n; ++j)
    for (int64_t i = 0; i < *m; ++i) c[j * *ldc + i] = 64.0;
}

/* The other routines Switchyard hands on, so that its 64-bit table finds all of them here and
   opens no other library (which would be Debian's libblas64, opened with RTLD_DEEPBIND, which
   the sanitizers refuse); the test never calls them. */
#define NEVER_CALLED(name) \
  void name(void) { abort(); }
NEVER_CALLED(sgemm_64_)
NEVER_CALLED(ssyrk_64_)
NEVER_CALLED(dsyrk_64_)
NEVER_CALLED(sgeqrf_64_)
NEVER_CALLED(dgeqrf_64_)
NEVER_CALLED(sorgqr_64_)
NEVER_CALLED(dorgqr_64_)
NEVER_CALLED(sormqr_64_)
NEVER_CALLED(dormqr_64_)
