#include "routine.hpp"

#include <algorithm>

namespace switchyard {

const char* routine_name(Routine r) {
  switch (r) {
    case Routine::sgemm: return "sgemm";
    case Routine::dgemm: return "dgemm";
    case Routine::sgeqrf: return "sgeqrf";
    case Routine::dgeqrf: return "dgeqrf";
  }
  return "?";
}

double routine_flops(Routine r, const Shape& s) {
  const double m = double(s.m), n = double(s.n), k = double(s.k);
  switch (r) {
    case Routine::sgemm:
    case Routine::dgemm:
      return 2.0 * m * n * k;
    case Routine::sgeqrf:
    case Routine::dgeqrf: {
      // Householder QR of an m x n matrix: 2 n^2 (m - n/3) when m >= n.
      const double big = std::max(m, n), small = std::min(m, n);
      return 2.0 * small * small * (big - small / 3.0);
    }
  }
  return 0.0;
}

}  // namespace switchyard
