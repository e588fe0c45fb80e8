/* switchyard-bench-call ROUTINE SHAPE... REPEATS
 *
 * One routed call as a program makes it, for `switchyard bench routing`: operands in
 * ordinary (pageable) host memory, the call through the BLAS/LAPACK name this program is
 * linked with (reference -llapack -lblas), so that a preloaded library takes it exactly as it
 * would take a user's. Each of REPEATS calls is timed alone, on inputs prepared before the
 * clock starts (a fresh copy of A for the routines that overwrite it). Prints
 *   ms T1 T2 ... check C
 * where C is a checksum of the output, so that a wrong answer shows as a different number.
 *
 *   dgemm|sgemm TRANSA TRANSB M N K      C = A B (op as given), alpha 1, beta 0
 *   dsyrk|ssyrk UPLO TRANS N K           C = A^T A or A A^T, one triangle
 *   dgeqrf|sgeqrf M N                    QR of an M x N matrix
 *   dorgqr M N                           Q's first N columns from N reflectors
 *   dormqr M N K                         Q^T C, C of M x N, from K reflectors (SIDE = 'L') */
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

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: switchyard-bench-call ROUTINE SHAPE... REPEATS\n");
    return 2;
  }
  const char* r = argv[1];
  const int repeats = atoi(argv[argc - 1]);
  double check = 0;
  printf("ms");
  if (!strcmp(r, "dgemm") || !strcmp(r, "sgemm")) {
    const char ta = argv[2][0], tb = argv[3][0];
    const int m = atoi(argv[4]), n = atoi(argv[5]), k = atoi(argv[6]);
    const int lda = ta == 'N' ? m : k, ldb = tb == 'N' ? k : n;
    const size_t ca = (size_t)m * k, cb = (size_t)k * n, cc = (size_t)m * n;
    const int d = r[0] == 'd';
    void* a = take(ca * (d ? 8 : 4));
    void* b = take(cb * (d ? 8 : 4));
    void* c = take(cc * (d ? 8 : 4));
    fill(d ? a : NULL, d ? NULL : a, ca, 1);
    fill(d ? b : NULL, d ? NULL : b, cb, 2);
    for (int i = 0; i < repeats; ++i) {
      const double t = now_ms();
      if (d) {
        const double one = 1, zero = 0;
        dgemm_(&ta, &tb, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &m, 1, 1);
      } else {
        const float one = 1, zero = 0;
        sgemm_(&ta, &tb, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &m, 1, 1);
      }
      printf(" %.3f", now_ms() - t);
      fflush(stdout);
    }
    check = d ? checksum_d(c, cc) : checksum_s(c, cc);
  } else if (!strcmp(r, "dsyrk") || !strcmp(r, "ssyrk")) {
    const char uplo = argv[2][0], trans = argv[3][0];
    const int n = atoi(argv[4]), k = atoi(argv[5]);
    const int lda = trans == 'N' ? n : k;
    const size_t ca = (size_t)n * k, cc = (size_t)n * n;
    const int d = r[0] == 'd';
    void* a = take(ca * (d ? 8 : 4));
    void* c = take(cc * (d ? 8 : 4));
    fill(d ? a : NULL, d ? NULL : a, ca, 1);
    fill(d ? c : NULL, d ? NULL : c, cc, 3);
    for (int i = 0; i < repeats; ++i) {
      const double t = now_ms();
      if (d) {
        const double one = 1, zero = 0;
        dsyrk_(&uplo, &trans, &n, &k, &one, a, &lda, &zero, c, &n, 1, 1);
      } else {
        const float one = 1, zero = 0;
        ssyrk_(&uplo, &trans, &n, &k, &one, a, &lda, &zero, c, &n, 1, 1);
      }
      printf(" %.3f", now_ms() - t);
      fflush(stdout);
    }
    /* Only the triangle asked for is the answer; the other holds what was there. */
    check = d ? checksum_d(c, cc) : checksum_s(c, cc);
  } else if (!strcmp(r, "dgeqrf") || !strcmp(r, "sgeqrf") || !strcmp(r, "dorgqr") ||
             !strcmp(r, "dormqr")) {
    const int m = atoi(argv[2]), n = atoi(argv[3]);
    const int k = !strcmp(r, "dormqr") ? atoi(argv[4]) : n;
    const int d = r[0] == 'd';
    const int cols = !strcmp(r, "dormqr") ? k : n; /* A holds k reflectors for dormqr */
    const size_t ca = (size_t)m * cols;
    const int lwork = 256 * (n > k ? n : k);
    int info = 0;
    void* a0 = take(ca * (d ? 8 : 4));
    void* a = take(ca * (d ? 8 : 4));
    void* tau = take((size_t)cols * (d ? 8 : 4));
    void* work = take((size_t)lwork * (d ? 8 : 4));
    fill(d ? a0 : NULL, d ? NULL : a0, ca, 1);
    if (strcmp(r, "dgeqrf") && strcmp(r, "sgeqrf")) {
      /* orgqr and ormqr work on reflectors: factor once, outside the clock. */
      dgeqrf_(&m, &cols, a0, &m, tau, work, &lwork, &info);
    }
    double* c0 = NULL;
    double* c = NULL;
    if (!strcmp(r, "dormqr")) {
      c0 = take((size_t)m * n * 8);
      c = take((size_t)m * n * 8);
      fill(c0, NULL, (size_t)m * n, 4);
    }
    for (int i = 0; i < repeats; ++i) {
      double t;
      if (!strcmp(r, "dormqr")) {
        memcpy(c, c0, (size_t)m * n * 8);
        t = now_ms();
        dormqr_("L", "T", &m, &n, &k, a0, &m, tau, c, &m, work, &lwork, &info, 1, 1);
      } else {
        memcpy(a, a0, ca * (d ? 8 : 4));
        t = now_ms();
        if (!strcmp(r, "dgeqrf")) dgeqrf_(&m, &n, a, &m, tau, work, &lwork, &info);
        if (!strcmp(r, "sgeqrf")) sgeqrf_(&m, &n, a, &m, tau, work, &lwork, &info);
        if (!strcmp(r, "dorgqr")) dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, &info);
      }
      printf(" %.3f", now_ms() - t);
      fflush(stdout);
    }
    if (info != 0) {
      printf("\n");
      fprintf(stderr, "switchyard-bench-call: %s returned info %d\n", r, info);
      return 4;
    }
    check = c ? checksum_d(c, (size_t)m * n) : d ? checksum_d(a, ca) : checksum_s(a, ca);
  } else {
    fprintf(stderr, "switchyard-bench-call: unknown routine %s\n", r);
    return 2;
  }
  printf(" check %.10g\n", check);
  return 0;
}
