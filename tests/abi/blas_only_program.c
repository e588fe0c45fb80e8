/* A program linked with a BLAS and no LAPACK, run with Switchyard preloaded
   (tests/abi/CMakeLists.txt). Its calls must give the right answers, and
   none of them may load a LAPACK library: Switchyard's safety net (reference
   LAPACK, opened when nothing loaded provides a LAPACK routine) is for LAPACK
   calls, and opening it on a BLAS call costs such a program a millisecond on
   its first call. Prints PASS when all holds. */
#define _GNU_SOURCE
#include <link.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*, size_t, size_t);
void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, const double*, double*, const int*, size_t, size_t);

/* Counts the loaded objects whose name holds "lapack". */
static int count_lapack(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  if (info->dlpi_name && strstr(info->dlpi_name, "lapack")) {
    printf("loaded: %s\n", info->dlpi_name);
    ++*(int*)data;
  }
  return 0;
}

int main(void) {
  const int n = 3;
  const double one = 1, zero = 0;
  const double a[9] = {1, 2, 3, 4, 5, 6, 7, 8, 10}; /* column-major */
  double c[9], s[9];
  for (int i = 0; i < 9; ++i) c[i] = s[i] = -99;
  dgemm_("T", "N", &n, &n, &n, &one, a, &n, a, &n, &zero, c, &n, 1, 1);
  dsyrk_("U", "T", &n, &n, &one, a, &n, &zero, s, &n, 1, 1);
  int failures = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      double want = 0;
      for (int l = 0; l < n; ++l) want += a[l + i * n] * a[l + j * n];
      if (fabs(c[i + j * n] - want) > 1e-12) {
        printf("FAIL: dgemm C(%d,%d) = %g, want %g\n", i + 1, j + 1, c[i + j * n], want);
        ++failures;
      }
      /* Only the upper triangle is written; the rest keeps its poison. */
      const double want_syrk = i <= j ? want : -99;
      if (fabs(s[i + j * n] - want_syrk) > 1e-12) {
        printf("FAIL: dsyrk C(%d,%d) = %g, want %g\n", i + 1, j + 1, s[i + j * n], want_syrk);
        ++failures;
      }
    }
  }
  int lapack_loaded = 0;
  dl_iterate_phdr(count_lapack, &lapack_loaded);
  if (lapack_loaded) {
    printf("FAIL: a BLAS call loaded a LAPACK library\n");
    ++failures;
  }
  if (failures) return 1;
  printf("PASS: all checks\n");
  return 0;
}
