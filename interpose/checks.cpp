#include "checks.hpp"

#include <algorithm>
#include <cctype>

namespace switchyard {

bool same_letter(char a, char b) {
  return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
}

int gemm_argument_error(char transa, char transb, int m, int n, int k, int lda, int ldb,
                        int ldc) {
  const bool nota = same_letter(transa, 'N');
  const bool notb = same_letter(transb, 'N');
  const int nrowa = nota ? m : k;
  const int nrowb = notb ? k : n;
  if (!nota && !same_letter(transa, 'C') && !same_letter(transa, 'T')) return 1;
  if (!notb && !same_letter(transb, 'C') && !same_letter(transb, 'T')) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max(1, nrowa)) return 8;
  if (ldb < std::max(1, nrowb)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

int geqrf_argument_error(int m, int n, int lda, int lwork) {
  if (m < 0) return 1;
  if (n < 0) return 2;
  if (lda < std::max(1, m)) return 4;
  const bool query = lwork == -1;
  if (!query && (lwork <= 0 || (m > 0 && lwork < std::max(1, n)))) return 7;
  return 0;
}

}  // namespace switchyard
