// The checked entry of each routine, shared by its Fortran, CBLAS and LAPACKE
// forms: argument check (XERBLA on error), then the router. Each is written
// once for every convention C of the exported names (convention.hpp), whose
// integers are Int<C>; T is deduced from the arguments.
#pragma once

#include "convention.hpp"

namespace switchyard {

// xGEMM with Fortran semantics; `transa`/`transb` are single characters.
template <class C, class T>
void gemm(char transa, char transb, Int<C> m, Int<C> n, Int<C> k, T alpha, const T* a, Int<C> lda,
          const T* b, Int<C> ldb, T beta, T* c, Int<C> ldc);

// xSYRK with Fortran semantics.
template <class C, class T>
void syrk(char uplo, char trans, Int<C> n, Int<C> k, T alpha, const T* a, Int<C> lda, T beta, T* c,
          Int<C> ldc);

// xGEQRF with Fortran semantics.
template <class C, class T>
void geqrf(Int<C> m, Int<C> n, T* a, Int<C> lda, T* tau, T* work, Int<C> lwork, Int<C>* info);

// xGEQP3 with Fortran semantics.
template <class C, class T>
void geqp3(Int<C> m, Int<C> n, T* a, Int<C> lda, Int<C>* jpvt, T* tau, T* work, Int<C> lwork,
           Int<C>* info);

// xGELS with Fortran semantics.
template <class C, class T>
void gels(char trans, Int<C> m, Int<C> n, Int<C> nrhs, T* a, Int<C> lda, T* b, Int<C> ldb,
          T* work, Int<C> lwork, Int<C>* info);

// xGELSD with Fortran semantics.
template <class C, class T>
void gelsd(Int<C> m, Int<C> n, Int<C> nrhs, T* a, Int<C> lda, T* b, Int<C> ldb, T* s, T rcond,
           Int<C>* rank, T* work, Int<C> lwork, Int<C>* iwork, Int<C>* info);

// xGESDD with Fortran semantics.
template <class C, class T>
void gesdd(char jobz, Int<C> m, Int<C> n, T* a, Int<C> lda, T* s, T* u, Int<C> ldu, T* vt,
           Int<C> ldvt, T* work, Int<C> lwork, Int<C>* iwork, Int<C>* info);

// xGESVD with Fortran semantics.
template <class C, class T>
void gesvd(char jobu, char jobvt, Int<C> m, Int<C> n, T* a, Int<C> lda, T* s, T* u, Int<C> ldu,
           T* vt, Int<C> ldvt, T* work, Int<C> lwork, Int<C>* info);

// xORGQR and xORMQR with Fortran semantics.
template <class C, class T>
void orgqr(Int<C> m, Int<C> n, Int<C> k, T* a, Int<C> lda, const T* tau, T* work, Int<C> lwork,
           Int<C>* info);
template <class C, class T>
void ormqr(char side, char trans, Int<C> m, Int<C> n, Int<C> k, const T* a, Int<C> lda,
           const T* tau, T* c, Int<C> ldc, T* work, Int<C> lwork, Int<C>* info);

// xGEQRT and xGEMQRT with Fortran semantics.
template <class C, class T>
void geqrt(Int<C> m, Int<C> n, Int<C> nb, T* a, Int<C> lda, T* t, Int<C> ldt, T* work,
           Int<C>* info);
template <class C, class T>
void gemqrt(char side, char trans, Int<C> m, Int<C> n, Int<C> k, Int<C> nb, const T* v,
            Int<C> ldv, const T* t, Int<C> ldt, T* c, Int<C> ldc, T* work, Int<C>* info);

// xGEQR, xGEMQR and xGETSLS with Fortran semantics.
template <class C, class T>
void geqr(Int<C> m, Int<C> n, T* a, Int<C> lda, T* t, Int<C> tsize, T* work, Int<C> lwork,
          Int<C>* info);
template <class C, class T>
void gemqr(char side, char trans, Int<C> m, Int<C> n, Int<C> k, const T* a, Int<C> lda, const T* t,
           Int<C> tsize, T* c, Int<C> ldc, T* work, Int<C> lwork, Int<C>* info);
template <class C, class T>
void getsls(char trans, Int<C> m, Int<C> n, Int<C> nrhs, T* a, Int<C> lda, T* b, Int<C> ldb,
            T* work, Int<C> lwork, Int<C>* info);

// cblas_xgemm and cblas_xsyrk as reference CBLAS has them; `name` is the
// routine's name in cblas_xerbla's message. The enum arguments are int in
// both widths.
template <class C, class T>
void cblas_gemm(const char* name, int layout, int transa, int transb, Int<C> m, Int<C> n, Int<C> k,
                T alpha, const T* a, Int<C> lda, const T* b, Int<C> ldb, T beta, T* c, Int<C> ldc);
template <class C, class T>
void cblas_syrk(const char* name, int layout, int uplo, int trans, Int<C> n, Int<C> k, T alpha,
                const T* a, Int<C> lda, T beta, T* c, Int<C> ldc);

// LAPACKE_xgeqrf and LAPACKE_xgeqrf_work as reference LAPACKE has them.
template <class C, class T>
Int<C> lapacke_geqrf(const char* name, const char* work_name, int layout, Int<C> m, Int<C> n, T* a,
                     Int<C> lda, T* tau);
template <class C, class T>
Int<C> lapacke_geqrf_work(const char* name, int layout, Int<C> m, Int<C> n, T* a, Int<C> lda,
                          T* tau, T* work, Int<C> lwork);

}  // namespace switchyard
