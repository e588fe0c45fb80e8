// Feeds the entry points' argument checks (interpose/checks.hpp) arbitrary
// option letters and small dimensions, and holds each answer against the
// reference BLAS/LAPACK routine's own: the XERBLA number it reports for the
// same arguments, or none. Dimensions stay small so that the reference may
// run whenever it finds the arguments valid.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "checks.hpp"

extern "C" {
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*, std::size_t, std::size_t);
void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, const double*, double*, const int*, std::size_t, std::size_t);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
void dormqr_(const char*, const char*, const int*, const int*, const int*, const double*,
             const int*, const double*, double*, const int*, double*, const int*, int*,
             std::size_t, std::size_t);
}

namespace {

// The parameter number the reference routine last reported, 0 for none.
int reported = 0;

// Bounds of the arguments: every array below fits any of them.
constexpr int kMaxOrder = 16, kMaxLeading = 40, kMaxWork = 64;

}  // namespace

// The reference routines report to XERBLA; this one records instead of
// printing and stopping.
extern "C" void xerbla_(const char*, const int* info, std::size_t) { reported = *info; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int routine = in.ConsumeIntegralInRange(0, 4);
  const char c1 = in.ConsumeIntegral<char>(), c2 = in.ConsumeIntegral<char>();
  const auto order = [&] { return in.ConsumeIntegralInRange(-2, kMaxOrder); };
  const auto leading = [&] { return in.ConsumeIntegralInRange(-2, kMaxLeading); };
  const int m = order(), n = order(), k = order(), lda = leading(), ldb = leading(),
            ldc = leading(), lwork = in.ConsumeIntegralInRange(-2, kMaxWork);

  std::vector<double> a(kMaxLeading * kMaxOrder), b(a.size()), c(a.size()), tau(kMaxOrder),
      work(kMaxWork);
  const double one = 1.0;
  int ours = 0, info = 0;
  reported = 0;
  switch (routine) {
    case 0:
      ours = switchyard::gemm_argument_error(c1, c2, m, n, k, lda, ldb, ldc);
      dgemm_(&c1, &c2, &m, &n, &k, &one, a.data(), &lda, b.data(), &ldb, &one, c.data(), &ldc,
             1, 1);
      break;
    case 1:
      ours = switchyard::syrk_argument_error(c1, c2, n, k, lda, ldc);
      dsyrk_(&c1, &c2, &n, &k, &one, a.data(), &lda, &one, c.data(), &ldc, 1, 1);
      break;
    case 2:
      ours = switchyard::geqrf_argument_error(m, n, lda, lwork);
      dgeqrf_(&m, &n, a.data(), &lda, tau.data(), work.data(), &lwork, &info);
      break;
    case 3:
      ours = switchyard::orgqr_argument_error(m, n, k, lda, lwork);
      dorgqr_(&m, &n, &k, a.data(), &lda, tau.data(), work.data(), &lwork, &info);
      break;
    default:
      ours = switchyard::ormqr_argument_error(c1, c2, m, n, k, lda, ldc, lwork);
      dormqr_(&c1, &c2, &m, &n, &k, a.data(), &lda, tau.data(), c.data(), &ldc, work.data(),
              &lwork, &info, 1, 1);
      break;
  }
  if (ours != reported) std::abort();
  return 0;
}
