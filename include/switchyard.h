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

/* Writes the table SWITCHYARD_REPORT=1 prints at exit, for the calls so far.
 * Without SWITCHYARD_REPORT set, calls the thresholds send straight to the
 * fallback are counted but not timed, and the table says how many. */
void switchyard_print_report(FILE* out);

/* What `switchyard calibrate` does: times the fallback library on one shape
 * of each class of routed call, and the start-up of each device this build
 * can route to, and stores the figures in the cache directory, where the
 * router of every later process with the same fallback library and thread
 * count finds them. Call it in a process that has not yet used a device.
 * A progress bar goes to `progress` (NULL: none). 0 on success. */
int switchyard_calibrate(FILE* progress);

/* ------------------------------------------------------------------------
 * Sparse conjugate gradients: A x = b for symmetric positive definite A.
 *
 * The matrix comes in one of four formats. A symmetric banded matrix given
 * as CSR or SLAP is converted to half-storage DIA (diagonal plus lower
 * diagonals) when that moves no more bytes per product than CSR would;
 * otherwise it is solved with a CSR kernel. Input is checked completely
 * before any work; a bad matrix is reported by status, never by a crash or
 * a hang. Vectors are double; matrix values double or float.
 * ------------------------------------------------------------------------ */

/* Matrix formats (switchyard_cg_matrix.format). */
enum {
  SWITCHYARD_CG_CSR = 0,         /* row_ptr[n+1], col_idx, values; index_base 0 or 1;
                                    column indices strictly increasing in each row */
  SWITCHYARD_CG_SLAP_TRIAD = 1,  /* SLAP triad: ia (rows), ja (columns), values,
                                    nelt entries in any order, 1-based */
  SWITCHYARD_CG_SLAP_COLUMN = 2, /* SLAP column: ja[n+1] column pointers (ja[0] = 1,
                                    ja[n] = nelt + 1), ia rows, diagonal first in
                                    each column, 1-based */
  SWITCHYARD_CG_DIA = 3          /* ndiag diagonals of length n, row-aligned: values
                                    + d*n holds a(i, i + offsets[d]) at index i;
                                    entries that fall outside the matrix are ignored */
};

/* Which entries the matrix holds (switchyard_cg_matrix.symmetry). */
enum {
  SWITCHYARD_CG_FULL = 0,    /* every entry; must be symmetric (checked) */
  SWITCHYARD_CG_TRIANGLE = 1 /* the diagonal and one triangle (lower or upper):
                                each off-diagonal entry also stands for its
                                mirror image, so giving both is a duplicate.
                                DIA: offsets of one sign only, e.g. the lower half */
};

/* Matrix value type (switchyard_cg_matrix.value_type). */
enum { SWITCHYARD_CG_DOUBLE = 0, SWITCHYARD_CG_FLOAT = 1 };

/* Where the solve runs (switchyard_cg_options.backend, result.backend). */
enum { SWITCHYARD_CG_AUTO = 0, SWITCHYARD_CG_CPU = 1, SWITCHYARD_CG_GPU = 2 };

/* The internal format of the products (options.kernel, result.kernel). */
enum { SWITCHYARD_CG_KERNEL_AUTO = 0, SWITCHYARD_CG_KERNEL_DIA = 1, SWITCHYARD_CG_KERNEL_CSR = 2 };

/* Outcome of a solve: >= 0 the solve ran, < 0 the input was rejected before
 * any work (x untouched). */
enum {
  SWITCHYARD_CG_CONVERGED = 0,          /* ||b - A x|| / ||b|| <= tolerance */
  SWITCHYARD_CG_MAX_ITERATIONS = 1,     /* max_iterations done without converging */
  SWITCHYARD_CG_NOT_SPD = 2,            /* p'Ap <= 0: A is not positive definite */
  SWITCHYARD_CG_PRECONDITIONER_NOT_SPD = 3, /* r'z <= 0 with Jacobi: a diagonal entry <= 0 */
  SWITCHYARD_CG_NAN = 4,                /* NaN or infinity in A, b, x or an iterate */
  SWITCHYARD_CG_ERR_N = -1,             /* n <= 0 (or nelt < 1, ndiag < 1) */
  SWITCHYARD_CG_ERR_INDEX = -2,         /* an index or offset out of range, or row/column
                                           pointers not increasing */
  SWITCHYARD_CG_ERR_UNSORTED = -3,      /* CSR columns out of order in a row; SLAP column:
                                           diagonal not first in its column */
  SWITCHYARD_CG_ERR_DUPLICATE = -4,     /* an entry (or diagonal) given twice */
  SWITCHYARD_CG_ERR_NOT_SYMMETRIC = -5, /* full storage with a(i,j) != a(j,i) */
  SWITCHYARD_CG_ERR_ARGUMENT = -6,      /* null pointer, unknown enumerator, bad option */
  SWITCHYARD_CG_ERR_NO_MEMORY = -7      /* host memory for the conversion ran out */
};

typedef struct switchyard_cg_matrix {
  int format;         /* SWITCHYARD_CG_CSR, _SLAP_TRIAD, _SLAP_COLUMN or _DIA */
  int symmetry;       /* SWITCHYARD_CG_FULL or SWITCHYARD_CG_TRIANGLE */
  int value_type;     /* SWITCHYARD_CG_DOUBLE or SWITCHYARD_CG_FLOAT */
  int n;              /* rows = columns */
  /* CSR */
  int index_base;     /* 0 or 1 */
  const int* row_ptr; /* n + 1 */
  const int* col_idx; /* row_ptr[n] - index_base */
  /* SLAP triad and column */
  int nelt;
  const int* ia;
  const int* ja;
  /* DIA */
  int ndiag;
  const int* offsets; /* ndiag distinct offsets in (-n, n), any order */
  /* all formats: double or float, as value_type says */
  const void* values;
} switchyard_cg_matrix;

typedef struct switchyard_cg_options {
  double tolerance;      /* stop when ||r|| / ||b|| <= tolerance; default 1e-12 */
  int max_iterations;    /* >= 0; default 10000 */
  int jacobi;            /* 1: diagonal (Jacobi) preconditioning (default); 0: none */
  int use_initial_guess; /* 1: x holds the first iterate; 0: start from 0 (default) */
  int backend;           /* SWITCHYARD_CG_AUTO (default), _CPU or _GPU */
  int kernel;            /* SWITCHYARD_CG_KERNEL_AUTO (default), _DIA or _CSR */
} switchyard_cg_options;

typedef struct switchyard_cg_result {
  int status;               /* SWITCHYARD_CG_CONVERGED, ... (also the return value) */
  int iterations;           /* iterations done */
  double relative_residual; /* ||b - A x|| / ||b|| of the x returned, recomputed */
  int backend;              /* where it ran: SWITCHYARD_CG_CPU or SWITCHYARD_CG_GPU */
  int kernel;               /* SWITCHYARD_CG_KERNEL_DIA or SWITCHYARD_CG_KERNEL_CSR */
  long long bad_entry;      /* rejected input: 0-based position of the first bad
                               entry (CSR col_idx, SLAP ia/ja, DIA offsets), or of
                               the bad row/column pointer; otherwise -1 */
} switchyard_cg_result;

/* Fills `options` with the defaults. */
void switchyard_cg_options_default(switchyard_cg_options* options);

/* Solves A x = b. `options` may be null (defaults); `result` may be null.
 * Returns the status. Thread-safe; A and b are not modified. */
int switchyard_cg_solve(const switchyard_cg_matrix* a, const double* b, double* x,
                        const switchyard_cg_options* options, switchyard_cg_result* result);

/* A short description of a status, e.g. "not positive definite (p'Ap <= 0)". */
const char* switchyard_cg_status_string(int status);

/* Fortran 77 entry points (all arguments by reference, double values,
 * JACOBI/GUESS 0 or 1, BACKEND as above, ISYM 0 full or 1 one triangle):
 *
 *   SWITCHYARD_CG_CSR(N, ROWPTR, COLIDX, A, IBASE, ISYM, B, X,
 *                     TOL, MAXIT, JACOBI, GUESS, BACKEND, ITER, RELRES, ISTAT)
 *   SWITCHYARD_CG_SLAP_TRIAD(N, NELT, IA, JA, A, ISYM, B, X, ...same tail)
 *   SWITCHYARD_CG_SLAP_COLUMN(N, NELT, IA, JA, A, ISYM, B, X, ...same tail)
 *   SWITCHYARD_CG_DIA(N, NDIAG, IOFF, DIAGS, ISYM, B, X, ...same tail)
 *       DIAGS(N, NDIAG): DIAGS(I, D) = a(I, I + IOFF(D))
 *
 * and SLATEC SLAP's DSDCG(N, B, X, NELT, IA, JA, A, ISYM, ITOL, TOL, ITMAX,
 * ITER, ERR, IERR, IUNIT, RWORK, LENW, IWORK, LENIW) with its semantics
 * (see the README). */
void switchyard_cg_csr_(const int* n, const int* row_ptr, const int* col_idx,
                        const double* a, const int* index_base, const int* isym,
                        const double* b, double* x, const double* tol, const int* max_iterations,
                        const int* jacobi, const int* use_initial_guess, const int* backend,
                        int* iterations, double* relative_residual, int* status);
void switchyard_cg_slap_triad_(const int* n, const int* nelt, const int* ia, const int* ja,
                               const double* a, const int* isym, const double* b, double* x,
                               const double* tol, const int* max_iterations, const int* jacobi,
                               const int* use_initial_guess, const int* backend,
                               int* iterations, double* relative_residual, int* status);
void switchyard_cg_slap_column_(const int* n, const int* nelt, const int* ia, const int* ja,
                                const double* a, const int* isym, const double* b, double* x,
                                const double* tol, const int* max_iterations, const int* jacobi,
                                const int* use_initial_guess, const int* backend,
                                int* iterations, double* relative_residual, int* status);
void switchyard_cg_dia_(const int* n, const int* ndiag, const int* offsets, const double* diags,
                        const int* isym, const double* b, double* x, const double* tol,
                        const int* max_iterations, const int* jacobi,
                        const int* use_initial_guess, const int* backend, int* iterations,
                        double* relative_residual, int* status);
void dsdcg_(const int* n, const double* b, double* x, const int* nelt, int* ia, int* ja,
            double* a, const int* isym, const int* itol, double* tol, const int* itmax,
            int* iter, double* err, int* ierr, const int* iunit, double* rwork,
            const int* lenw, int* iwork, const int* leniw);

#ifdef __cplusplus
}
#endif

#endif /* SWITCHYARD_H */
