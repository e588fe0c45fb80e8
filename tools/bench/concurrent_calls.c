/* switchyard-bench-concurrent THREADS M N CALLS
 *
 * A threaded program's QR: THREADS threads at once, each factoring its own M x N matrix with
 * dgeqrf CALLS times (refilled from the same random matrix before each call), as a program
 * linked with reference -llapack -lblas makes them. Run it alone and with Switchyard preloaded
 * to see what calls on the host's cores cost each other. Prints the wall time of the whole. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);

enum { kMaxThreads = 256 };
static int rows, cols, calls;

static void* factor(void* failed) {
  const size_t count = (size_t)rows * (size_t)cols;
  const int lwork = 64 * cols;
  double* a0 = malloc(sizeof(double) * count);
  double* a = malloc(sizeof(double) * count);
  double* tau = malloc(sizeof(double) * (size_t)cols);
  double* work = malloc(sizeof(double) * (size_t)lwork);
  if (!a0 || !a || !tau || !work) {
    *(int*)failed = 1;
  } else {
    unsigned seed = 7;
    for (size_t i = 0; i < count; ++i) a0[i] = rand_r(&seed) / (double)RAND_MAX - 0.5;
    for (int c = 0; c < calls; ++c) {
      memcpy(a, a0, sizeof(double) * count);
      int info = 0;
      dgeqrf_(&rows, &cols, a, &rows, tau, work, &lwork, &info);
      if (info != 0) *(int*)failed = 1;
    }
  }
  free(a0), free(a), free(tau), free(work);
  return NULL;
}

int main(int argc, char** argv) {
  const int threads = argc == 5 ? atoi(argv[1]) : 0;
  if (argc == 5) rows = atoi(argv[2]), cols = atoi(argv[3]), calls = atoi(argv[4]);
  if (threads < 1 || threads > kMaxThreads || rows < cols || cols < 1 || calls < 1) {
    fprintf(stderr, "usage: switchyard-bench-concurrent THREADS(1-%d) M N CALLS, M >= N >= 1\n",
            kMaxThreads);
    return 2;
  }
  pthread_t thread[kMaxThreads];
  int failed[kMaxThreads] = {0};
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int started = 0;
  while (started < threads && pthread_create(&thread[started], NULL, factor, &failed[started]) == 0) {
    ++started;
  }
  for (int i = 0; i < started; ++i) pthread_join(thread[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &end);
  for (int i = 0; i < started; ++i) {
    if (failed[i]) {
      fprintf(stderr, "switchyard-bench-concurrent: a thread's dgeqrf failed or ran out of memory\n");
      return 1;
    }
  }
  if (started < threads) {
    fprintf(stderr, "switchyard-bench-concurrent: started %d of %d threads\n", started, threads);
    return 1;
  }
  printf("%d threads x %d calls of dgeqrf %d x %d: %.1f ms\n", threads, calls, rows, cols,
         (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6);
  return 0;
}
