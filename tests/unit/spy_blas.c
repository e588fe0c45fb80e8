/* A stand-in fallback library for SWITCHYARD_FALLBACK tests: its dgemm_
   marks C with 42 instead of computing, so a test can tell it was used. */
#include <stddef.h>

void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b,
            const int* ldb, const double* beta, double* c, const int* ldc, size_t la,
            size_t lb) {
  (void)transa, (void)transb, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb;
  (void)beta, (void)la, (void)lb;
  for (int j = 0; j < *n; ++j)
    for (int i = 0; i < *m; ++i) c[(size_t)j * *ldc + i] = 42.0;
}
