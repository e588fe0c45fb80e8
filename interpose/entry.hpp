// The checked entry of each routine, shared by its Fortran, CBLAS and LAPACKE
// forms: argument check (XERBLA on error), then the router. Each is written
// once for both integer widths of the ABI: I is int for the 32-bit names and
// std::int64_t for the 64-bit ones (docs/ilp64.md).
#pragma once

namespace switchyard {

// xGEMM with Fortran semantics; `transa`/`transb` are single characters.
template <class T, class I>
void gemm(char transa, char transb, I m, I n, I k, T alpha, const T* a, I lda, const T* b,
          I ldb, T beta, T* c, I ldc);

// xSYRK with Fortran semantics.
template <class T, class I>
void syrk(char uplo, char trans, I n, I k, T alpha, const T* a, I lda, T beta, T* c, I ldc);

// xGEQRF with Fortran semantics.
template <class T, class I>
void geqrf(I m, I n, T* a, I lda, T* tau, T* work, I lwork, I* info);

// xORGQR and xORMQR with Fortran semantics.
template <class T, class I>
void orgqr(I m, I n, I k, T* a, I lda, const T* tau, T* work, I lwork, I* info);
template <class T, class I>
void ormqr(char side, char trans, I m, I n, I k, const T* a, I lda, const T* tau, T* c, I ldc,
           T* work, I lwork, I* info);

// cblas_xgemm and cblas_xsyrk as reference CBLAS has them; `name` is the
// routine's name in cblas_xerbla's message. The enum arguments are int in
// both widths.
template <class T, class I>
void cblas_gemm(const char* name, int layout, int transa, int transb, I m, I n, I k, T alpha,
                const T* a, I lda, const T* b, I ldb, T beta, T* c, I ldc);
template <class T, class I>
void cblas_syrk(const char* name, int layout, int uplo, int trans, I n, I k, T alpha, const T* a,
                I lda, T beta, T* c, I ldc);

// LAPACKE_xgeqrf and LAPACKE_xgeqrf_work as reference LAPACKE has them.
template <class T, class I>
I lapacke_geqrf(const char* name, const char* work_name, int layout, I m, I n, T* a, I lda,
                T* tau);
template <class T, class I>
I lapacke_geqrf_work(const char* name, int layout, I m, I n, T* a, I lda, T* tau, T* work,
                     I lwork);

}  // namespace switchyard
