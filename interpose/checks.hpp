// Argument checks exactly as reference BLAS/LAPACK make them: same order,
// same parameter numbers. Each returns the number XERBLA is to be called
// with, 0 when the arguments are valid. The integers are taken 64-bit, so
// that one check serves the 32-bit and the 64-bit entry points.
#pragma once

#include <cstdint>

namespace switchyard {

// The upper-case form of an option letter, as the routes receive it: ASCII's lower-case letters
// raised, every other byte as it is, as reference LSAME reads them whatever the program's locale
// (std::toupper follows the locale, and costs a library call on every BLAS call).
constexpr char upper_letter(char c) { return c >= 'a' && c <= 'z' ? char(c - ('a' - 'A')) : c; }

// Reference LSAME: the same letter in either case.
constexpr bool same_letter(char a, char b) { return upper_letter(a) == upper_letter(b); }

// xGEMM: 1 TRANSA, 2 TRANSB, 3 M, 4 N, 5 K, 8 LDA, 10 LDB, 13 LDC.
int gemm_argument_error(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k,
                        std::int64_t lda, std::int64_t ldb, std::int64_t ldc);

// xSYRK: 1 UPLO, 2 TRANS, 3 N, 4 K, 7 LDA, 10 LDC.
int syrk_argument_error(char uplo, char trans, std::int64_t n, std::int64_t k, std::int64_t lda,
                        std::int64_t ldc);

// xGEQRF (LAPACK 3.11): 1 M, 2 N, 4 LDA, 7 LWORK (unless LWORK = -1, a query).
int geqrf_argument_error(std::int64_t m, std::int64_t n, std::int64_t lda, std::int64_t lwork);

// xGEQP3 (LAPACK 3.11): 1 M, 2 N, 4 LDA, 8 LWORK < 3 N + 1 (unless LWORK = -1, a query, or A is
// empty, when 1 is enough).
int geqp3_argument_error(std::int64_t m, std::int64_t n, std::int64_t lda, std::int64_t lwork);

// xGELS (LAPACK 3.11): 1 TRANS, 2 M, 3 N, 4 NRHS, 6 LDA, 8 LDB < max(1, M, N), 10 LWORK <
// max(1, min(M, N) + max(min(M, N), NRHS)) (unless LWORK = -1, a query).
int gels_argument_error(char trans, std::int64_t m, std::int64_t n, std::int64_t nrhs,
                        std::int64_t lda, std::int64_t ldb, std::int64_t lwork);

// xORGQR: 1 M, 2 N, 3 K, 5 LDA, 8 LWORK (unless LWORK = -1, a query).
int orgqr_argument_error(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda,
                         std::int64_t lwork);

// xORMQR: 1 SIDE, 2 TRANS, 3 M, 4 N, 5 K, 7 LDA, 10 LDC, 12 LWORK (unless LWORK = -1).
int ormqr_argument_error(char side, char trans, std::int64_t m, std::int64_t n, std::int64_t k,
                         std::int64_t lda, std::int64_t ldc, std::int64_t lwork);

// xGEQRT (LAPACK 3.11): 1 M, 2 N, 3 NB (1 <= NB <= min(M, N) unless A is empty), 5 LDA, 7 LDT.
int geqrt_argument_error(std::int64_t m, std::int64_t n, std::int64_t nb, std::int64_t lda,
                         std::int64_t ldt);

// xGEMQRT: 1 SIDE, 2 TRANS, 3 M, 4 N, 5 K, 6 NB (1 <= NB <= K unless K = 0), 8 LDV, 10 LDT,
// 12 LDC.
int gemqrt_argument_error(char side, char trans, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t nb, std::int64_t ldv, std::int64_t ldt, std::int64_t ldc);

// xGEMQR (LAPACK 3.11): 1 SIDE, 2 TRANS, 3 M, 4 N, 5 K, 7 LDA, 9 TSIZE < 5, 11 LDC, 13 LWORK <
// max(1, lw) unless LWORK = -1, a query; lw is N NB from the left, MB NB from the right, with MB
// and NB read from T(2) and T(3).
int gemqr_argument_error(char side, char trans, std::int64_t m, std::int64_t n, std::int64_t k,
                         std::int64_t lda, std::int64_t tsize, std::int64_t ldc,
                         std::int64_t lwork, std::int64_t lw);

}  // namespace switchyard
