/* c_program: a C99 program linked against Switchyard that calls
 * cblas_sgemm/cblas_dgemm and LAPACKE_sgeqrf/LAPACKE_dgeqrf (and _work)
 * through the standard <cblas.h> and <lapacke.h>, in both layouts, and
 * checks every result against its own loops; and the LAPACKE forms of the
 * drivers Switchyard exports in Fortran only (dgels, dgetsls, dgesvd,
 * dgesdd, dgeqr with dgemqr), which reach its Fortran entries through
 * liblapacke.
 *
 * Matrices are held in double; the single-precision calls run on float
 * copies, so one checker serves both precisions. Prints one PASS or FAIL
 * line per check; exit status 1 if any check failed. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum precision { prec_single, prec_double };

static const char* const prefix[] = {"s", "d"};

static int failures = 0;

static void report(int ok, const char* what) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", what);
  if (!ok) ++failures;
}

static void* allocate(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "c_program: out of memory\n");
    exit(2);
  }
  return p;
}

static double* new_doubles(size_t count) { return allocate(count * sizeof(double)); }
static float* new_floats(size_t count) { return allocate(count * sizeof(float)); }

/* Offset of element (i, j) of a matrix with leading dimension ld. */
static size_t at(int layout, int i, int j, int ld) {
  return layout == LAPACK_COL_MAJOR ? (size_t)j * ld + i : (size_t)i * ld + j;
}

/* Leading dimension of a rows x cols matrix, with `pad` unused entries
 * per column (column-major) or row (row-major), and its element count. */
static int lead(int layout, int rows, int cols, int pad) {
  return (layout == LAPACK_COL_MAJOR ? rows : cols) + pad;
}

static size_t extent(int layout, int rows, int cols, int ld) {
  return (size_t)ld * (size_t)(layout == LAPACK_COL_MAJOR ? cols : rows);
}

static float* to_float(const double* x, size_t count) {
  float* f = new_floats(count);
  for (size_t i = 0; i < count; ++i) f[i] = (float)x[i];
  return f;
}

static void from_float(const float* f, double* x, size_t count) {
  for (size_t i = 0; i < count; ++i) x[i] = f[i];
}

/* ---- GEMM ---------------------------------------------------------- */

static void gemm(enum precision p, int layout, int ta, int tb, int m, int n, int k, double alpha,
                 const double* a, int lda, size_t na, const double* b, int ldb, size_t nb,
                 double beta, double* c, int ldc, size_t nc) {
  if (p == prec_double) {
    cblas_dgemm(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  float *fa = to_float(a, na), *fb = to_float(b, nb), *fc = to_float(c, nc);
  cblas_sgemm(layout, ta, tb, m, n, k, (float)alpha, fa, lda, fb, ldb, (float)beta, fc, ldc);
  from_float(fc, c, nc);
  free(fa);
  free(fb);
  free(fc);
}

static const char* trans_name(int t) {
  return t == CblasNoTrans ? "N" : t == CblasTrans ? "T" : "C";
}

/* C := alpha op(A) op(B) + beta C, with padding in every leading
 * dimension and a sentinel in C's padding that the call must leave alone.
 * Entries are multiples of 1/4 and alpha, beta dyadic, so the exact
 * result is representable in both precisions. With beta = 0 the m x n
 * block of C starts as NaN, which BLAS must not read. */
static void check_gemm(enum precision p, int layout, int ta, int tb, int m, int n, int k,
                       double alpha, double beta) {
  const double sentinel = -999.0;
  const int ra = ta == CblasNoTrans ? m : k, ca = ta == CblasNoTrans ? k : m;
  const int rb = tb == CblasNoTrans ? k : n, cb = tb == CblasNoTrans ? n : k;
  const int lda = lead(layout, ra, ca, 3), ldb = lead(layout, rb, cb, 1);
  const int ldc = lead(layout, m, n, 2);
  const size_t na = extent(layout, ra, ca, lda), nb = extent(layout, rb, cb, ldb);
  const size_t nc = extent(layout, m, n, ldc);
  double *a = new_doubles(na), *b = new_doubles(nb), *c = new_doubles(nc), *ref = new_doubles(nc);

  for (size_t i = 0; i < na; ++i) a[i] = (double)((int)(7 * i % 11) - 5) / 4;
  for (size_t i = 0; i < nb; ++i) b[i] = (double)((int)(5 * i % 13) - 6) / 4;
  for (size_t i = 0; i < nc; ++i) c[i] = sentinel;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j)
      c[at(layout, i, j, ldc)] = beta == 0 ? NAN : (double)((i + 4 * j) % 9 - 4);
  }

  memcpy(ref, c, nc * sizeof *c);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int l = 0; l < k; ++l) {
        const double x = ta == CblasNoTrans ? a[at(layout, i, l, lda)] : a[at(layout, l, i, lda)];
        const double y = tb == CblasNoTrans ? b[at(layout, l, j, ldb)] : b[at(layout, j, l, ldb)];
        s += x * y;
      }
      double* r = &ref[at(layout, i, j, ldc)];
      *r = alpha * s + (beta == 0 ? 0 : beta * *r);
    }
  }

  gemm(p, layout, ta, tb, m, n, k, alpha, a, lda, na, b, ldb, nb, beta, c, ldc, nc);

  int ok = 1;
  for (size_t i = 0; i < nc; ++i) ok = ok && fabs(c[i] - ref[i]) <= 1e-12; /* false on NaN */
  char what[160];
  snprintf(what, sizeof what, "cblas_%sgemm %s %s %s m=%d n=%d k=%d alpha=%g beta=%g", prefix[p],
           layout == CblasRowMajor ? "RowMajor" : "ColMajor", trans_name(ta), trans_name(tb), m, n,
           k, alpha, beta);
  report(ok, what);
  free(a);
  free(b);
  free(c);
  free(ref);
}

static void check_all_gemm(void) {
  static const int layouts[] = {CblasRowMajor, CblasColMajor};
  static const int transposes[] = {CblasNoTrans, CblasTrans, CblasConjTrans};
  static const double scalars[][2] = {{1, 0}, {-0.5, 2}, {2, 0}, {0.25, -1}, {1.5, 0.5}};
  int variant = 0;
  for (int p = prec_single; p <= prec_double; ++p) {
    for (int l = 0; l < 2; ++l) {
      for (int x = 0; x < 3; ++x) {
        for (int y = 0; y < 3; ++y, ++variant) {
          const double* s = scalars[variant % 5];
          check_gemm(p, layouts[l], transposes[x], transposes[y], 13, 7, 9, s[0], s[1]);
        }
      }
    }
  }
}

/* ---- GEQRF --------------------------------------------------------- */

/* LAPACKE_?geqrf when lwork is 0; else LAPACKE_?geqrf_work with lwork
 * entries of workspace, or its workspace query (lwork = -1) whose answer
 * goes to *query. */
static int geqrf(enum precision p, int layout, int m, int n, double* a, int lda, size_t na,
                 double* tau, int lwork, double* query) {
  const size_t k = (size_t)(m < n ? m : n), nwork = lwork > 0 ? (size_t)lwork : 1;
  int info;
  if (p == prec_double) {
    double* work = new_doubles(nwork);
    info = lwork == 0 ? LAPACKE_dgeqrf(layout, m, n, a, lda, tau)
                      : LAPACKE_dgeqrf_work(layout, m, n, a, lda, tau, work, lwork);
    if (lwork == -1) *query = work[0];
    free(work);
    return info;
  }
  float *fa = to_float(a, na), *ftau = new_floats(k), *work = new_floats(nwork);
  info = lwork == 0 ? LAPACKE_sgeqrf(layout, m, n, fa, lda, ftau)
                    : LAPACKE_sgeqrf_work(layout, m, n, fa, lda, ftau, work, lwork);
  if (lwork == -1) {
    *query = work[0];
  } else {
    from_float(fa, a, na);
    from_float(ftau, tau, k);
  }
  free(fa);
  free(ftau);
  free(work);
  return info;
}

/* A well-conditioned test matrix: small multiples of 1/8, exact in
 * float, plus a dominant diagonal. */
static double entry(int i, int j) {
  return (double)((i * 7 + j * 13 + i * j) % 17 - 8) / 8 + (i == j ? 4 : 0);
}

/* R of A by modified Gram-Schmidt, positive diagonal: the reference the
 * Householder R must equal up to the sign of each row. R is k x n,
 * column-major with leading dimension k; for m < n the columns past the
 * m-th are projected on the first m. */
static void gram_schmidt_r(int m, int n, double* r) {
  const int k = m < n ? m : n;
  double *q = new_doubles((size_t)m * k), *v = new_doubles((size_t)m);
  memset(r, 0, (size_t)k * n * sizeof *r);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) v[i] = entry(i, j);
    for (int l = 0; l < (j < k ? j : k); ++l) {
      double s = 0;
      for (int i = 0; i < m; ++i) s += q[(size_t)l * m + i] * v[i];
      for (int i = 0; i < m; ++i) v[i] -= s * q[(size_t)l * m + i];
      r[(size_t)j * k + l] = s;
    }
    if (j < k) {
      double norm = 0;
      for (int i = 0; i < m; ++i) norm += v[i] * v[i];
      norm = sqrt(norm);
      for (int i = 0; i < m; ++i) q[(size_t)j * m + i] = v[i] / norm;
      r[(size_t)j * k + j] = norm;
    }
  }
  free(q);
  free(v);
}

/* Factors A stored in `layout` by the driver, and again by the _work
 * form after its workspace query; checks R of each against Gram-Schmidt
 * and the two results against each other. Returns the factored A and tau
 * of the driver in a column-major copy for the layout comparison. */
static void factor_and_check(enum precision p, int layout, int m, int n, double* qr_colmajor,
                             double* tau) {
  const int k = m < n ? m : n, ld = lead(layout, m, n, 2);
  const size_t na = extent(layout, m, n, ld);
  const double tol = p == prec_double ? 1e-12 : 1e-5;
  double *a = new_doubles(na), *a_work = new_doubles(na), *r = new_doubles((size_t)k * n);
  double* tau_work = new_doubles((size_t)k);
  const char* layout_name = layout == LAPACK_ROW_MAJOR ? "RowMajor" : "ColMajor";
  char what[160];
  double query = 0, scale = 0;

  for (size_t i = 0; i < na; ++i) a[i] = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) a[at(layout, i, j, ld)] = entry(i, j);
  }
  memcpy(a_work, a, na * sizeof *a);

  const int info = geqrf(p, layout, m, n, a, ld, na, tau, 0, &query);
  gram_schmidt_r(m, n, r);
  int ok = info == 0;
  for (size_t i = 0; i < (size_t)k * n; ++i) scale = fmax(scale, fabs(r[i]));
  for (int i = 0; i < k; ++i) {
    const double sign = a[at(layout, i, i, ld)] < 0 ? -1 : 1;
    for (int j = i; j < n; ++j) {
      ok = ok && fabs(sign * a[at(layout, i, j, ld)] - r[(size_t)j * k + i]) <= tol * scale;
    }
  }
  snprintf(what, sizeof what, "LAPACKE_%sgeqrf %s m=%d n=%d: info 0, R as Gram-Schmidt's",
           prefix[p], layout_name, m, n);
  report(ok, what);

  const int query_info = geqrf(p, layout, m, n, a_work, ld, na, tau_work, -1, &query);
  const int lwork = (int)query;
  ok = query_info == 0 && lwork >= n && lwork < 1000000;
  if (ok) ok = geqrf(p, layout, m, n, a_work, ld, na, tau_work, lwork, &query) == 0;
  for (size_t i = 0; ok && i < na; ++i) ok = fabs(a_work[i] - a[i]) <= tol * scale;
  for (int i = 0; ok && i < k; ++i) ok = fabs(tau_work[i] - tau[i]) <= tol;
  snprintf(what, sizeof what, "LAPACKE_%sgeqrf_work %s m=%d n=%d: query lwork=%d, same result",
           prefix[p], layout_name, m, n, lwork);
  report(ok, what);

  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) qr_colmajor[(size_t)j * m + i] = a[at(layout, i, j, ld)];
  }
  free(a);
  free(a_work);
  free(r);
  free(tau_work);
}

/* Row-major must give, element for element, the column-major result. */
static void check_geqrf(enum precision p, int m, int n) {
  const int k = m < n ? m : n;
  const size_t count = (size_t)m * n;
  const double tol = p == prec_double ? 1e-12 : 1e-5;
  double *col = new_doubles(count), *row = new_doubles(count);
  double *tau_col = new_doubles((size_t)k), *tau_row = new_doubles((size_t)k);
  factor_and_check(p, LAPACK_COL_MAJOR, m, n, col, tau_col);
  factor_and_check(p, LAPACK_ROW_MAJOR, m, n, row, tau_row);
  double scale = 0;
  for (size_t i = 0; i < count; ++i) scale = fmax(scale, fabs(col[i]));
  int ok = 1;
  for (size_t i = 0; i < count; ++i) ok = ok && fabs(row[i] - col[i]) <= tol * scale;
  for (int i = 0; i < k; ++i) ok = ok && fabs(tau_row[i] - tau_col[i]) <= tol;
  char what[160];
  snprintf(what, sizeof what, "LAPACKE_%sgeqrf m=%d n=%d: RowMajor result = ColMajor result",
           prefix[p], m, n);
  report(ok, what);
  free(col);
  free(row);
  free(tau_col);
  free(tau_row);
}

/* The argument checks LAPACKE makes before LAPACK runs. */
static void check_geqrf_errors(void) {
  enum { m = 6, n = 4 };
  double a[m * n], tau[n], work[64];
  float fa[m * n], ftau[n];
  for (int i = 0; i < m * n; ++i) fa[i] = (float)(a[i] = entry(i % m, i / m));

  /* Reference LAPACKE checks A for NaN unless told not to; make sure it
   * is on whatever LAPACKE_NANCHECK says. */
  LAPACKE_set_nancheck(1);
  a[7] = NAN;
  fa[7] = NAN;
  report(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, m, tau) == -4,
         "LAPACKE_dgeqrf NaN in A: returns -4");
  report(LAPACKE_sgeqrf(LAPACK_ROW_MAJOR, m, n, fa, n, ftau) == -4,
         "LAPACKE_sgeqrf NaN in A: returns -4");
  a[7] = 0;

  report(LAPACKE_dgeqrf(0, m, n, a, m, tau) == -1, "LAPACKE_dgeqrf bad layout: returns -1");
  report(LAPACKE_dgeqrf_work(0, m, n, a, m, tau, work, 64) == -1,
         "LAPACKE_dgeqrf_work bad layout: returns -1");
  report(LAPACKE_dgeqrf_work(LAPACK_ROW_MAJOR, m, n, a, n - 1, tau, work, 64) == -5,
         "LAPACKE_dgeqrf_work RowMajor lda < n: returns -5");
}

/* Least squares and the SVD through liblapacke's forms of the drivers, on
 * an m x n A of known solution x (b = A x) in both layouts: each solution
 * is x, dgesvd's singular values are dgesdd's, and Q^T b by dgeqr and
 * dgemqr has the norm of b. */
static void check_drivers(int layout) {
  enum { m = 60, n = 5 };
  const int lda = layout == LAPACK_ROW_MAJOR ? n : m, ldb = layout == LAPACK_ROW_MAJOR ? 1 : m;
  const char* layout_name = layout == LAPACK_ROW_MAJOR ? "RowMajor" : "ColMajor";
  double a0[m * n], a[m * n], b0[m], b[m], s[n], s_dd[n], u[m * n], vt[n * n];
  double t[64 * n] = {0}; /* LAPACKE_dgemqr checks all of T for NaN, what dgeqr writes or not */
  double superb[n], x[n], norm_b = 0, norm_qb = 0;
  char what[120];
  for (int j = 0; j < n; ++j) x[j] = 1 + j;
  for (int i = 0; i < m; ++i) {
    b0[i] = 0;
    for (int j = 0; j < n; ++j) {
      a0[at(layout, i, j, lda)] = entry(i, j);
      b0[i] += entry(i, j) * x[j];
    }
    norm_b += b0[i] * b0[i];
  }
  for (int driver = 0; driver < 2; ++driver) {
    memcpy(a, a0, sizeof a);
    memcpy(b, b0, sizeof b);
    const int info = driver == 0 ? LAPACKE_dgels(layout, 'N', m, n, 1, a, lda, b, ldb)
                                 : LAPACKE_dgetsls(layout, 'N', m, n, 1, a, lda, b, ldb);
    int ok = info == 0;
    for (int j = 0; j < n; ++j) ok = ok && fabs(b[j] - x[j]) <= 1e-10 * n;
    snprintf(what, sizeof what, "LAPACKE_%s %s %dx%d: the exact solution",
             driver == 0 ? "dgels" : "dgetsls", layout_name, m, n);
    report(ok, what);
  }
  memcpy(a, a0, sizeof a);
  int ok = LAPACKE_dgesvd(layout, 'S', 'S', m, n, a, lda, s, u, lda, vt, n, superb) == 0;
  memcpy(a, a0, sizeof a);
  ok = ok && LAPACKE_dgesdd(layout, 'N', m, n, a, lda, s_dd, u, lda, vt, n) == 0;
  for (int j = 0; j < n; ++j) ok = ok && fabs(s[j] - s_dd[j]) <= 1e-12 * s[0];
  snprintf(what, sizeof what, "LAPACKE_dgesvd %s %dx%d: dgesdd's singular values", layout_name, m,
           n);
  report(ok, what);
  memcpy(a, a0, sizeof a);
  memcpy(b, b0, sizeof b);
  ok = LAPACKE_dgeqr(layout, m, n, a, lda, t, (int)(sizeof t / sizeof *t)) == 0 &&
       LAPACKE_dgemqr(layout, 'L', 'T', m, 1, n, a, lda, t, (int)(sizeof t / sizeof *t), b, ldb) ==
           0;
  for (int i = 0; i < m; ++i) norm_qb += b[i] * b[i];
  ok = ok && fabs(norm_qb - norm_b) <= 1e-12 * norm_b;
  snprintf(what, sizeof what, "LAPACKE_dgeqr, LAPACKE_dgemqr %s %dx%d: |Q^T b| = |b|", layout_name,
           m, n);
  report(ok, what);
}

int main(void) {
  check_all_gemm();
  for (int p = prec_single; p <= prec_double; ++p) {
    check_geqrf(p, 40, 12);
    check_geqrf(p, 9, 14);
  }
  /* Large enough for LAPACK's blocked QR, whose dgemm calls come back
     through Switchyard nested under the dgeqrf. */
  check_geqrf(prec_double, 300, 200);
  check_geqrf_errors();
  check_drivers(LAPACK_COL_MAJOR);
  check_drivers(LAPACK_ROW_MAJOR);
  if (failures) {
    printf("FAIL: %d checks failed\n", failures);
    return 1;
  }
  printf("PASS: all checks\n");
  return 0;
}
