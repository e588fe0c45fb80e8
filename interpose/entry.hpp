// The checked entry of each routine, shared by its Fortran, CBLAS and LAPACKE
// forms: argument check (XERBLA on error), then the router.
#pragma once

namespace switchyard {

// xGEMM with Fortran semantics; `transa`/`transb` are single characters.
template <class T>
void gemm(char transa, char transb, int m, int n, int k, T alpha, const T* a, int lda,
          const T* b, int ldb, T beta, T* c, int ldc);

// xSYRK with Fortran semantics.
template <class T>
void syrk(char uplo, char trans, int n, int k, T alpha, const T* a, int lda, T beta, T* c,
          int ldc);

// xGEQRF with Fortran semantics.
template <class T>
void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info);

}  // namespace switchyard
