// Bad arguments reach the program's own error handlers, with the routine
// name and parameter number reference BLAS/LAPACK/CBLAS/LAPACKE give, and
// no output array is touched.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "abi.hpp"

namespace {

struct Handled {
  std::string name;
  int info = 0;
  int row_major = -1;  // RowMajorStrg as the handler saw it
  int calls = 0;
};
Handled handled;

}  // namespace

// The program's own handlers, as the BLAS and LAPACK test programs define them.
extern "C" {
int RowMajorStrg = 0;
int CBLAS_CallFromC = 0;

void xerbla_(const char* srname, const int* info, std::size_t len) {
  handled = {std::string(srname, len), *info, RowMajorStrg, handled.calls + 1};
}

void cblas_xerbla(int info, const char* rout, const char*, ...) {
  handled = {rout, info, RowMajorStrg, handled.calls + 1};
}

void LAPACKE_xerbla(const char* name, int info) {
  handled = {name, info, -1, handled.calls + 1};
}
}

namespace switchyard::test {
namespace {

class Errors : public ::testing::Test {
 protected:
  void SetUp() override { handled = {}; }
};

// Calls dgemm_ with one argument spoiled, C poisoned, and expects XERBLA.
void expect_gemm_error(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc,
                       int expected) {
  handled = {};
  std::vector<double> a(64, 1.0), b(64, 1.0), c(64, 7.0);
  const double alpha = 1, beta = 0;
  dgemm_(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c.data(), &ldc, 1,
         1);
  EXPECT_EQ(handled.calls, 1);
  EXPECT_EQ(handled.name, "DGEMM ");
  EXPECT_EQ(handled.info, expected);
  EXPECT_EQ(c, std::vector<double>(64, 7.0));
}

TEST_F(Errors, GemmEveryParameterInReferenceOrder) {
  expect_gemm_error('X', 'N', 2, 2, 2, 2, 2, 2, 1);
  expect_gemm_error('N', 'x', 2, 2, 2, 2, 2, 2, 2);
  expect_gemm_error('N', 'N', -1, 2, 2, 2, 2, 2, 3);
  expect_gemm_error('N', 'N', 2, -1, 2, 2, 2, 2, 4);
  expect_gemm_error('N', 'N', 2, 2, -1, 2, 2, 2, 5);
  expect_gemm_error('N', 'N', 3, 2, 2, 2, 2, 3, 8);
  expect_gemm_error('T', 'N', 2, 2, 3, 2, 3, 2, 8);
  expect_gemm_error('N', 'N', 2, 2, 3, 2, 2, 2, 10);
  expect_gemm_error('N', 'N', 3, 2, 2, 3, 2, 2, 13);
}

TEST_F(Errors, SgemmUsesItsOwnName) {
  const int m = -1, n = 1, k = 1, ld = 1;
  const float one = 1;
  float x = 0;
  sgemm_("N", "N", &m, &n, &k, &one, &x, &ld, &x, &ld, &one, &x, &ld, 1, 1);
  EXPECT_EQ(handled.name, "SGEMM ");
  EXPECT_EQ(handled.info, 3);
}

TEST_F(Errors, GeqrfSetsInfoAndCallsXerbla) {
  std::vector<double> a(16, 5.0), tau(4, 3.0), work(16);
  struct Case {
    int m, n, lda, lwork, parameter;
  };
  for (const Case& c : {Case{-1, 2, 1, 4, 1}, Case{2, -2, 2, 4, 2}, Case{4, 2, 3, 4, 4},
                        Case{4, 3, 4, 2, 7}, Case{0, 2, 1, 0, 7}}) {
    handled = {};
    int info = 0;
    dgeqrf_(&c.m, &c.n, a.data(), &c.lda, tau.data(), work.data(), &c.lwork, &info);
    EXPECT_EQ(info, -c.parameter);
    EXPECT_EQ(handled.name, "DGEQRF");
    EXPECT_EQ(handled.info, c.parameter);
  }
  EXPECT_EQ(a, std::vector<double>(16, 5.0));
  EXPECT_EQ(tau, std::vector<double>(4, 3.0));
}

TEST_F(Errors, OrgqrAndOrmqrSetInfoAndCallXerbla) {
  std::vector<double> a(16, 5.0), tau(4, 3.0), c(16, 2.0), work(16);
  const int m = 4, n = 2, k = 2, lda = 4, lwork = 16, bad_k = 3, bad_ldc = 3;
  int info = 0;
  dorgqr_(&m, &n, &bad_k, a.data(), &lda, tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info, -3);
  EXPECT_EQ(handled.name, "DORGQR");
  EXPECT_EQ(handled.info, 3);
  handled = {};
  dormqr_("L", "N", &m, &n, &k, a.data(), &lda, tau.data(), c.data(), &bad_ldc, work.data(),
          &lwork, &info, 1, 1);
  EXPECT_EQ(info, -10);
  EXPECT_EQ(handled.name, "DORMQR");
  EXPECT_EQ(handled.info, 10);
  handled = {};
  dormqr_("L", "C", &m, &n, &k, a.data(), &lda, tau.data(), c.data(), &lda, work.data(), &lwork,
          &info, 1, 1);
  EXPECT_EQ(info, -2);
  EXPECT_EQ(a, std::vector<double>(16, 5.0));
  EXPECT_EQ(c, std::vector<double>(16, 2.0));
}

TEST_F(Errors, CblasCodesGoToCblasXerbla) {
  double x[4] = {};
  cblas_dgemm(99, cblas_no_trans, cblas_no_trans, 1, 1, 1, 1.0, x, 1, x, 1, 0.0, x, 1);
  EXPECT_EQ(handled.name, "cblas_dgemm");
  EXPECT_EQ(handled.info, 1);
  cblas_dgemm(cblas_col_major, 7, cblas_no_trans, 1, 1, 1, 1.0, x, 1, x, 1, 0.0, x, 1);
  EXPECT_EQ(handled.info, 2);
  cblas_sgemm(cblas_row_major, cblas_no_trans, 7, 1, 1, 1, 1.0f, nullptr, 1, nullptr, 1, 0.0f,
              nullptr, 1);
  EXPECT_EQ(handled.name, "cblas_sgemm");
  EXPECT_EQ(handled.info, 3);
  EXPECT_EQ(handled.row_major, 1);
}

TEST_F(Errors, CblasRowMajorReportsTheSwappedFortranCall) {
  double x[4] = {};
  // Row-major M < 0 is N < 0 of the swapped column-major call: parameter 4,
  // which the CBLAS test's handlers map back using RowMajorStrg.
  cblas_dgemm(cblas_row_major, cblas_no_trans, cblas_no_trans, -1, 1, 1, 1.0, x, 1, x, 1, 0.0, x,
              1);
  EXPECT_EQ(handled.name, "DGEMM ");
  EXPECT_EQ(handled.info, 4);
  EXPECT_EQ(handled.row_major, 1);
  EXPECT_EQ(RowMajorStrg, 0);
  EXPECT_EQ(CBLAS_CallFromC, 0);
  cblas_dgemm(cblas_col_major, cblas_no_trans, cblas_no_trans, -1, 1, 1, 1.0, x, 1, x, 1, 0.0, x,
              1);
  EXPECT_EQ(handled.info, 3);
  EXPECT_EQ(handled.row_major, 0);
}

TEST_F(Errors, LapackeReferenceCodes) {
  std::vector<double> a(16, 1.0), tau(4);
  EXPECT_EQ(LAPACKE_dgeqrf(5, 2, 2, a.data(), 2, tau.data()), -1);
  EXPECT_EQ(handled.name, "LAPACKE_dgeqrf");
  EXPECT_EQ(handled.info, -1);
  EXPECT_EQ(LAPACKE_dgeqrf(cblas_row_major, 4, 3, a.data(), 2, tau.data()), -5);
  EXPECT_EQ(handled.name, "LAPACKE_dgeqrf_work");
  EXPECT_EQ(handled.info, -5);
  handled = {};
  EXPECT_EQ(LAPACKE_dgeqrf(cblas_col_major, -1, 2, a.data(), 2, tau.data()), -2);
  EXPECT_EQ(handled.name, "DGEQRF");  // the Fortran check, as reference LAPACKE reaches it
  EXPECT_EQ(handled.info, 1);
}

TEST_F(Errors, LapackeNanCheckRejectsNanWithoutTouchingA) {
  std::vector<double> a(9, 1.0), tau(3, 4.0);
  a[4] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(LAPACKE_dgeqrf(cblas_col_major, 3, 3, a.data(), 3, tau.data()), -4);
  EXPECT_TRUE(std::isnan(a[4]));
  EXPECT_EQ(a[0], 1.0);
  EXPECT_EQ(tau, std::vector<double>(3, 4.0));
  EXPECT_EQ(handled.calls, 0);
}

}  // namespace
}  // namespace switchyard::test
