/* A stand-in for the OpenBLAS that NumPy's and SciPy's pip wheels bundle (docs/pip-wheels.md):
   the routines Switchyard hands on under both wheels' names, scipy_dgemm_ with 32-bit
   integers (SciPy's scipy-openblas32) and scipy_dgemm_64_ with 64-bit ones (NumPy's
   scipy-openblas64); their error handlers; and the configuration strings Switchyard reads
   each build's integer width from. Built twice: as the wheels' libraries are, and with
   STAND_IN_WRONG_WIDTH, where each configuration string claims the other width.

   Each routine that runs counts its call in stand_in_calls32 or stand_in_calls64 and each
   handler records what it was given, so that the test tells who ran what. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

long stand_in_calls32, stand_in_calls64;
char stand_in_error_routine[32];
int64_t stand_in_error_info;

#ifdef STAND_IN_WRONG_WIDTH
#define CONFIG32 "OpenBLAS 0.3.30 USE64BITINT DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
#define CONFIG64 "OpenBLAS 0.3.31 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
#else
#define CONFIG32 "OpenBLAS 0.3.30 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
#define CONFIG64 "OpenBLAS 0.3.31 USE64BITINT DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
#endif

char* scipy_openblas_get_config(void) { return CONFIG32; }
char* scipy_openblas_get_config64_(void) { return CONFIG64; }

/* op(X)(i, j) of a column-major X. */
static double element(char trans, const double* x, int64_t ld, int64_t i, int64_t j) {
  return trans == 'N' ? x[j * ld + i] : x[i * ld + j];
}

static void gemm(char ta, char tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                 int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l) sum += element(ta, a, lda, i, l) * element(tb, b, ldb, l, j);
      c[j * ldc + i] = alpha * sum + (beta == 0 ? 0 : beta * c[j * ldc + i]);
    }
  }
}

static void syrk(char uplo, char trans, int64_t n, int64_t k, double alpha, const double* a,
                 int64_t lda, double beta, double* c, int64_t ldc) {
  const char other = trans == 'N' ? 'T' : 'N';
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = uplo == 'U' ? 0 : j; i < (uplo == 'U' ? j + 1 : n); ++i) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l)
        sum += element(trans, a, lda, i, l) * element(other, a, lda, l, j);
      c[j * ldc + i] = alpha * sum + (beta == 0 ? 0 : beta * c[j * ldc + i]);
    }
  }
}

/* An unprefixed helper that the routines call through the PLT, as the wheels' OpenBLAS call
   droundup_lwork_ and dlaqz0_: any library in the program's global scope that defines it
   takes those calls (reference LAPACK's droundup_lwork_ answers 4242 for 4242). */
double droundup_lwork_(const int* lwork) { return *lwork + 0.25; }

/* The optimal LWORK a workspace query answers, 4242 rounded by the helper above to 4242.25:
   a number no real library would. */
static const int geqrf_query_answer = 4242;

void scipy_dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                  const double* alpha, const double* a, const int* lda, const double* b,
                  const int* ldb, const double* beta, double* c, const int* ldc, size_t la,
                  size_t lb) {
  (void)la, (void)lb;
  ++stand_in_calls32;
  gemm(*ta, *tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

void scipy_dgemm_64_(const char* ta, const char* tb, const int64_t* m, const int64_t* n,
                     const int64_t* k, const double* alpha, const double* a, const int64_t* lda,
                     const double* b, const int64_t* ldb, const double* beta, double* c,
                     const int64_t* ldc, size_t la, size_t lb) {
  (void)la, (void)lb;
  ++stand_in_calls64;
  gemm(*ta, *tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

void scipy_dsyrk_(const char* uplo, const char* trans, const int* n, const int* k,
                  const double* alpha, const double* a, const int* lda, const double* beta,
                  double* c, const int* ldc, size_t lu, size_t lt) {
  (void)lu, (void)lt;
  ++stand_in_calls32;
  syrk(*uplo, *trans, *n, *k, *alpha, a, *lda, *beta, c, *ldc);
}

void scipy_dsyrk_64_(const char* uplo, const char* trans, const int64_t* n, const int64_t* k,
                     const double* alpha, const double* a, const int64_t* lda, const double* beta,
                     double* c, const int64_t* ldc, size_t lu, size_t lt) {
  (void)lu, (void)lt;
  ++stand_in_calls64;
  syrk(*uplo, *trans, *n, *k, *alpha, a, *lda, *beta, c, *ldc);
}

/* xGEQRF answers workspace queries only; the test makes no other call of it. */
void scipy_dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
                   const int* lwork, int* info) {
  (void)m, (void)n, (void)a, (void)lda, (void)tau;
  if (*lwork != -1) abort();
  ++stand_in_calls32;
  work[0] = droundup_lwork_(&geqrf_query_answer);
  *info = 0;
}

void scipy_dgeqrf_64_(const int64_t* m, const int64_t* n, double* a, const int64_t* lda,
                      double* tau, double* work, const int64_t* lwork, int64_t* info) {
  (void)m, (void)n, (void)a, (void)lda, (void)tau;
  if (*lwork != -1) abort();
  ++stand_in_calls64;
  work[0] = droundup_lwork_(&geqrf_query_answer);
  *info = 0;
}

/* The error handlers, as OpenBLAS has them, recording instead of printing (and, for
   cblas_xerbla, instead of exiting as reference CBLAS's does). */
static void record(const char* routine, size_t length, int64_t info) {
  if (length >= sizeof stand_in_error_routine) length = sizeof stand_in_error_routine - 1;
  memcpy(stand_in_error_routine, routine, length);
  stand_in_error_routine[length] = 0;
  stand_in_error_info = info;
}

void scipy_xerbla_(const char* srname, const int* info, size_t length) {
  record(srname, length, *info);
}
void scipy_xerbla_64_(const char* srname, const int64_t* info, size_t length) {
  record(srname, length, *info);
}
void scipy_cblas_xerbla(int info, const char* rout, const char* form, ...) {
  (void)form;
  record(rout, strlen(rout), info);
}
void scipy_cblas_xerbla64_(int64_t info, const char* rout, const char* form, ...) {
  (void)form;
  record(rout, strlen(rout), info);
}
void scipy_LAPACKE_xerbla(const char* name, int info) { record(name, strlen(name), info); }
void scipy_LAPACKE_xerbla64_(const char* name, int64_t info) { record(name, strlen(name), info); }

/* The other routines Switchyard hands on, so that its tables find every one of them here;
   the test never calls them. */
#define NEVER_CALLED(name) \
  void name(void) { abort(); }
NEVER_CALLED(scipy_sgemm_)
NEVER_CALLED(scipy_ssyrk_)
NEVER_CALLED(scipy_sgeqrf_)
NEVER_CALLED(scipy_sorgqr_)
NEVER_CALLED(scipy_dorgqr_)
NEVER_CALLED(scipy_sormqr_)
NEVER_CALLED(scipy_dormqr_)
NEVER_CALLED(scipy_sgemm_64_)
NEVER_CALLED(scipy_ssyrk_64_)
NEVER_CALLED(scipy_sgeqrf_64_)
NEVER_CALLED(scipy_sorgqr_64_)
NEVER_CALLED(scipy_dorgqr_64_)
NEVER_CALLED(scipy_sormqr_64_)
NEVER_CALLED(scipy_dormqr_64_)
