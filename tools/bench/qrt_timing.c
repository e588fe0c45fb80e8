/* qrt-timing [--repeat R] [--rhs K] M N NB
 *
 * xGEQRT (compact WY) and xGEQR (LAPACK's tall-skinny API) against xGEQRF, alone and followed by
 * the application of Q^T to an M x K matrix (xGEMQRT, xGEMQR, xORMQR, SIDE = 'L'), and least
 * squares by xGETSLS against xGELS, in double, through the LAPACK names this program is linked
 * with (reference -llapack), so that a preloaded libswitchyard.so takes the calls as it would
 * take a program's (docs/qr-apply.md). Each line gives a sequence's first run in the process
 * and the best of R more, in milliseconds, each on a fresh copy of A (and C) made off the clock:
 *   dgeqrt M N NB          first FIRST best BEST
 *   dgeqr M N              ...
 *   dgeqrf M N
 *   dgeqrt+dgemqrt M N NB K
 *   dgeqr+dgemqr M N K
 *   dgeqrf+dormqr M N K
 *   dgetsls M N K
 *   dgels M N K
 * and a checksum of each sequence's R and Q^T C (of the solution, for the last two), so that a
 * wrong answer shows. xGEQR's T and every WORK are sized by the routines' workspace queries. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgeqrt_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*,
             int*);
void dgemqrt_(const char*, const char*, const int*, const int*, const int*, const int*,
              const double*, const int*, const double*, const int*, double*, const int*, double*,
              int*, size_t, size_t);
void dgeqr_(const int*, const int*, double*, const int*, double*, const int*, double*, const int*,
            int*);
void dgemqr_(const char*, const char*, const int*, const int*, const int*, const double*,
             const int*, const double*, const int*, double*, const int*, double*, const int*, int*,
             size_t, size_t);
void dgetsls_(const char*, const int*, const int*, const int*, double*, const int*, double*,
              const int*, double*, const int*, int*, size_t);
void dgels_(const char*, const int*, const int*, const int*, double*, const int*, double*,
            const int*, double*, const int*, int*, size_t);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dormqr_(const char*, const char*, const int*, const int*, const int*, const double*,
             const int*, const double*, double*, const int*, double*, const int*, int*, size_t,
             size_t);

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static double* take(size_t count) {
  double* p = malloc((count ? count : 1) * sizeof *p);
  if (!p) {
    fprintf(stderr, "qrt-timing: out of memory (%zu doubles)\n", count);
    exit(3);
  }
  return p;
}

/* Uniform values in [-1, 1) from a fixed seed. */
static void fill(double* x, size_t count, uint64_t seed) {
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (double)(state >> 11) * 0x1.0p-52 - 1.0;
  }
}

enum Kind { GEQRT, GEQR, GEQRF, GETSLS, GELS };

struct Problem {
  int m, n, nb, k, lwork, tsize;
  enum Kind kind;
  int apply; /* whether Q^T is applied to C (always, for the least-squares drivers) */
  double *a0, *a, *c0, *c, *t, *tau, *work;
};

/* One run of the sequence, its milliseconds. */
static double run(struct Problem* p) {
  int info = 0;
  double start;
  memcpy(p->a, p->a0, (size_t)p->m * p->n * sizeof *p->a);
  if (p->apply) memcpy(p->c, p->c0, (size_t)p->m * p->k * sizeof *p->c);
  start = now_ms();
  switch (p->kind) {
    case GEQRT:
      dgeqrt_(&p->m, &p->n, &p->nb, p->a, &p->m, p->t, &p->nb, p->work, &info);
      if (p->apply) {
        dgemqrt_("L", "T", &p->m, &p->k, &p->n, &p->nb, p->a, &p->m, p->t, &p->nb, p->c, &p->m,
                 p->work, &info, 1, 1);
      }
      break;
    case GEQR:
      dgeqr_(&p->m, &p->n, p->a, &p->m, p->t, &p->tsize, p->work, &p->lwork, &info);
      if (p->apply) {
        dgemqr_("L", "T", &p->m, &p->k, &p->n, p->a, &p->m, p->t, &p->tsize, p->c, &p->m, p->work,
                &p->lwork, &info, 1, 1);
      }
      break;
    case GEQRF:
      dgeqrf_(&p->m, &p->n, p->a, &p->m, p->tau, p->work, &p->lwork, &info);
      if (p->apply) {
        dormqr_("L", "T", &p->m, &p->k, &p->n, p->a, &p->m, p->tau, p->c, &p->m, p->work, &p->lwork,
                &info, 1, 1);
      }
      break;
    case GETSLS:
      dgetsls_("N", &p->m, &p->n, &p->k, p->a, &p->m, p->c, &p->m, p->work, &p->lwork, &info, 1);
      break;
    case GELS:
      dgels_("N", &p->m, &p->n, &p->k, p->a, &p->m, p->c, &p->m, p->work, &p->lwork, &info, 1);
      break;
  }
  const double elapsed = now_ms() - start;
  if (info != 0) {
    fprintf(stderr, "qrt-timing: INFO = %d\n", info);
    exit(2);
  }
  return elapsed;
}

/* |R| summed, and Q^T C's, when applied; the solution's, for least squares. */
static double checksum(const struct Problem* p) {
  double sum = 0;
  if (p->kind == GETSLS || p->kind == GELS) {
    for (int j = 0; j < p->k; ++j) {
      for (int i = 0; i < p->n; ++i) sum += p->c[i + (size_t)j * p->m] * (double)(1 + i % 7);
    }
    return sum;
  }
  for (int j = 0; j < p->n; ++j) {
    for (int i = 0; i <= j; ++i) sum += fabs(p->a[i + (size_t)j * p->m]);
  }
  /* Q^T C's first N rows are Q1^T C, the same for every Householder QR of A up to the signs of
     R's rows, so only their magnitudes count; the rest depends on how the QR completes Q1, so
     only their norm does. */
  if (p->apply) {
    for (int j = 0; j < p->k; ++j) {
      for (int i = 0; i < p->m; ++i) {
        const double x = p->c[i + (size_t)j * p->m];
        sum += i < p->n ? fabs(x) * (double)(1 + i % 7) : x * x;
      }
    }
  }
  return sum;
}

/* The larger of *size and a workspace query's answer. */
static void at_least(int* size, double answer) {
  if ((int)answer > *size) *size = (int)answer;
}

/* TSIZE and LWORK from the routines' own workspace queries. */
static void size_workspace(struct Problem* p) {
  const int query = -1;
  double t[5], answer;
  int info = 0;
  p->lwork = 256 * (p->n > p->k ? p->n : p->k);
  dgeqr_(&p->m, &p->n, p->a, &p->m, t, &query, &answer, &query, &info);
  p->tsize = (int)t[0];
  at_least(&p->lwork, answer);
  dgemqr_("L", "T", &p->m, &p->k, &p->n, p->a, &p->m, t, &p->tsize, p->c, &p->m, &answer, &query,
          &info, 1, 1);
  at_least(&p->lwork, answer);
  dgetsls_("N", &p->m, &p->n, &p->k, p->a, &p->m, p->c, &p->m, &answer, &query, &info, 1);
  at_least(&p->lwork, answer);
  dgels_("N", &p->m, &p->n, &p->k, p->a, &p->m, p->c, &p->m, &answer, &query, &info, 1);
  at_least(&p->lwork, answer);
}

int main(int argc, char** argv) {
  int repeat = 5, rhs = 1, arg = 1;
  for (; arg < argc && argv[arg][0] == '-'; arg += 2) {
    if (arg + 1 >= argc) break;
    if (!strcmp(argv[arg], "--repeat")) {
      repeat = atoi(argv[arg + 1]);
    } else if (!strcmp(argv[arg], "--rhs")) {
      rhs = atoi(argv[arg + 1]);
    } else {
      break;
    }
  }
  if (argc - arg != 3 || repeat < 1 || rhs < 1) {
    fprintf(stderr, "usage: qrt-timing [--repeat R] [--rhs K] M N NB\n");
    return 1;
  }
  struct Problem p = {atoi(argv[arg]), atoi(argv[arg + 1]), atoi(argv[arg + 2]), rhs};
  if (p.m < p.n || p.n < 1 || p.nb < 1 || p.nb > p.n) {
    fprintf(stderr, "qrt-timing: needs M >= N >= NB >= 1\n");
    return 1;
  }
  p.a0 = take((size_t)p.m * p.n), p.a = take((size_t)p.m * p.n);
  p.c0 = take((size_t)p.m * p.k), p.c = take((size_t)p.m * p.k);
  size_workspace(&p);
  p.t = take((size_t)p.nb * p.n + (size_t)p.tsize), p.tau = take((size_t)p.n);
  p.work = take((size_t)p.lwork + (size_t)p.nb * (p.n > p.k ? p.n : p.k));
  fill(p.a0, (size_t)p.m * p.n, 1);
  fill(p.c0, (size_t)p.m * p.k, 2);
  static const struct {
    enum Kind kind;
    int apply;
    const char* name;
  } sequences[] = {{GEQRT, 0, "dgeqrt"},      {GEQR, 0, "dgeqr"},
                   {GEQRF, 0, "dgeqrf"},      {GEQRT, 1, "dgeqrt+dgemqrt"},
                   {GEQR, 1, "dgeqr+dgemqr"}, {GEQRF, 1, "dgeqrf+dormqr"},
                   {GETSLS, 1, "dgetsls"},    {GELS, 1, "dgels"}};
  for (size_t s = 0; s < sizeof sequences / sizeof *sequences; ++s) {
    p.kind = sequences[s].kind;
    p.apply = sequences[s].apply;
    const double first = run(&p);
    double best = INFINITY;
    for (int r = 0; r < repeat; ++r) {
      const double ms = run(&p);
      if (ms < best) best = ms;
    }
    char name[64];
    snprintf(name, sizeof name, "%s %d %d", sequences[s].name, p.m, p.n);
    if (p.kind == GEQRT) snprintf(name + strlen(name), sizeof name - strlen(name), " %d", p.nb);
    if (p.apply) snprintf(name + strlen(name), sizeof name - strlen(name), " %d", p.k);
    printf("%-32s first %9.2f best %9.2f check %.10e\n", name, first, best, checksum(&p));
  }
  return 0;
}
