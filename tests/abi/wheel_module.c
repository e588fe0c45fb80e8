/* The extension module of the wheel test: it calls the pip wheels' names as NumPy's and
   SciPy's modules do, is linked with a stand-in for their bundled OpenBLAS
   (stand_in_scipy_openblas.c) found through its RPATH, and is opened RTLD_LOCAL by
   wheel_program, as Python opens an extension module. The stand-in defines no CBLAS or
   LAPACKE name: those calls can only be bound to a preloaded Switchyard. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern long stand_in_calls32, stand_in_calls64;
extern char stand_in_error_routine[32];
extern int64_t stand_in_error_info;

void scipy_dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
                  const double*, const int*, const double*, const int*, const double*, double*,
                  const int*, size_t, size_t);
void scipy_dgemm_64_(const char*, const char*, const int64_t*, const int64_t*, const int64_t*,
                     const double*, const double*, const int64_t*, const double*, const int64_t*,
                     const double*, double*, const int64_t*, size_t, size_t);
void scipy_dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*,
                  const int*, const double*, double*, const int*, size_t, size_t);
void scipy_dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void scipy_dgeqrf_64_(const int64_t*, const int64_t*, double*, const int64_t*, double*, double*,
                      const int64_t*, int64_t*);
void scipy_cblas_dgemm64_(int, int, int, int64_t, int64_t, int64_t, double, const double*, int64_t,
                          const double*, int64_t, double, double*, int64_t);
void scipy_cblas_dsyrk64_(int, int, int, int64_t, int64_t, double, const double*, int64_t, double,
                          double*, int64_t);
int64_t scipy_LAPACKE_dgeqrf64_(int, int64_t, int64_t, double*, int64_t, double*);

enum { row_major = 101, col_major = 102, no_trans = 111, upper = 121 };
enum { n = 3 };

static int failures;

static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAIL: %s\n", what);
    ++failures;
  }
}

static const double a[n * n] = {1, 2, 3, 4, 5, 6, 7, 8, 10};
static const double b[n * n] = {2, 0, 1, 1, 3, 0, 0, 1, 4};

/* A B, column-major. */
static void expected_product(double* c) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      c[j * n + i] = 0;
      for (int l = 0; l < n; ++l) c[j * n + i] += a[l * n + i] * b[j * n + l];
    }
}

static int same(const double* x, const double* y) {
  return memcmp(x, y, sizeof(double) * n * n) == 0;
}

static int error_was(const char* routine, int64_t info) {
  return strcmp(stand_in_error_routine, routine) == 0 && stand_in_error_info == info;
}

/* What each call of the two conventions computes, and who ran it. */
static void results(void) {
  double expected[n * n], c[n * n];
  expected_product(expected);
  const double one = 1, zero = 0;

  const int n32 = n;
  scipy_dgemm_("N", "N", &n32, &n32, &n32, &one, a, &n32, b, &n32, &zero, c, &n32, 1, 1);
  check(same(c, expected), "scipy_dgemm_ computes A B");
  check(stand_in_calls32 == 1 && stand_in_calls64 == 0, "scipy_dgemm_ ran in the 32-bit library");

  const int64_t n64 = n;
  scipy_dgemm_64_("N", "N", &n64, &n64, &n64, &one, a, &n64, b, &n64, &zero, c, &n64, 1, 1);
  check(same(c, expected), "scipy_dgemm_64_ computes A B");
  check(stand_in_calls64 == 1, "scipy_dgemm_64_ ran in the 64-bit library");

  /* Row-major B A of the arrays read row-major (B^T A^T) is (A B)^T: the same numbers in the
     same places as the column-major A B. */
  double row_major_c[n * n];
  scipy_cblas_dgemm64_(row_major, no_trans, no_trans, n, n, n, 1, b, n, a, n, 0, row_major_c, n);
  check(same(row_major_c, expected), "scipy_cblas_dgemm64_ computes row-major B^T A^T");
  check(stand_in_calls64 == 2, "scipy_cblas_dgemm64_ ran in the 64-bit library's dgemm");

  /* The upper triangle of A^T A, by both wheels' syrk. */
  double gram[n * n] = {0}, gram32[n * n] = {0};
  scipy_cblas_dsyrk64_(col_major, upper, 112, n, n, 1, a, n, 0, gram, n);
  scipy_dsyrk_("U", "T", &n32, &n32, &one, a, &n32, &zero, gram32, &n32, 1, 1);
  int gram_right = same(gram, gram32);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= j; ++i) {
      double sum = 0;
      for (int l = 0; l < n; ++l) sum += a[i * n + l] * a[j * n + l];
      gram_right = gram_right && gram[j * n + i] == sum;
    }
  check(gram_right, "scipy_cblas_dsyrk64_ and scipy_dsyrk_ compute the upper triangle of A^T A");
  check(stand_in_calls32 == 2 && stand_in_calls64 == 3, "both syrk ran in their libraries");

  /* Workspace queries are the fallback's: WORK(1) is the stand-in's answer, from its own
     droundup_lwork_ (nothing Switchyard brings into the global scope takes it over). */
  double qr[n * n], tau[n], work[1];
  const int query32 = -1;
  int info32 = 7;
  scipy_dgeqrf_(&n32, &n32, qr, &n32, tau, work, &query32, &info32);
  check(info32 == 0 && work[0] == 4242.25, "scipy_dgeqrf_'s workspace query is the library's");
  const int64_t query64 = -1;
  int64_t info64 = 7;
  work[0] = 0;
  scipy_dgeqrf_64_(&n64, &n64, qr, &n64, tau, work, &query64, &info64);
  check(info64 == 0 && work[0] == 4242.25, "scipy_dgeqrf_64_'s workspace query is the library's");
}

/* Reference checks and numbers; each reported through the wheel's own handler of its form. */
static void argument_errors(void) {
  const long calls32 = stand_in_calls32, calls64 = stand_in_calls64;
  double c[n * n] = {0}, untouched[n * n] = {0};
  const double one = 1;
  const int64_t n64 = n, short_lda = n - 1;
  scipy_dgemm_64_("N", "N", &n64, &n64, &n64, &one, a, &short_lda, b, &n64, &one, c, &n64, 1, 1);
  check(error_was("DGEMM ", 8), "scipy_dgemm_64_ reports LDA (8) to scipy_xerbla_64_");
  check(same(c, untouched), "scipy_dgemm_64_ leaves C alone on an error");

  double qr[n * n], tau[n], work[n];
  const int bad_m = -1, n32 = n, lwork = n;
  int info = 0;
  scipy_dgeqrf_(&bad_m, &n32, qr, &n32, tau, work, &lwork, &info);
  check(info == -1 && error_was("DGEQRF", 1), "scipy_dgeqrf_ reports M (1) to scipy_xerbla_");

  scipy_cblas_dgemm64_(99, no_trans, no_trans, n, n, n, 1, a, n, b, n, 0, c, n);
  check(error_was("cblas_dgemm", 1),
        "scipy_cblas_dgemm64_ reports the layout (1) to scipy_cblas_xerbla64_");

  double a_copy[n * n];
  memcpy(a_copy, a, sizeof a_copy);
  const int64_t lapacke_info = scipy_LAPACKE_dgeqrf64_(99, n, n, a_copy, n, tau);
  check(lapacke_info == -1 && error_was("LAPACKE_dgeqrf", -1),
        "scipy_LAPACKE_dgeqrf64_ reports the layout (-1) to scipy_LAPACKE_xerbla64_");

  check(stand_in_calls32 == calls32 && stand_in_calls64 == calls64,
        "no call with a bad argument reached the library");
}

int wheel_module_checks(void) {
  results();
  argument_errors();
  return failures;
}

/* One call of a convention (32 or 64), the first the process makes of it. */
void wheel_module_first_call(int bits) {
  double c[n * n];
  const double one = 1, zero = 0;
  if (bits == 32) {
    const int n32 = n;
    scipy_dgemm_("N", "N", &n32, &n32, &n32, &one, a, &n32, b, &n32, &zero, c, &n32, 1, 1);
  } else {
    scipy_cblas_dgemm64_(col_major, no_trans, no_trans, n, n, n, 1, a, n, b, n, 0, c, n);
  }
}
