/* Switchyard: a drop-in BLAS/LAPACK library with GPU routes.
 *
 * Programs call the standard names (dgemm_, cblas_dgemm, dgeqrf_,
 * LAPACKE_dgeqrf, ...) through their usual headers; this header declares
 * what is Switchyard's own. */
#ifndef SWITCHYARD_H
#define SWITCHYARD_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library version, "MAJOR.MINOR.PATCH". */
const char* switchyard_version(void);

/* Writes what `switchyard info` shows: version, fallback library, CUDA
 * devices and OpenCL platforms (or why there are none), configuration. */
void switchyard_print_info(FILE* out);

/* Writes the table SWITCHYARD_REPORT=1 prints at exit, for the calls so far. */
void switchyard_print_report(FILE* out);

#ifdef __cplusplus
}
#endif

#endif /* SWITCHYARD_H */
