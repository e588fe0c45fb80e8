#include <gtest/gtest.h>

#include "checks.hpp"

namespace switchyard {
namespace {

// LSAME's case folding: ASCII letters only, whatever the locale would make of other bytes.
TEST(OptionLetters, OnlyAsciiLettersFoldTheirCase) {
  static_assert(same_letter('n', 'N') && same_letter('T', 't') && same_letter('U', 'U'));
  static_assert(!same_letter('N', 'T') && !same_letter('@', '`') && !same_letter('[', '{'));
  // Latin-1's e acute and E acute are one letter to a Latin-1 locale's toupper, not to LSAME.
  static_assert(!same_letter('\xe9', '\xc9'));
  static_assert(upper_letter('z') == 'Z' && upper_letter('Z') == 'Z' && upper_letter('{') == '{');
  EXPECT_EQ(gemm_argument_error('\xee', 'N', 1, 1, 1, 1, 1, 1), 1);
}

TEST(GemmChecks, ValidArguments) {
  for (char ta : {'N', 'n', 'T', 't', 'C', 'c'}) {
    for (char tb : {'N', 'T', 'c'}) {
      EXPECT_EQ(gemm_argument_error(ta, tb, 3, 4, 5, 5, 5, 3), 0) << ta << tb;
    }
  }
  EXPECT_EQ(gemm_argument_error('N', 'N', 0, 0, 0, 1, 1, 1), 0);
}

TEST(GemmChecks, ReferenceOrderAndNumbers) {
  EXPECT_EQ(gemm_argument_error('X', 'Y', -1, -1, -1, 0, 0, 0), 1);
  EXPECT_EQ(gemm_argument_error('N', 'Y', -1, -1, -1, 0, 0, 0), 2);
  EXPECT_EQ(gemm_argument_error('N', 'N', -1, -1, -1, 0, 0, 0), 3);
  EXPECT_EQ(gemm_argument_error('N', 'N', 2, -1, -1, 0, 0, 0), 4);
  EXPECT_EQ(gemm_argument_error('N', 'N', 2, 2, -1, 0, 0, 0), 5);
  EXPECT_EQ(gemm_argument_error('N', 'N', 4, 2, 3, 3, 0, 0), 8);   // lda < m
  EXPECT_EQ(gemm_argument_error('T', 'N', 4, 2, 3, 2, 0, 0), 8);   // lda < k
  EXPECT_EQ(gemm_argument_error('N', 'N', 4, 2, 3, 4, 2, 0), 10);  // ldb < k
  EXPECT_EQ(gemm_argument_error('N', 'T', 4, 2, 3, 4, 1, 0), 10);  // ldb < n
  EXPECT_EQ(gemm_argument_error('N', 'N', 4, 2, 3, 4, 3, 3), 13);  // ldc < m
  EXPECT_EQ(gemm_argument_error('N', 'N', 0, 2, 0, 0, 1, 1), 8);   // lda < max(1, 0)
}

TEST(SyrkChecks, ReferenceOrderAndNumbers) {
  for (char uplo : {'U', 'l'}) {
    for (char trans : {'N', 't', 'C'}) EXPECT_EQ(syrk_argument_error(uplo, trans, 3, 4, 4, 3), 0);
  }
  EXPECT_EQ(syrk_argument_error('X', 'Y', -1, -1, 0, 0), 1);
  EXPECT_EQ(syrk_argument_error('U', 'Y', -1, -1, 0, 0), 2);
  EXPECT_EQ(syrk_argument_error('U', 'N', -1, -1, 0, 0), 3);
  EXPECT_EQ(syrk_argument_error('U', 'N', 2, -1, 0, 0), 4);
  EXPECT_EQ(syrk_argument_error('U', 'N', 4, 2, 3, 0), 7);   // lda < n
  EXPECT_EQ(syrk_argument_error('L', 'T', 4, 5, 4, 4), 7);   // lda < k
  EXPECT_EQ(syrk_argument_error('L', 'T', 4, 5, 5, 3), 10);  // ldc < n
  EXPECT_EQ(syrk_argument_error('U', 'N', 0, 0, 0, 1), 7);   // lda < max(1, 0)
}

TEST(GeqrfChecks, ReferenceOrderAndNumbers) {
  EXPECT_EQ(geqrf_argument_error(5, 3, 5, 3), 0);
  EXPECT_EQ(geqrf_argument_error(5, 3, 5, -1), 0);  // workspace query
  EXPECT_EQ(geqrf_argument_error(-1, -1, 0, 0), 1);
  EXPECT_EQ(geqrf_argument_error(5, -1, 0, 0), 2);
  EXPECT_EQ(geqrf_argument_error(5, 3, 4, 0), 4);
  EXPECT_EQ(geqrf_argument_error(5, 3, 5, 2), 7);
  EXPECT_EQ(geqrf_argument_error(5, 3, 5, 0), 7);
  EXPECT_EQ(geqrf_argument_error(0, 3, 1, 0), 7);  // LAPACK 3.11: lwork <= 0 is always bad
  EXPECT_EQ(geqrf_argument_error(0, 3, 1, 1), 0);  // m = 0 needs only lwork >= 1
  EXPECT_EQ(geqrf_argument_error(0, 0, 0, 1), 4);  // lda < max(1, m)
}

TEST(OrgqrChecks, ReferenceOrderAndNumbers) {
  EXPECT_EQ(orgqr_argument_error(5, 3, 2, 5, 3), 0);
  EXPECT_EQ(orgqr_argument_error(5, 3, 2, 5, -1), 0);  // workspace query
  EXPECT_EQ(orgqr_argument_error(0, 0, 0, 1, 1), 0);
  EXPECT_EQ(orgqr_argument_error(-1, -1, -1, 0, 0), 1);
  EXPECT_EQ(orgqr_argument_error(3, 4, -1, 0, 0), 2);  // n > m
  EXPECT_EQ(orgqr_argument_error(5, -1, 0, 0, 0), 2);
  EXPECT_EQ(orgqr_argument_error(5, 3, 4, 0, 0), 3);   // k > n
  EXPECT_EQ(orgqr_argument_error(5, 3, -1, 0, 0), 3);
  EXPECT_EQ(orgqr_argument_error(5, 3, 3, 4, 0), 5);
  EXPECT_EQ(orgqr_argument_error(5, 3, 3, 5, 2), 8);   // lwork < n
  EXPECT_EQ(orgqr_argument_error(0, 0, 0, 1, 0), 8);   // lwork < max(1, n)
}

TEST(OrmqrChecks, ReferenceOrderAndNumbers) {
  EXPECT_EQ(ormqr_argument_error('L', 'N', 6, 2, 3, 6, 6, 2), 0);
  EXPECT_EQ(ormqr_argument_error('r', 't', 6, 2, 2, 2, 6, 6), 0);  // Q is n x n from the right
  EXPECT_EQ(ormqr_argument_error('L', 'T', 6, 2, 3, 6, 6, -1), 0);  // workspace query
  EXPECT_EQ(ormqr_argument_error('X', 'Y', -1, -1, -1, 0, 0, 0), 1);
  EXPECT_EQ(ormqr_argument_error('L', 'C', -1, -1, -1, 0, 0, 0), 2);  // no 'C' for real Q
  EXPECT_EQ(ormqr_argument_error('L', 'N', -1, -1, -1, 0, 0, 0), 3);
  EXPECT_EQ(ormqr_argument_error('L', 'N', 6, -1, -1, 0, 0, 0), 4);
  EXPECT_EQ(ormqr_argument_error('L', 'N', 6, 2, 7, 0, 0, 0), 5);   // k > m from the left
  EXPECT_EQ(ormqr_argument_error('R', 'N', 6, 2, 3, 0, 0, 0), 5);   // k > n from the right
  EXPECT_EQ(ormqr_argument_error('L', 'N', 6, 2, 3, 5, 0, 0), 7);   // lda < m
  EXPECT_EQ(ormqr_argument_error('R', 'N', 6, 2, 2, 1, 0, 0), 7);   // lda < n
  EXPECT_EQ(ormqr_argument_error('L', 'N', 6, 2, 3, 6, 5, 0), 10);
  EXPECT_EQ(ormqr_argument_error('L', 'N', 6, 2, 3, 6, 6, 1), 12);  // lwork < n from the left
  EXPECT_EQ(ormqr_argument_error('R', 'N', 6, 2, 2, 2, 6, 5), 12);  // lwork < m from the right
}

}  // namespace
}  // namespace switchyard
