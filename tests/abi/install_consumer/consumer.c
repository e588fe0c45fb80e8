/* consumer: a program built against an installed Switchyard, calling the
 * Fortran entry points dgemm_ and dgeqrf_ and Switchyard's own API from
 * the installed switchyard.h. Exit status 1 if a result is wrong. */
#include <stddef.h>
#include <stdio.h>

#include "switchyard.h"

/* Fortran calling convention: every argument by reference, then the
 * hidden lengths of the character arguments. */
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, size_t transa_len, size_t transb_len);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);

static double distance(double x, double y) { return x > y ? x - y : y - x; }

int main(void) {
  /* [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50], column-major. */
  const double a[] = {1, 3, 2, 4}, b[] = {5, 7, 6, 8}, product[] = {19, 43, 22, 50};
  const double one = 1, zero = 0;
  const int two = 2;
  double c[4];
  dgemm_("N", "N", &two, &two, &two, &one, a, &two, b, &two, &zero, c, &two, 1, 1);
  int gemm_ok = 1;
  for (int i = 0; i < 4; ++i) gemm_ok = gemm_ok && c[i] == product[i];

  /* The 2 x 1 matrix [3; 4] has R = +-5. */
  double column[] = {3, 4}, tau, work[64];
  const int m = 2, n = 1, lwork = 64;
  int info;
  dgeqrf_(&m, &n, column, &m, &tau, work, &lwork, &info);
  const int geqrf_ok = info == 0 && distance(column[0] * column[0], 25) < 1e-12;

  printf("consumer: switchyard %s, dgemm %s, dgeqrf %s\n", switchyard_version(),
         gemm_ok ? "ok" : "WRONG", geqrf_ok ? "ok" : "WRONG");
  return gemm_ok && geqrf_ok ? 0 : 1;
}
