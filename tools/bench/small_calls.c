/* switchyard-bench-small CALLS
 *
 * The small calls a program makes by the million (a finite-element code's element matrices, a
 * Kalman filter's updates), each repeated in a loop as a program linked with reference
 * -llapack -lblas makes them, for `switchyard bench routing`'s small-call table: CALLS times,
 * or as many as take about kLoopSeconds where fewer do, after 1000 untimed; last, a 4 x 4
 * dgemm on every core at once, each thread on its own matrices, as a threaded program makes
 * them (its time per call is each thread's). Prints one line per call: NAME
 * NANOSECONDS-PER-CALL CHECKSUM. */
#include <cblas.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*, size_t, size_t);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
            const float*, const int*, const float*, const int*, const float*, float*, const int*,
            size_t, size_t);
void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, const double*, double*, const int*, size_t, size_t);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
void dormqr_(const char*, const char*, const int*, const int*, const int*, const double*,
             const int*, const double*, double*, const int*, double*, const int*, int*, size_t,
             size_t);

enum { kMax = 64 * 64 };
static const double kLoopSeconds = 0.25;
static double a[kMax], b[kMax], c[kMax], qr[kMax], tau[64], work[64 * 64];
static float as[kMax], bs[kMax], cs[kMax];

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One small call of each kind, on the shape it is named with. */
enum Kind { dgemm, sgemm, cblas, dsyrk, dgeqrf, dorgqr, dormqr };
struct Case {
  const char* name;
  enum Kind kind;
  int m, n, k;
};
static const struct Case cases[] = {
    {"dgemm N N 2 2 2", dgemm, 2, 2, 2},       {"dgemm N N 4 4 4", dgemm, 4, 4, 4},
    {"dgemm N N 8 8 8", dgemm, 8, 8, 8},       {"dgemm N N 16 16 16", dgemm, 16, 16, 16},
    {"dgemm N N 64 64 64", dgemm, 64, 64, 64}, {"sgemm N N 4 4 4", sgemm, 4, 4, 4},
    {"cblas_dgemm 4 4 4", cblas, 4, 4, 4},     {"dsyrk U T 4 4", dsyrk, 4, 4, 4},
    {"dgeqrf 8 4", dgeqrf, 8, 4, 0},           {"dgeqrf 64 16", dgeqrf, 64, 16, 0},
    {"dorgqr 8 4", dorgqr, 8, 4, 0},           {"dormqr 8 4 4", dormqr, 8, 4, 4},
};

static void call(const struct Case* s) {
  const double one = 1.0, zero = 0.0;
  const float ones = 1.0f, zeros = 0.0f;
  const int lwork = 64 * 64;
  int info = 0;
  switch (s->kind) {
    case dgemm:
      dgemm_("N", "N", &s->m, &s->n, &s->k, &one, a, &s->m, b, &s->k, &zero, c, &s->m, 1, 1);
      break;
    case sgemm:
      sgemm_("N", "N", &s->m, &s->n, &s->k, &ones, as, &s->m, bs, &s->k, &zeros, cs, &s->m, 1,
             1);
      break;
    case cblas:
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s->m, s->n, s->k, 1.0, a, s->k, b,
                  s->n, 0.0, c, s->n);
      break;
    case dsyrk:
      dsyrk_("U", "T", &s->n, &s->k, &one, a, &s->k, &zero, c, &s->n, 1, 1);
      break;
    case dgeqrf:
      /* From the same matrix each time: a factored one would be factored again. */
      for (int i = 0; i < s->m * s->n; ++i) qr[i] = a[i];
      dgeqrf_(&s->m, &s->n, qr, &s->m, tau, work, &lwork, &info);
      break;
    case dorgqr:
      for (int i = 0; i < s->m * s->n; ++i) qr[i] = a[i];
      dorgqr_(&s->m, &s->n, &s->n, qr, &s->m, tau, work, &lwork, &info);
      break;
    case dormqr:
      for (int i = 0; i < s->m * s->n; ++i) qr[i] = b[i];
      dormqr_("L", "T", &s->m, &s->n, &s->k, a, &s->m, tau, qr, &s->m, work, &lwork, &info, 1,
              1);
      break;
  }
}

/* One thread's loop of 4 x 4 dgemm calls on matrices of its own. */
struct Worker {
  pthread_t thread;
  long count;
  double c[16];
};

static void* run_worker(void* arg) {
  struct Worker* w = arg;
  const int n = 4;
  const double one = 1.0, zero = 0.0;
  for (long r = 0; r < w->count; ++r) {
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, w->c, &n, 1, 1);
  }
  return NULL;
}

/* Nanoseconds per call of each of `threads` threads making `count` calls at once. */
static double threaded_ns(int threads, long count, double* check) {
  struct Worker* workers = calloc((size_t)threads, sizeof *workers);
  if (!workers) return 0.0;
  const double start = now_s();
  int started = 0;
  for (; started < threads; ++started) {
    workers[started].count = count;
    if (pthread_create(&workers[started].thread, NULL, run_worker, &workers[started]) != 0) break;
  }
  for (int t = 0; t < started; ++t) pthread_join(workers[t].thread, NULL);
  const double seconds = now_s() - start;
  *check = started > 0 ? workers[0].c[0] : 0.0;
  free(workers);
  return started == threads ? seconds / (double)count * 1e9 : 0.0;
}

int main(int argc, char** argv) {
  const long calls = argc > 1 ? atol(argv[1]) : 0;
  if (calls <= 0) {
    fprintf(stderr, "usage: switchyard-bench-small CALLS\n");
    return 2;
  }
  for (int i = 0; i < kMax; ++i) {
    a[i] = 1.0 / (1.0 + i % 97);
    b[i] = 0.5 - 1.0 / (2.0 + i % 89);
    as[i] = (float)a[i];
    bs[i] = (float)b[i];
  }
  /* Reflectors for dorgqr and dormqr: the QR of the 8 x 4 matrix. */
  {
    const int m = 8, n = 4, lwork = 64 * 64;
    int info = 0;
    dgeqrf_(&m, &n, a, &m, tau, work, &lwork, &info);
  }
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const struct Case* s = &cases[i];
    const double warm_up = now_s();
    for (long r = 0; r < 1000; ++r) call(s);
    const double each = (now_s() - warm_up) / 1000;
    long count = calls;
    if (each * (double)count > kLoopSeconds) count = (long)(kLoopSeconds / each) + 1;
    const double start = now_s();
    for (long r = 0; r < count; ++r) call(s);
    const double seconds = now_s() - start;
    printf("%s\t%.1f\t%.6g\n", s->name, seconds / (double)count * 1e9, c[0] + cs[0] + qr[0]);
  }
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const int threads = cores > 1 ? (int)cores : 2;
  double check = 0.0;
  threaded_ns(threads, 1000, &check);
  const double each = threaded_ns(threads, calls, &check);
  printf("dgemm N N 4 4 4, %d threads\t%.1f\t%.6g\n", threads, each, check);
  return 0;
}
