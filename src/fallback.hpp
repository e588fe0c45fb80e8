// The next BLAS/LAPACK: the library that runs every call Switchyard does not
// take. Under LD_PRELOAD it is the program's own BLAS/LAPACK (whatever comes
// after Switchyard in the symbol search order); when a program is linked
// with -lswitchyard it is reference LAPACK/BLAS; SWITCHYARD_FALLBACK names a
// library that overrides both. A symbol that resolves back into Switchyard is
// never used, so a call can not loop into itself.
#pragma once

#include <cstddef>
#include <string>

namespace switchyard {

template <class T>
using GemmFn = void(const char* transa, const char* transb, const int* m, const int* n,
                    const int* k, const T* alpha, const T* a, const int* lda, const T* b,
                    const int* ldb, const T* beta, T* c, const int* ldc, std::size_t transa_len,
                    std::size_t transb_len);

template <class T>
using SyrkFn = void(const char* uplo, const char* trans, const int* n, const int* k,
                    const T* alpha, const T* a, const int* lda, const T* beta, T* c,
                    const int* ldc, std::size_t uplo_len, std::size_t trans_len);

template <class T>
using GeqrfFn = void(const int* m, const int* n, T* a, const int* lda, T* tau, T* work,
                     const int* lwork, int* info);

template <class T>
using OrgqrFn = void(const int* m, const int* n, const int* k, T* a, const int* lda,
                     const T* tau, T* work, const int* lwork, int* info);

template <class T>
using OrmqrFn = void(const char* side, const char* trans, const int* m, const int* n,
                     const int* k, const T* a, const int* lda, const T* tau, T* c,
                     const int* ldc, T* work, const int* lwork, int* info, std::size_t side_len,
                     std::size_t trans_len);

template <class T>
using TrsmFn = void(const char* side, const char* uplo, const char* transa, const char* diag,
                    const int* m, const int* n, const T* alpha, const T* a, const int* lda, T* b,
                    const int* ldb, std::size_t, std::size_t, std::size_t, std::size_t);

struct Fallback {
  GemmFn<float>* sgemm;
  GemmFn<double>* dgemm;
  SyrkFn<float>* ssyrk;
  SyrkFn<double>* dsyrk;
  GeqrfFn<float>* sgeqrf;
  GeqrfFn<double>* dgeqrf;
  OrgqrFn<float>* sorgqr;
  OrgqrFn<double>* dorgqr;
  OrmqrFn<float>* sormqr;
  OrmqrFn<double>* dormqr;
  TrsmFn<float>* strsm;
  TrsmFn<double>* dtrsm;
  std::string blas_origin;    // the file dgemm_ was found in
  std::string lapack_origin;  // the file dgeqrf_ was found in
};

// Resolved once, on first use. A symbol found nowhere is a fatal error with a
// clear message: there is no way to compute a correct answer without it.
const Fallback& fallback();

}  // namespace switchyard
