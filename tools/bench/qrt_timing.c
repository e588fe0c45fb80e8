/* qrt-timing [--repeat R] [--rhs K] M N NB
 *
 * xGEQRT against xGEQRF, alone and followed by the application of Q^T to an M x K matrix
 * (xGEMQRT, xORMQR, SIDE = 'L'), in double, through the LAPACK names this program is linked
 * with (reference -llapack), so that a preloaded libswitchyard.so takes the calls as it would
 * take a program's (docs/qr-apply.md). Each line gives a sequence's first run in the process
 * and the best of R more, in milliseconds, each on a fresh copy of A made off the clock:
 *   dgeqrt M N NB          first FIRST best BEST
 *   dgeqrf M N             ...
 *   dgeqrt+dgemqrt M N NB K
 *   dgeqrf+dormqr M N K
 * and a checksum of each sequence's R and Q^T C, so that a wrong answer shows. */
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

struct Problem {
  int m, n, nb, k, lwork, blocked; /* blocked: xGEQRT and xGEMQRT, else xGEQRF and xORMQR */
  int apply;                       /* whether Q^T is applied to C */
  double *a0, *a, *c0, *c, *t, *tau, *work;
};

/* One run of the sequence, its milliseconds. */
static double run(struct Problem* p) {
  int info = 0;
  double start;
  memcpy(p->a, p->a0, (size_t)p->m * p->n * sizeof *p->a);
  if (p->apply) memcpy(p->c, p->c0, (size_t)p->m * p->k * sizeof *p->c);
  start = now_ms();
  if (p->blocked) {
    dgeqrt_(&p->m, &p->n, &p->nb, p->a, &p->m, p->t, &p->nb, p->work, &info);
    if (p->apply) {
      dgemqrt_("L", "T", &p->m, &p->k, &p->n, &p->nb, p->a, &p->m, p->t, &p->nb, p->c, &p->m,
               p->work, &info, 1, 1);
    }
  } else {
    dgeqrf_(&p->m, &p->n, p->a, &p->m, p->tau, p->work, &p->lwork, &info);
    if (p->apply) {
      dormqr_("L", "T", &p->m, &p->k, &p->n, p->a, &p->m, p->tau, p->c, &p->m, p->work, &p->lwork,
              &info, 1, 1);
    }
  }
  const double elapsed = now_ms() - start;
  if (info != 0) {
    fprintf(stderr, "qrt-timing: INFO = %d\n", info);
    exit(2);
  }
  return elapsed;
}

/* |R| summed, and Q^T C's entries weighted, when applied. */
static double checksum(const struct Problem* p) {
  double sum = 0;
  for (int j = 0; j < p->n; ++j) {
    for (int i = 0; i <= j; ++i) sum += fabs(p->a[i + (size_t)j * p->m]);
  }
  if (p->apply) {
    for (size_t i = 0; i < (size_t)p->m * p->k; ++i) sum += p->c[i] * (double)(1 + i % 7);
  }
  return sum;
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
  p.lwork = 256 * (p.n > p.k ? p.n : p.k);
  p.a0 = take((size_t)p.m * p.n), p.a = take((size_t)p.m * p.n);
  p.c0 = take((size_t)p.m * p.k), p.c = take((size_t)p.m * p.k);
  p.t = take((size_t)p.nb * p.n), p.tau = take((size_t)p.n);
  p.work = take((size_t)p.lwork + (size_t)p.nb * (p.n > p.k ? p.n : p.k));
  fill(p.a0, (size_t)p.m * p.n, 1);
  fill(p.c0, (size_t)p.m * p.k, 2);
  for (p.apply = 0; p.apply <= 1; ++p.apply) {
    for (p.blocked = 1; p.blocked >= 0; --p.blocked) {
      const double first = run(&p);
      double best = INFINITY;
      for (int r = 0; r < repeat; ++r) {
        const double ms = run(&p);
        if (ms < best) best = ms;
      }
      char name[64];
      if (p.blocked) {
        snprintf(name, sizeof name, "%s %d %d %d", p.apply ? "dgeqrt+dgemqrt" : "dgeqrt", p.m, p.n,
                 p.nb);
      } else {
        snprintf(name, sizeof name, "%s %d %d", p.apply ? "dgeqrf+dormqr" : "dgeqrf", p.m, p.n);
      }
      if (p.apply) snprintf(name + strlen(name), sizeof name - strlen(name), " %d", p.k);
      printf("%-32s first %9.2f best %9.2f check %.10e\n", name, first, best, checksum(&p));
    }
  }
  return 0;
}
