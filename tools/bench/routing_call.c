/* switchyard-bench-call ROUTINE SHAPE... WARM_UP_MS REPEATS
 *
 * One routed call as a program makes it, for `switchyard bench routing`: operands in
 * ordinary (pageable) host memory, the call through the BLAS/LAPACK name this program is
 * linked with (reference -llapack -lblas), so that a preloaded library takes it exactly as it
 * would take a user's. The first call is the process's first (cold); then the call is repeated
 * until WARM_UP_MS have passed since the first began, as a program with a history of such
 * calls would have made them (the router may start a device on the way); then REPEATS more.
 * Each call is timed alone, on inputs prepared before the clock starts (a fresh copy of A for
 * the routines that overwrite it). Prints
 *   ms T0 T1 ... TR check C calls N
 * T0 the first call, T1... the last REPEATS, N the calls in all, and C a checksum of the
 * output, so that a wrong answer shows as a different number.
 *
 *   dgemm|sgemm TRANSA TRANSB M N K      C = A B (op as given), alpha 1, beta 0
 *   dgram|sgram N K                      C = A^T A of a K x N matrix A, through dgemm/sgemm
 *                                        ('T', 'N') with A passed as both operands
 *   dsyrk|ssyrk UPLO TRANS N K           C = A^T A or A A^T, one triangle
 *   dgeqrf|sgeqrf M N                    QR of an M x N matrix
 *   dorgqr M N                           Q's first N columns from N reflectors
 *   dormqr M N K                         Q^T C, C of M x N, from K reflectors (SIDE = 'L')
 *   dgeqp3 M N                           QR with column pivoting, every column free (SciPy's
 *                                        qr(pivoting=True)); made and called as the drivers below
 *
 * and whole LAPACK drivers, as a program calls them (their own BLAS/LAPACK calls inside, which a
 * preloaded library may take; the drivers themselves are never Switchyard's):
 *
 *   dgesv N NRHS                         LU solve of a random N x N system
 *   dposv N NRHS                         Cholesky solve of a symmetric, diagonally dominant one
 *   dsyevd N                             eigenvalues and eigenvectors of a random symmetric matrix
 *   dgesdd M N                           thin SVD (JOBZ = 'S') of an M x N matrix
 *   dgesvd M N                           the same by QR iteration (JOBU = JOBVT = 'S'; Octave's
 *                                        svd)
 *   dgels M N NRHS                       least squares by QR
 *   dgetsls M N NRHS                     the same through LAPACK's tall-skinny API
 *   dgelsd M N NRHS                      least squares by SVD (NumPy's lstsq), RCOND = -1
 *
 * Their checksums read what does not depend on sign conventions: the solution, the eigen- or
 * singular values, the magnitudes of R's diagonal. Operands are made without any BLAS/LAPACK
 * call, so that the driver's first call is the process's first routed one. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*, size_t, size_t);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
            const float*, const int*, const float*, const int*, const float*, float*, const int*,
            size_t, size_t);
void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, const double*, double*, const int*, size_t, size_t);
void ssyrk_(const char*, const char*, const int*, const int*, const float*, const float*,
            const int*, const float*, float*, const int*, size_t, size_t);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
void dormqr_(const char*, const char*, const int*, const int*, const int*, const double*,
             const int*, const double*, double*, const int*, double*, const int*, int*, size_t,
             size_t);
void dgesv_(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
void dposv_(const char*, const int*, const int*, double*, const int*, double*, const int*, int*,
            size_t);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*,
             const int*, int*, const int*, int*, size_t, size_t);
void dgesvd_(const char*, const char*, const int*, const int*, double*, const int*, double*,
             double*, const int*, double*, const int*, double*, const int*, int*, size_t, size_t);
void dgetsls_(const char*, const int*, const int*, const int*, double*, const int*, double*,
              const int*, double*, const int*, int*, size_t);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*,
             double*, const int*, double*, const int*, int*, int*, size_t);
void dgels_(const char*, const int*, const int*, const int*, double*, const int*, double*,
            const int*, double*, const int*, int*, size_t);
void dgelsd_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*,
             const double*, int*, double*, const int*, int*, int*);
void dgeqp3_(const int*, const int*, double*, const int*, int*, double*, double*, const int*, int*);

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* Uniform values in [-1, 1) from a fixed seed: cheap enough for gigabytes. */
static void fill(double* d, float* s, size_t count, uint64_t seed) {
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double v = (double)(state >> 11) * 0x1.0p-52 - 1.0;
    if (d) d[i] = v;
    if (s) s[i] = (float)v;
  }
}

static void* take(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "switchyard-bench-call: out of memory (%zu bytes)\n", bytes);
    exit(3);
  }
  return p;
}

static double checksum_d(const double* x, size_t count) {
  double sum = 0;
  for (size_t i = 0; i < count; ++i) sum += x[i] * (double)(1 + i % 7);
  return sum;
}

static double checksum_s(const float* x, size_t count) {
  double sum = 0;
  for (size_t i = 0; i < count; ++i) sum += (double)x[i] * (double)(1 + i % 7);
  return sum;
}

/* One problem: what a call needs, made before any clock starts. */
struct Problem {
  char routine[8];
  char ta, tb; /* gemm's TRANSA/TRANSB, syrk's UPLO/TRANS */
  int m, n, k, lda, ldb, lwork, double_precision;
  void *a, *a0, *b, *c, *c0, *tau, *work;
  size_t ca, cc;
  /* The drivers': right-hand sides B (from B0), the values they return (eigen- or singular
     values), U and VT, integer workspace or pivots. */
  int nrhs, liwork;
  double *b0, *values, *u, *vt;
  int* ints;
  size_t cb;
};

static int is_driver(const char* r) {
  return !strcmp(r, "dgesv") || !strcmp(r, "dposv") || !strcmp(r, "dsyevd") ||
         !strcmp(r, "dgesdd") || !strcmp(r, "dgesvd") || !strcmp(r, "dgels") ||
         !strcmp(r, "dgetsls") || !strcmp(r, "dgelsd") || !strcmp(r, "dgeqp3");
}

/* One driver call (or dgeqp3's); A and B restored from A0 and B0 before the clock starts. */
static double call_driver(struct Problem* p, int* info) {
  const char* r = p->routine;
  const double rcond = -1;
  int rank = 0;
  double* a = p->a;
  double t;
  memcpy(p->a, p->a0, p->ca * 8);
  if (p->b0) memcpy(p->b, p->b0, p->cb * 8);
  if (!strcmp(r, "dgeqp3")) memset(p->ints, 0, (size_t)p->n * sizeof(int)); /* every column free */
  t = now_ms();
  if (!strcmp(r, "dgesv")) {
    dgesv_(&p->n, &p->nrhs, a, &p->n, p->ints, p->b, &p->ldb, info);
  } else if (!strcmp(r, "dposv")) {
    dposv_("L", &p->n, &p->nrhs, a, &p->n, p->b, &p->ldb, info, 1);
  } else if (!strcmp(r, "dsyevd")) {
    dsyevd_("V", "L", &p->n, a, &p->n, p->values, p->work, &p->lwork, p->ints, &p->liwork, info, 1,
            1);
  } else if (!strcmp(r, "dgesdd")) {
    const int k = p->m < p->n ? p->m : p->n;
    dgesdd_("S", &p->m, &p->n, a, &p->m, p->values, p->u, &p->m, p->vt, &k, p->work, &p->lwork,
            p->ints, info, 1);
  } else if (!strcmp(r, "dgesvd")) {
    const int k = p->m < p->n ? p->m : p->n;
    dgesvd_("S", "S", &p->m, &p->n, a, &p->m, p->values, p->u, &p->m, p->vt, &k, p->work, &p->lwork,
            info, 1, 1);
  } else if (!strcmp(r, "dgels")) {
    dgels_("N", &p->m, &p->n, &p->nrhs, a, &p->m, p->b, &p->ldb, p->work, &p->lwork, info, 1);
  } else if (!strcmp(r, "dgetsls")) {
    dgetsls_("N", &p->m, &p->n, &p->nrhs, a, &p->m, p->b, &p->ldb, p->work, &p->lwork, info, 1);
  } else if (!strcmp(r, "dgelsd")) {
    dgelsd_(&p->m, &p->n, &p->nrhs, a, &p->m, p->b, &p->ldb, p->values, &rcond, &rank, p->work,
            &p->lwork, p->ints, info);
  } else {
    dgeqp3_(&p->m, &p->n, a, &p->m, p->ints, p->tau, p->work, &p->lwork, info);
  }
  return now_ms() - t;
}

/* A driver's operands and workspace (from its own query, made before any clock starts); 0 when
   the arguments are wrong. */
static int make_driver(int shape_args, char** argv, struct Problem* p) {
  const char* r = p->routine;
  const int square = !strcmp(r, "dgesv") || !strcmp(r, "dposv") || !strcmp(r, "dsyevd");
  const int rhs = !strcmp(r, "dgesv") || !strcmp(r, "dposv") || !strcmp(r, "dgels") ||
                  !strcmp(r, "dgetsls") || !strcmp(r, "dgelsd");
  const int expected = (square ? 1 : 2) + (rhs ? 1 : 0);
  int info = 0, lwork = -1, liwork = -1, iquery = 0, k, i, j;
  double query = 0;
  if (shape_args != expected) return 0;
  p->m = atoi(argv[2]);
  p->n = square ? p->m : atoi(argv[3]);
  p->nrhs = rhs ? atoi(argv[2 + expected - 1]) : 0;
  if (p->m < 1 || p->n < 1 || (rhs && p->nrhs < 1)) return 0;
  k = p->m < p->n ? p->m : p->n;
  p->ca = (size_t)p->m * p->n;
  p->a0 = take(p->ca * 8), p->a = take(p->ca * 8);
  fill(p->a0, NULL, p->ca, 1);
  if (square) { /* symmetric; for dposv diagonally dominant, so positive definite */
    double* a0 = p->a0;
    for (j = 0; j < p->n; ++j) {
      for (i = 0; i < j; ++i) a0[(size_t)j * p->n + i] = a0[(size_t)i * p->n + j];
      if (!strcmp(r, "dposv")) a0[(size_t)j * p->n + j] = p->n;
    }
  }
  if (rhs) {
    p->ldb = p->m > p->n ? p->m : p->n;
    p->cb = (size_t)p->ldb * p->nrhs;
    p->b0 = take(p->cb * 8), p->b = take(p->cb * 8);
    fill(p->b0, NULL, p->cb, 2);
  }
  p->values = take((size_t)p->n * 8);
  p->tau = take((size_t)k * 8);
  /* Integer workspace: pivots, or dgesdd's 8 min(M, N), or the queried size below. */
  p->liwork = 8 * k + p->n;
  p->ints = take((size_t)p->liwork * sizeof(int));
  if (!strcmp(r, "dgesdd")) {
    p->u = take((size_t)p->m * k * 8), p->vt = take((size_t)k * p->n * 8);
    dgesdd_("S", &p->m, &p->n, p->a, &p->m, p->values, p->u, &p->m, p->vt, &k, &query, &lwork,
            p->ints, &info, 1);
  } else if (!strcmp(r, "dgesvd")) {
    p->u = take((size_t)p->m * k * 8), p->vt = take((size_t)k * p->n * 8);
    dgesvd_("S", "S", &p->m, &p->n, p->a, &p->m, p->values, p->u, &p->m, p->vt, &k, &query, &lwork,
            &info, 1, 1);
  } else if (!strcmp(r, "dsyevd")) {
    dsyevd_("V", "L", &p->n, p->a, &p->n, p->values, &query, &lwork, &iquery, &liwork, &info, 1, 1);
  } else if (!strcmp(r, "dgels")) {
    dgels_("N", &p->m, &p->n, &p->nrhs, p->a, &p->m, p->b, &p->ldb, &query, &lwork, &info, 1);
  } else if (!strcmp(r, "dgetsls")) {
    dgetsls_("N", &p->m, &p->n, &p->nrhs, p->a, &p->m, p->b, &p->ldb, &query, &lwork, &info, 1);
  } else if (!strcmp(r, "dgelsd")) {
    const double rcond = -1;
    int rank = 0;
    dgelsd_(&p->m, &p->n, &p->nrhs, p->a, &p->m, p->b, &p->ldb, p->values, &rcond, &rank, &query,
            &lwork, &iquery, &info);
  } else if (!strcmp(r, "dgeqp3")) {
    dgeqp3_(&p->m, &p->n, p->a, &p->m, p->ints, p->tau, &query, &lwork, &info);
  }
  if (iquery > p->liwork) { /* dsyevd's and dgelsd's queried integer workspace */
    free(p->ints);
    p->liwork = iquery, p->ints = take((size_t)iquery * sizeof(int));
  }
  p->lwork = query > 1 ? (int)query : 1;
  p->work = take((size_t)p->lwork * 8);
  return info == 0;
}

/* What a driver's answer is judged by: the solution, the values, or |R(i, i)|. */
static double driver_checksum(const struct Problem* p) {
  const char* r = p->routine;
  const double* a = p->a;
  double sum = 0;
  int i;
  if (p->b) { /* the solution's rows of each column */
    for (i = 0; i < p->nrhs; ++i) {
      sum += checksum_d((const double*)p->b + (size_t)i * p->ldb, (size_t)p->n);
    }
    return sum;
  }
  if (!strcmp(r, "dgeqp3")) {
    for (i = 0; i < p->n && i < p->m; ++i) sum += fabs(a[(size_t)i * p->m + i]) * (1 + i % 7);
    return sum;
  }
  return checksum_d(p->values, (size_t)(p->m < p->n ? p->m : p->n));
}

/* One call of `p`, its milliseconds; inputs a call overwrites are restored off the clock. */
static double call_once(struct Problem* p, int* info) {
  const char* r = p->routine;
  const int d = p->double_precision;
  const double one = 1, zero = 0;
  const float onef = 1, zerof = 0;
  double t;
  if (is_driver(r)) return call_driver(p, info);
  if (!strcmp(r, "dormqr")) {
    memcpy(p->c, p->c0, p->cc * 8);
  } else if (strstr(r, "geqrf") || !strcmp(r, "dorgqr")) {
    memcpy(p->a, p->a0, p->ca * (d ? 8 : 4));
  }
  t = now_ms();
  if (!strcmp(r, "dgemm") || !strcmp(r, "dgram")) {
    dgemm_(&p->ta, &p->tb, &p->m, &p->n, &p->k, &one, p->a, &p->lda, p->b, &p->ldb, &zero, p->c,
           &p->m, 1, 1);
  } else if (!strcmp(r, "sgemm") || !strcmp(r, "sgram")) {
    sgemm_(&p->ta, &p->tb, &p->m, &p->n, &p->k, &onef, p->a, &p->lda, p->b, &p->ldb, &zerof, p->c,
           &p->m, 1, 1);
  } else if (!strcmp(r, "dsyrk")) {
    dsyrk_(&p->ta, &p->tb, &p->n, &p->k, &one, p->a, &p->lda, &zero, p->c, &p->n, 1, 1);
  } else if (!strcmp(r, "ssyrk")) {
    ssyrk_(&p->ta, &p->tb, &p->n, &p->k, &onef, p->a, &p->lda, &zerof, p->c, &p->n, 1, 1);
  } else if (!strcmp(r, "dgeqrf")) {
    dgeqrf_(&p->m, &p->n, p->a, &p->m, p->tau, p->work, &p->lwork, info);
  } else if (!strcmp(r, "sgeqrf")) {
    sgeqrf_(&p->m, &p->n, p->a, &p->m, p->tau, p->work, &p->lwork, info);
  } else if (!strcmp(r, "dorgqr")) {
    dorgqr_(&p->m, &p->n, &p->k, p->a, &p->m, p->tau, p->work, &p->lwork, info);
  } else {
    dormqr_("L", "T", &p->m, &p->n, &p->k, p->a0, &p->m, p->tau, p->c, &p->m, p->work, &p->lwork,
            info, 1, 1);
  }
  return now_ms() - t;
}

/* Reads ROUTINE SHAPE... into `p` and makes its operands; 0 when the arguments are wrong. */
static int make_problem(int argc, char** argv, struct Problem* p) {
  const char* r = argv[1];
  const int shape_args = argc - 4; /* between the routine and WARM_UP_MS REPEATS */
  const int gemm = !strcmp(r, "dgemm") || !strcmp(r, "sgemm");
  const int gram = !strcmp(r, "dgram") || !strcmp(r, "sgram");
  const int syrk = !strcmp(r, "dsyrk") || !strcmp(r, "ssyrk");
  const int qr = !strcmp(r, "dgeqrf") || !strcmp(r, "sgeqrf") || !strcmp(r, "dorgqr");
  const int ormqr = !strcmp(r, "dormqr");
  size_t e;
  memset(p, 0, sizeof *p);
  if (is_driver(r)) {
    snprintf(p->routine, sizeof p->routine, "%s", r);
    p->double_precision = 1;
    return make_driver(shape_args, argv, p);
  }
  if (!(gemm && shape_args == 5) && !(gram && shape_args == 2) && !(syrk && shape_args == 4) &&
      !(qr && shape_args == 2) && !(ormqr && shape_args == 3)) {
    return 0;
  }
  snprintf(p->routine, sizeof p->routine, "%s", r);
  p->double_precision = r[0] == 'd';
  e = p->double_precision ? 8 : 4;
  if (gemm) {
    p->ta = argv[2][0], p->tb = argv[3][0];
    p->m = atoi(argv[4]), p->n = atoi(argv[5]), p->k = atoi(argv[6]);
    p->lda = p->ta == 'N' ? p->m : p->k, p->ldb = p->tb == 'N' ? p->k : p->n;
    p->ca = (size_t)p->m * p->k, p->cc = (size_t)p->m * p->n;
    p->a = take(p->ca * e), p->b = take((size_t)p->k * p->n * e), p->c = take(p->cc * e);
    fill(e == 8 ? p->a : NULL, e == 8 ? NULL : p->a, p->ca, 1);
    fill(e == 8 ? p->b : NULL, e == 8 ? NULL : p->b, (size_t)p->k * p->n, 2);
  } else if (gram) {
    p->ta = 'T', p->tb = 'N';
    p->m = p->n = atoi(argv[2]), p->k = atoi(argv[3]);
    p->lda = p->ldb = p->k;
    p->ca = (size_t)p->k * p->n, p->cc = (size_t)p->n * p->n;
    p->a = p->b = take(p->ca * e), p->c = take(p->cc * e);
    fill(e == 8 ? p->a : NULL, e == 8 ? NULL : p->a, p->ca, 1);
  } else if (syrk) {
    p->ta = argv[2][0], p->tb = argv[3][0];
    p->n = atoi(argv[4]), p->k = atoi(argv[5]);
    p->lda = p->tb == 'N' ? p->n : p->k;
    p->ca = (size_t)p->n * p->k, p->cc = (size_t)p->n * p->n;
    p->a = take(p->ca * e), p->c = take(p->cc * e);
    fill(e == 8 ? p->a : NULL, e == 8 ? NULL : p->a, p->ca, 1);
    fill(e == 8 ? p->c : NULL, e == 8 ? NULL : p->c, p->cc, 3);
  } else {
    int info = 0, cols;
    p->m = atoi(argv[2]), p->n = atoi(argv[3]);
    p->k = ormqr ? atoi(argv[4]) : p->n;
    cols = ormqr ? p->k : p->n; /* A holds k reflectors for dormqr */
    p->ca = (size_t)p->m * cols;
    p->lwork = 256 * (p->n > p->k ? p->n : p->k);
    p->a0 = take(p->ca * e), p->a = take(p->ca * e);
    p->tau = take((size_t)cols * e), p->work = take((size_t)p->lwork * e);
    fill(e == 8 ? p->a0 : NULL, e == 8 ? NULL : p->a0, p->ca, 1);
    if (!strstr(r, "geqrf")) {
      /* orgqr and ormqr work on reflectors: factor once, outside the clock. */
      dgeqrf_(&p->m, &cols, p->a0, &p->m, p->tau, p->work, &p->lwork, &info);
    }
    if (ormqr) {
      p->cc = (size_t)p->m * p->n;
      p->c0 = take(p->cc * 8), p->c = take(p->cc * 8);
      fill(p->c0, NULL, p->cc, 4);
    }
  }
  return 1;
}

static double checksum(const struct Problem* p) {
  if (is_driver(p->routine)) return driver_checksum(p);
  const void* out = p->c ? p->c : p->a;
  const size_t count = p->c ? p->cc : p->ca;
  return p->double_precision ? checksum_d(out, count) : checksum_s(out, count);
}

int main(int argc, char** argv) {
  struct Problem p;
  double warm_up_ms, begin;
  int repeats, calls = 0, info = 0, i;
  if (argc < 5 || !make_problem(argc, argv, &p)) {
    fprintf(stderr, "usage: switchyard-bench-call ROUTINE SHAPE... WARM_UP_MS REPEATS\n");
    return 2;
  }
  warm_up_ms = atof(argv[argc - 2]);
  repeats = atoi(argv[argc - 1]);
  printf("ms");
  begin = now_ms();
  printf(" %.3f", call_once(&p, &info));
  fflush(stdout);
  ++calls;
  /* A program's history of the same call; capped so that tiny calls end. */
  while (now_ms() - begin < warm_up_ms && calls < 100000) {
    call_once(&p, &info);
    ++calls;
  }
  for (i = 0; i < repeats; ++i) {
    printf(" %.3f", call_once(&p, &info));
    fflush(stdout);
    ++calls;
  }
  if (info != 0) {
    printf("\n");
    fprintf(stderr, "switchyard-bench-call: %s returned info %d\n", p.routine, info);
    return 4;
  }
  printf(" check %.10g calls %d\n", checksum(&p), calls);
  fflush(stdout); /* before a preloaded library's report at exit */
  return 0;
}
