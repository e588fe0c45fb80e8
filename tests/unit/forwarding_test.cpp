// Calls through libswitchyard.so give exactly what reference BLAS/LAPACK
// give for the same arguments: with the default routing, small calls run in
// the fallback, bit for bit.
#include <gtest/gtest.h>

#include <vector>

#include "abi.hpp"
#include "reference_blas.hpp"

namespace switchyard::test {
namespace {

template <class T>
class Forwarding : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Forwarding, Precisions);

TYPED_TEST(Forwarding, GemmEveryTransposeMatchesReferenceBitForBit) {
  using T = TypeParam;
  const int m = 13, n = 7, k = 9, lda = 20, ldb = 21, ldc = 17;
  const T alpha = T(0.7), beta = T(-1.3);
  for (char ta : {'N', 'T', 'c'}) {
    for (char tb : {'n', 'T', 'C'}) {
      const std::vector<T> a = random_matrix<T>(std::size_t(lda) * 20, 1);
      const std::vector<T> b = random_matrix<T>(std::size_t(ldb) * 20, 2);
      std::vector<T> c = random_matrix<T>(std::size_t(ldc) * n, 3), expected = c;
      Abi<T>::gemm(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta,
                   c.data(), &ldc, 1, 1);
      reference_gemm<T>()(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta,
                          expected.data(), &ldc, 1, 1);
      EXPECT_EQ(c, expected) << ta << tb;
    }
  }
}

TYPED_TEST(Forwarding, CblasBothLayoutsMatchReference) {
  using T = TypeParam;
  const int m = 6, n = 5, k = 4;
  const T alpha = T(1.5), beta = T(0.5);
  const std::vector<T> a = random_matrix<T>(64, 4), b = random_matrix<T>(64, 5);
  for (int ta : {cblas_no_trans, cblas_trans, cblas_conj_trans}) {
    for (int tb : {cblas_no_trans, cblas_trans}) {
      const char fa = ta == cblas_no_trans ? 'N' : 'T', fb = tb == cblas_no_trans ? 'N' : 'T';
      // Column-major: A is m x k (or k x m), leading dimension 8.
      std::vector<T> c = random_matrix<T>(64, 6), expected = c;
      Abi<T>::cblas_gemm(cblas_col_major, ta, tb, m, n, k, alpha, a.data(), 8, b.data(), 8, beta,
                         c.data(), 8);
      const int ld = 8;
      reference_gemm<T>()(&fa, &fb, &m, &n, &k, &alpha, a.data(), &ld, b.data(), &ld, &beta,
                          expected.data(), &ld, 1, 1);
      EXPECT_EQ(c, expected);
      // Row-major C (m x n) is the column-major n x m product op(B)^T op(A)^T.
      c = random_matrix<T>(64, 7);
      expected = c;
      Abi<T>::cblas_gemm(cblas_row_major, ta, tb, m, n, k, alpha, a.data(), 8, b.data(), 8, beta,
                         c.data(), 8);
      reference_gemm<T>()(&fb, &fa, &n, &m, &k, &alpha, b.data(), &ld, a.data(), &ld, &beta,
                          expected.data(), &ld, 1, 1);
      EXPECT_EQ(c, expected);
    }
  }
}

TYPED_TEST(Forwarding, GeqrfMatchesReferenceAndAnswersWorkspaceQueries) {
  using T = TypeParam;
  const int m = 40, n = 12, lda = 45;
  std::vector<T> a = random_matrix<T>(std::size_t(lda) * n, 8), expected = a;
  std::vector<T> tau(n, T(-9)), expected_tau(n);
  T query = 0, reference_query = 0;
  int info = 99, minus_one = -1;
  Abi<T>::geqrf(&m, &n, a.data(), &lda, tau.data(), &query, &minus_one, &info);
  EXPECT_EQ(info, 0);
  reference_geqrf<T>()(&m, &n, expected.data(), &lda, expected_tau.data(), &reference_query,
                       &minus_one, &info);
  EXPECT_EQ(query, reference_query);
  const int lwork = int(query);
  std::vector<T> work(lwork);
  info = 99;
  Abi<T>::geqrf(&m, &n, a.data(), &lda, tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info, 0);
  reference_geqrf<T>()(&m, &n, expected.data(), &lda, expected_tau.data(), work.data(), &lwork,
                       &info);
  EXPECT_EQ(a, expected);
  EXPECT_EQ(tau, expected_tau);
}

TYPED_TEST(Forwarding, LapackeRowMajorFactorsTheTransposedMatrix) {
  using T = TypeParam;
  const int m = 9, n = 4, lda_row = 6;
  const std::vector<T> a_row = random_matrix<T>(std::size_t(m) * lda_row, 9);
  std::vector<T> a_col(std::size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) a_col[std::size_t(j) * m + i] = a_row[std::size_t(i) * lda_row + j];
  std::vector<T> row = a_row, tau_row(n), tau_col(n);
  EXPECT_EQ(Abi<T>::lapacke_geqrf(cblas_row_major, m, n, row.data(), lda_row, tau_row.data()), 0);
  EXPECT_EQ(Abi<T>::lapacke_geqrf(cblas_col_major, m, n, a_col.data(), m, tau_col.data()), 0);
  EXPECT_EQ(tau_row, tau_col);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      EXPECT_EQ(row[std::size_t(i) * lda_row + j], a_col[std::size_t(j) * m + i]);
  // Padding columns of the row-major array are left alone.
  for (int i = 0; i < m; ++i)
    for (int j = n; j < lda_row; ++j)
      EXPECT_EQ(row[std::size_t(i) * lda_row + j], a_row[std::size_t(i) * lda_row + j]);
}

TEST(Forwarding, UnsuffixedNamesAreTheSameRoutines) {
  const int m = 3, n = 2, k = 2;
  const double one = 1, zero = 0;
  const std::vector<double> a = random_matrix<double>(6, 10), b = random_matrix<double>(4, 11);
  std::vector<double> c1(6), c2(6);
  dgemm_("N", "N", &m, &n, &k, &one, a.data(), &m, b.data(), &k, &zero, c1.data(), &m, 1, 1);
  dgemm("N", "N", &m, &n, &k, &one, a.data(), &m, b.data(), &k, &zero, c2.data(), &m, 1, 1);
  EXPECT_EQ(c1, c2);
  std::vector<double> q = a, tau(2), work(64);
  const int lwork = 64;
  int info = 1;
  dgeqrf(&m, &n, q.data(), &m, tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info, 0);
}

}  // namespace
}  // namespace switchyard::test
