/* ilp64_program: a C99 program linked against libswitchyard.so that calls
 * its 64-bit names (docs/ilp64.md): the Fortran dgemm_64_, ssyrk_64_,
 * dgeqrf_64_, dorgqr_64_ and dormqr_64_, cblas_dgemm64_ and its other
 * spelling cblas_dgemm_64, LAPACKE_dgeqrf64_, and isamax_64_ as
 * libblastrampoline probes it. Each result is checked
 * against the program's own loops; a bad argument must reach the program's
 * xerbla_64_ with the parameter's number in a 64-bit INFO; and a call whose
 * leading dimensions do not fit an int must still be right.
 *
 * The names are declared here, as OpenBLAS's ILP64 headers declare them,
 * since no ILP64 header is installed with Debian's reference libraries.
 * Prints one PASS or FAIL line per check; exit status 1 if any failed. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t blasint;

void dgemm_64_(const char* transa, const char* transb, const blasint* m, const blasint* n,
               const blasint* k, const double* alpha, const double* a, const blasint* lda,
               const double* b, const blasint* ldb, const double* beta, double* c,
               const blasint* ldc, size_t, size_t);
void ssyrk_64_(const char* uplo, const char* trans, const blasint* n, const blasint* k,
               const float* alpha, const float* a, const blasint* lda, const float* beta, float* c,
               const blasint* ldc, size_t, size_t);
void dgeqrf_64_(const blasint* m, const blasint* n, double* a, const blasint* lda, double* tau,
                double* work, const blasint* lwork, blasint* info);
void dorgqr_64_(const blasint* m, const blasint* n, const blasint* k, double* a, const blasint* lda,
                const double* tau, double* work, const blasint* lwork, blasint* info);
void dormqr_64_(const char* side, const char* trans, const blasint* m, const blasint* n,
                const blasint* k, const double* a, const blasint* lda, const double* tau, double* c,
                const blasint* ldc, double* work, const blasint* lwork, blasint* info, size_t,
                size_t);
void cblas_dgemm64_(int layout, int transa, int transb, blasint m, blasint n, blasint k,
                    double alpha, const double* a, blasint lda, const double* b, blasint ldb,
                    double beta, double* c, blasint ldc);
void cblas_dgemm_64(int layout, int transa, int transb, blasint m, blasint n, blasint k,
                    double alpha, const double* a, blasint lda, const double* b, blasint ldb,
                    double beta, double* c, blasint ldc);
blasint LAPACKE_dgeqrf64_(int layout, blasint m, blasint n, double* a, blasint lda, double* tau);
blasint isamax_64_(const blasint* n, const float* x, const blasint* incx);

enum { row_major = 101, col_major = 102, trans = 112 };

/* The program's own XERBLA of the 64-bit convention, as a test program has
 * one: it records what it was called with instead of stopping. */
static char xerbla_name[8];
static blasint xerbla_info;
static int xerbla_calls;

void xerbla_64_(const char* srname, const blasint* info, size_t len) {
  size_t n = len < sizeof xerbla_name - 1 ? len : sizeof xerbla_name - 1;
  memcpy(xerbla_name, srname, n);
  xerbla_name[n] = 0;
  xerbla_info = *info;
  ++xerbla_calls;
}

static int failures = 0;

static void report(int ok, const char* what) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", what);
  if (!ok) ++failures;
}

static double* new_doubles(size_t count) {
  double* p = calloc(count ? count : 1, sizeof(double));
  if (!p) {
    fprintf(stderr, "ilp64_program: out of memory\n");
    exit(2);
  }
  return p;
}

/* A reproducible matrix of values in [-1, 1]. */
static void fill(double* x, size_t count, unsigned seed) {
  for (size_t i = 0; i < count; ++i) {
    seed = seed * 1103515245u + 12345u;
    x[i] = (double)((seed >> 8) % 2001) / 1000.0 - 1.0;
  }
}

/* C = alpha op(A) op(B) + beta C, column-major, by the definition. */
static void own_gemm(int ta, int tb, int m, int n, int k, double alpha, const double* a, int lda,
                     const double* b, int ldb, double beta, double* c, int ldc) {
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l) {
        s += (ta ? a[(size_t)i * lda + l] : a[(size_t)l * lda + i]) *
             (tb ? b[(size_t)l * ldb + j] : b[(size_t)j * ldb + l]);
      }
      c[(size_t)j * ldc + i] = alpha * s + beta * c[(size_t)j * ldc + i];
    }
  }
}

static double max_difference(const double* x, const double* y, size_t count) {
  double d = 0;
  for (size_t i = 0; i < count; ++i) d = fmax(d, fabs(x[i] - y[i]));
  return d;
}

static void check_dgemm(void) {
  const blasint m = 9, n = 7, k = 5, lda = 11, ldb = 8, ldc = 10;
  const double alpha = 0.75, beta = -0.5;
  double *a = new_doubles(lda * m), *b = new_doubles(ldb * k), *c = new_doubles(ldc * n),
         *expected = new_doubles(ldc * n);
  fill(a, lda * m, 1);
  fill(b, ldb * k, 2);
  fill(c, ldc * n, 3);
  memcpy(expected, c, sizeof(double) * ldc * n);
  dgemm_64_("T", "t", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  own_gemm(1, 1, m, n, k, alpha, a, lda, b, ldb, beta, expected, ldc);
  report(max_difference(c, expected, ldc * n) < 1e-13, "dgemm_64_ C = alpha A^T B^T + beta C");

  /* Row-major through CBLAS: C^T = B^T A^T, held against the column-major loops. */
  fill(c, ldc * n, 4);
  memcpy(expected, c, sizeof(double) * ldc * n);
  cblas_dgemm64_(row_major, trans, trans, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
  own_gemm(1, 1, m, n, k, alpha, a, lda, b, ldb, beta, expected, ldc);
  report(max_difference(c, expected, ldc * n) < 1e-13, "cblas_dgemm64_ row-major");

  fill(c, ldc * n, 5);
  memcpy(expected, c, sizeof(double) * ldc * n);
  cblas_dgemm_64(col_major, trans, trans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  own_gemm(1, 1, m, n, k, alpha, a, lda, b, ldb, beta, expected, ldc);
  report(max_difference(c, expected, ldc * n) < 1e-13, "cblas_dgemm_64 column-major");
  free(a);
  free(b);
  free(c);
  free(expected);
}

static void check_ssyrk(void) {
  const blasint n = 6, k = 4, lda = 7, ldc = 8;
  const float alpha = 1.5f, beta = 0.25f;
  float a[7 * 4], c[8 * 6], expected[8 * 6];
  for (int i = 0; i < 7 * 4; ++i) a[i] = (float)((i * 37) % 11) / 11.0f - 0.5f;
  for (int i = 0; i < 8 * 6; ++i) c[i] = expected[i] = (float)((i * 13) % 7) / 7.0f;
  ssyrk_64_("L", "N", &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
  for (int j = 0; j < n; ++j) {
    for (int i = j; i < n; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l) s += (double)a[l * lda + i] * a[l * lda + j];
      expected[j * ldc + i] = (float)(alpha * s + beta * expected[j * ldc + i]);
    }
  }
  float d = 0;
  for (int i = 0; i < 8 * 6; ++i) d = fmaxf(d, fabsf(c[i] - expected[i]));
  report(d < 1e-5f, "ssyrk_64_ lower triangle, upper untouched");
}

/* A = QR through dgeqrf_64_, dorgqr_64_ and dormqr_64_: Q^T A gives R, and
 * Q R gives A back. */
static void check_qr(void) {
  const blasint m = 40, n = 6, lda = 43;
  blasint info = 99, lwork = -1;
  double *a = new_doubles(lda * n), *qr = new_doubles(lda * n), *q = new_doubles(lda * n),
         *r_again = new_doubles(lda * n), *tau = new_doubles(n), query = 0;
  fill(a, lda * n, 6);
  memcpy(qr, a, sizeof(double) * lda * n);
  dgeqrf_64_(&m, &n, qr, &lda, tau, &query, &lwork, &info);
  report(info == 0 && query >= n, "dgeqrf_64_ workspace query");
  lwork = (blasint)query;
  double* work = new_doubles(lwork > 64 * n ? lwork : 64 * n);
  dgeqrf_64_(&m, &n, qr, &lda, tau, work, &lwork, &info);
  report(info == 0, "dgeqrf_64_ INFO = 0");

  memcpy(q, qr, sizeof(double) * lda * n);
  lwork = 64 * n;
  dorgqr_64_(&m, &n, &n, q, &lda, tau, work, &lwork, &info);
  report(info == 0, "dorgqr_64_ INFO = 0");
  double* back = new_doubles(lda * n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l <= j; ++l) s += q[l * lda + i] * qr[j * lda + l];
      back[j * lda + i] = s;
    }
  }
  double d = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) d = fmax(d, fabs(back[j * lda + i] - a[j * lda + i]));
  }
  report(d < 1e-12, "Q R = A from dgeqrf_64_ and dorgqr_64_");

  memcpy(r_again, a, sizeof(double) * lda * n);
  dormqr_64_("L", "T", &m, &n, &n, qr, &lda, tau, r_again, &lda, work, &lwork, &info, 1, 1);
  d = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i <= j; ++i) d = fmax(d, fabs(r_again[j * lda + i] - qr[j * lda + i]));
    for (int i = j + 1; i < m; ++i) d = fmax(d, fabs(r_again[j * lda + i]));
  }
  report(info == 0 && d < 1e-12, "dormqr_64_ Q^T A = R");

  double* lapacke_qr = new_doubles(lda * n);
  memcpy(lapacke_qr, a, sizeof(double) * lda * n);
  const blasint lapacke_info = LAPACKE_dgeqrf64_(col_major, m, n, lapacke_qr, lda, tau);
  report(lapacke_info == 0 && max_difference(lapacke_qr, qr, lda * n) < 1e-12,
         "LAPACKE_dgeqrf64_ as dgeqrf_64_");
  free(a);
  free(qr);
  free(q);
  free(r_again);
  free(tau);
  free(work);
  free(back);
  free(lapacke_qr);
}

/* Bad arguments reach xerbla_64_ with reference's parameter numbers. */
static void check_errors(void) {
  const blasint one = 1, bad_m = -3, small_lda = 1, m = 4;
  double x[16] = {0}, alpha = 1, beta = 0;
  blasint info = 0;
  xerbla_calls = 0;
  dgemm_64_("N", "N", &bad_m, &one, &one, &alpha, x, &one, x, &one, &beta, x, &one, 1, 1);
  report(xerbla_calls == 1 && strcmp(xerbla_name, "DGEMM ") == 0 && xerbla_info == 3,
         "dgemm_64_ M < 0: xerbla_64_(\"DGEMM \", 3)");
  dgeqrf_64_(&m, &one, x, &small_lda, x, x, &one, &info);
  report(xerbla_calls == 2 && strcmp(xerbla_name, "DGEQRF") == 0 && xerbla_info == 4 && info == -4,
         "dgeqrf_64_ LDA < M: xerbla_64_(\"DGEQRF\", 4), INFO = -4");
  /* A negative M in the upper half of the 64 bits: an int would read it as valid. */
  const blasint wide_negative = -((blasint)1 << 32) + 5;
  dgemm_64_("N", "N", &one, &wide_negative, &one, &alpha, x, &one, x, &one, &beta, x, &one, 1, 1);
  report(xerbla_calls == 3 && xerbla_info == 4, "dgemm_64_ N = -2^32 + 5: xerbla_64_ with 4");
}

/* Leading dimensions past 2^31 with one column each: a few elements are
 * read and written, at offsets an int could not hold. */
static void check_wide_leading_dimensions(void) {
  const blasint m = 3, n = 1, k = 1, wide = ((blasint)1 << 32) + 7;
  double a[3] = {1, 2, 3}, b[1] = {2}, c[3] = {1, 1, 1}, alpha = 0.5, beta = 2;
  dgemm_64_("N", "N", &m, &n, &k, &alpha, a, &wide, b, &wide, &beta, c, &wide, 1, 1);
  report(c[0] == 3 && c[1] == 4 && c[2] == 5, "dgemm_64_ LDA, LDB, LDC = 2^32 + 7");

  double qr[3] = {3, 4, 0}, tau[1], work[1];
  blasint lwork = 1, info = 99;
  dgeqrf_64_(&m, &n, qr, &wide, tau, work, &lwork, &info);
  report(info == 0 && fabs(fabs(qr[0]) - 5) < 1e-14, "dgeqrf_64_ LDA = 2^32 + 7");
}

/* libblastrampoline's probe: an N that is 3 in its lower half and negative
 * as a whole must read as negative (ISAMAX = 0), as in a 64-bit library. */
static void check_isamax_probe(void) {
  const float x[3] = {1, 2, 1};
  const blasint three = 3, probe = (blasint)0xffffffff00000003ull, inc = 1;
  report(isamax_64_(&three, x, &inc) == 2 && isamax_64_(&probe, x, &inc) == 0,
         "isamax_64_ reads N as 64 bits");
}

int main(void) {
  check_dgemm();
  check_ssyrk();
  check_qr();
  check_errors();
  check_wide_leading_dimensions();
  check_isamax_probe();
  if (failures) {
    printf("FAIL: %d checks failed\n", failures);
    return 1;
  }
  printf("PASS: all checks\n");
  return 0;
}
