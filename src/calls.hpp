// The arguments of one routed call, as the entry point checked them. Routes
// receive these; the fallback receives them unchanged.
#pragma once

#include <cstdint>

namespace switchyard {

template <class T>
struct GemmCall {
  char transa, transb;  // 'N', 'T' or 'C', upper case
  int m, n, k;
  T alpha;
  const T* a;
  int lda;
  const T* b;
  int ldb;
  T beta;
  T* c;
  int ldc;
};

// xSYRK: C <- alpha op(A) op(A)^T + beta C, one triangle of the n x n C.
template <class T>
struct SyrkCall {
  char uplo, trans;  // 'U' or 'L'; 'N', 'T' or 'C'; upper case
  int n, k;
  T alpha;
  const T* a;
  int lda;
  T beta;
  T* c;
  int ldc;
};

template <class T>
struct GeqrfCall {
  int m, n;
  T* a;
  int lda;
  T* tau;
  T* work;
  int lwork;
  int* info;
};

// xGEQRF of a 64-bit call whose rows or leading dimension pass 2^31, its other integers within
// an int: the CPU TSQR takes its rows as they come. WORK(1) is set to what the 64-bit fallback's
// workspace query answered for the call.
template <class T>
struct GeqrfWideCall {
  std::int64_t m;
  int n;
  T* a;
  std::int64_t lda;
  T* tau;
  T* work;
  int lwork;
  T optimal_lwork;
  int* info;
};

// xGEQP3: QR with column pivoting, A P = Q R. JPVT is an int array of n whatever the
// convention's integers (the entry point copies a 64-bit one in and out).
template <class T>
struct Geqp3Call {
  int m, n;
  T* a;
  int lda;
  int* jpvt;
  T* tau;
  T* work;
  int lwork;
  int* info;
};

// xGELS: the least-squares solution of op(A) X = B, or the minimum-norm one, over B; A's QR
// (or LQ) factors over A. TRANS is upper case. xGETSLS, the same problem, comes as this call too.
template <class T>
struct GelsCall {
  char trans;
  int m, n, nrhs;
  T* a;
  int lda;
  T* b;
  int ldb;
  T* work;
  int lwork;
  int* info;
  // WORK(1) on a solved return: the optimal LWORK of the routine the program called; 0 for the
  // fallback xGELS's, which the route asks for itself.
  T optimal_lwork = 0;
};

// xGELSD: the minimum-norm least-squares solution of A X = B by the SVD, singular values below
// RCOND times the largest taken as zero; X over B, the singular values in S, the rank.
template <class T>
struct GelsdCall {
  int m, n, nrhs;
  T* a;
  int lda;
  T* b;
  int ldb;
  T* s;
  T rcond;
  int* rank;
  T* work;
  int lwork;
  int* iwork;
  int* info;
};

// xGESDD: the SVD A = U S V^T by divide and conquer; JOBZ upper case ('N': S only, 'S': the
// thin U and V^T as well, ...).
template <class T>
struct GesddCall {
  char jobz;
  int m, n;
  T* a;
  int lda;
  T* s;
  T* u;
  int ldu;
  T* vt;
  int ldvt;
  T* work;
  int lwork;
  int* iwork;
  int* info;
};

// xGESVD: the SVD A = U S V^T by QR iteration; JOBU and JOBVT upper case ('N': none, 'S': the
// thin vectors, 'A': all of them, 'O': over A).
template <class T>
struct GesvdCall {
  char jobu, jobvt;
  int m, n;
  T* a;
  int lda;
  T* s;
  T* u;
  int ldu;
  T* vt;
  int ldvt;
  T* work;
  int lwork;
  int* info;
};

// xORGQR: the first n columns of Q = H(1) ... H(k), over A.
template <class T>
struct OrgqrCall {
  int m, n, k;
  T* a;
  int lda;
  const T* tau;
  T* work;
  int lwork;
  int* info;
};

// xORMQR: C <- op(Q) C or C op(Q), Q = H(1) ... H(k).
template <class T>
struct OrmqrCall {
  char side, trans;  // 'L' or 'R'; 'N' or 'T'; upper case
  int m, n, k;
  const T* a;
  int lda;
  const T* tau;
  T* c;
  int ldc;
  T* work;
  int lwork;
  int* info;
};

}  // namespace switchyard
