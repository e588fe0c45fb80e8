#include "routine.hpp"

#include <algorithm>

namespace switchyard {

const char* routine_name(Routine r) {
  switch (r) {
    case Routine::sgemm: return "sgemm";
    case Routine::dgemm: return "dgemm";
    case Routine::ssyrk: return "ssyrk";
    case Routine::dsyrk: return "dsyrk";
    case Routine::sgeqrf: return "sgeqrf";
    case Routine::dgeqrf: return "dgeqrf";
    case Routine::sorgqr: return "sorgqr";
    case Routine::dorgqr: return "dorgqr";
    case Routine::sormqr: return "sormqr";
    case Routine::dormqr: return "dormqr";
    case Routine::psgeqrf: return "psgeqrf";
    case Routine::pdgeqrf: return "pdgeqrf";
    case Routine::sgeqp3: return "sgeqp3";
    case Routine::dgeqp3: return "dgeqp3";
    case Routine::sgels: return "sgels";
    case Routine::dgels: return "dgels";
    case Routine::sgelsd: return "sgelsd";
    case Routine::dgelsd: return "dgelsd";
    case Routine::sgesdd: return "sgesdd";
    case Routine::dgesdd: return "dgesdd";
    case Routine::sgesvd: return "sgesvd";
    case Routine::dgesvd: return "dgesvd";
  }
  return "?";
}

bool single_precision(Routine r) { return routine_name(r)[r == Routine::psgeqrf ? 1 : 0] == 's'; }

double routine_flops(Routine r, const Shape& s) {
  const double m = double(s.m), n = double(s.n), k = double(s.k);
  switch (r) {
    case Routine::sgemm:
    case Routine::dgemm:
      return 2.0 * m * n * k;
    case Routine::ssyrk:
    case Routine::dsyrk:
      // One triangle of C = A A^T: k n (n + 1).
      return k * n * (n + 1.0);
    case Routine::sgeqrf:
    case Routine::dgeqrf:
    case Routine::psgeqrf:
    case Routine::pdgeqrf:
    case Routine::sgeqp3:
    case Routine::dgeqp3: {
      // Householder QR of an m x n matrix: 2 n^2 (m - n/3) when m >= n. Column pivoting adds
      // only the norms' updates, O(m n).
      const double big = std::max(m, n), small = std::min(m, n);
      return 2.0 * small * small * (big - small / 3.0);
    }
    case Routine::sorgqr:
    case Routine::dorgqr:
      // m x n Q from k reflectors: 4 m n k - 2 (m + n) k^2 + 4/3 k^3.
      return 4.0 * m * n * k - 2.0 * (m + n) * k * k + 4.0 / 3.0 * k * k * k;
    case Routine::sormqr:
    case Routine::dormqr: {
      // k reflectors applied to an m x n C from the left: 4 m n k - 2 n k^2.
      const bool left = s.transa == 'L';
      return left ? 4.0 * m * n * k - 2.0 * n * k * k : 4.0 * m * n * k - 2.0 * m * k * k;
    }
    case Routine::sgels:
    case Routine::dgels:
    case Routine::sgelsd:
    case Routine::dgelsd: {
      // A's QR (LQ when m < n), its Q^T applied to the k right-hand sides, the triangular solve
      // (xGELSD's SVD of R adds O(n^3), left out).
      const double big = std::max(m, n), small = std::min(m, n);
      return 2.0 * small * small * (big - small / 3.0) + 4.0 * big * k * small -
             2.0 * k * small * small + k * small * small;
    }
    case Routine::sgesdd:
    case Routine::dgesdd:
    case Routine::sgesvd:
    case Routine::dgesvd: {
      // A's QR, and for the left singular vectors its Q applied to the small SVD's (the SVD of R
      // adds O(n^3), left out). transa is JOBZ, or xGESVD's JOBU.
      const double big = std::max(m, n), small = std::min(m, n);
      const double qr = 2.0 * small * small * (big - small / 3.0);
      return s.transa == 'N' ? qr : qr + 4.0 * big * small * small - 2.0 * small * small * small;
    }
  }
  return 0.0;
}

}  // namespace switchyard
