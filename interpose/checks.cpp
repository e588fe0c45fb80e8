#include "checks.hpp"

#include <algorithm>

namespace switchyard {

int gemm_argument_error(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k,
                        std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
  const bool nota = same_letter(transa, 'N');
  const bool notb = same_letter(transb, 'N');
  const std::int64_t nrowa = nota ? m : k;
  const std::int64_t nrowb = notb ? k : n;
  if (!nota && !same_letter(transa, 'C') && !same_letter(transa, 'T')) return 1;
  if (!notb && !same_letter(transb, 'C') && !same_letter(transb, 'T')) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max<std::int64_t>(1, nrowa)) return 8;
  if (ldb < std::max<std::int64_t>(1, nrowb)) return 10;
  if (ldc < std::max<std::int64_t>(1, m)) return 13;
  return 0;
}

int syrk_argument_error(char uplo, char trans, std::int64_t n, std::int64_t k, std::int64_t lda,
                        std::int64_t ldc) {
  const std::int64_t nrowa = same_letter(trans, 'N') ? n : k;
  if (!same_letter(uplo, 'U') && !same_letter(uplo, 'L')) return 1;
  if (!same_letter(trans, 'N') && !same_letter(trans, 'T') && !same_letter(trans, 'C')) return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < std::max<std::int64_t>(1, nrowa)) return 7;
  if (ldc < std::max<std::int64_t>(1, n)) return 10;
  return 0;
}

int geqrf_argument_error(std::int64_t m, std::int64_t n, std::int64_t lda, std::int64_t lwork) {
  if (m < 0) return 1;
  if (n < 0) return 2;
  if (lda < std::max<std::int64_t>(1, m)) return 4;
  const bool query = lwork == -1;
  if (!query && (lwork <= 0 || (m > 0 && lwork < std::max<std::int64_t>(1, n)))) return 7;
  return 0;
}

int geqp3_argument_error(std::int64_t m, std::int64_t n, std::int64_t lda, std::int64_t lwork) {
  if (m < 0) return 1;
  if (n < 0) return 2;
  if (lda < std::max<std::int64_t>(1, m)) return 4;
  const std::int64_t least = std::min(m, n) == 0 ? 1 : 3 * n + 1;
  if (lwork != -1 && lwork < least) return 8;
  return 0;
}

int gels_argument_error(char trans, std::int64_t m, std::int64_t n, std::int64_t nrhs,
                        std::int64_t lda, std::int64_t ldb, std::int64_t lwork) {
  const std::int64_t mn = std::min(m, n);
  if (!same_letter(trans, 'N') && !same_letter(trans, 'T')) return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (nrhs < 0) return 4;
  if (lda < std::max<std::int64_t>(1, m)) return 6;
  if (ldb < std::max<std::int64_t>({1, m, n})) return 8;
  if (lwork != -1 && lwork < std::max<std::int64_t>(1, mn + std::max(mn, nrhs))) return 10;
  return 0;
}

int orgqr_argument_error(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda,
                         std::int64_t lwork) {
  if (m < 0) return 1;
  if (n < 0 || n > m) return 2;
  if (k < 0 || k > n) return 3;
  if (lda < std::max<std::int64_t>(1, m)) return 5;
  if (lwork != -1 && lwork < std::max<std::int64_t>(1, n)) return 8;
  return 0;
}

int ormqr_argument_error(char side, char trans, std::int64_t m, std::int64_t n, std::int64_t k,
                         std::int64_t lda, std::int64_t ldc, std::int64_t lwork) {
  const bool left = same_letter(side, 'L');
  const std::int64_t nq = left ? m : n;  // the order of Q
  const std::int64_t nw = std::max<std::int64_t>(1, left ? n : m);
  if (!left && !same_letter(side, 'R')) return 1;
  if (!same_letter(trans, 'N') && !same_letter(trans, 'T')) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0 || k > nq) return 5;
  if (lda < std::max<std::int64_t>(1, nq)) return 7;
  if (ldc < std::max<std::int64_t>(1, m)) return 10;
  if (lwork != -1 && lwork < nw) return 12;
  return 0;
}

int geqrt_argument_error(std::int64_t m, std::int64_t n, std::int64_t nb, std::int64_t lda,
                         std::int64_t ldt) {
  const std::int64_t k = std::min(m, n);
  if (m < 0) return 1;
  if (n < 0) return 2;
  if (nb < 1 || (nb > k && k > 0)) return 3;
  if (lda < std::max<std::int64_t>(1, m)) return 5;
  if (ldt < nb) return 7;
  return 0;
}

int gemqrt_argument_error(char side, char trans, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t nb, std::int64_t ldv, std::int64_t ldt, std::int64_t ldc) {
  const bool left = same_letter(side, 'L');
  const std::int64_t q = left ? m : n;  // the order of Q
  if (!left && !same_letter(side, 'R')) return 1;
  if (!same_letter(trans, 'N') && !same_letter(trans, 'T')) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0 || k > q) return 5;
  if (nb < 1 || (nb > k && k > 0)) return 6;
  if (ldv < std::max<std::int64_t>(1, q)) return 8;
  if (ldt < nb) return 10;
  if (ldc < std::max<std::int64_t>(1, m)) return 12;
  return 0;
}

int gemqr_argument_error(char side, char trans, std::int64_t m, std::int64_t n, std::int64_t k,
                         std::int64_t lda, std::int64_t tsize, std::int64_t ldc,
                         std::int64_t lwork, std::int64_t lw) {
  const bool left = same_letter(side, 'L');
  const std::int64_t q = left ? m : n;  // the order of Q
  if (!left && !same_letter(side, 'R')) return 1;
  if (!same_letter(trans, 'N') && !same_letter(trans, 'T')) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0 || k > q) return 5;
  if (lda < std::max<std::int64_t>(1, q)) return 7;
  if (tsize < 5) return 9;
  if (ldc < std::max<std::int64_t>(1, m)) return 11;
  if (lwork < std::max<std::int64_t>(1, lw) && lwork != -1) return 13;
  return 0;
}

}  // namespace switchyard
