#include "distribution.hpp"

#include <algorithm>

namespace switchyard::scalapack {
namespace {

// CHK1MAT keeps the smallest of these codes: a multiple of 100 names an argument (M is 1,
// N 2, IA 4, JA 5, DESCA 6), DESCA's entries add their number to 600.
constexpr int kMultiplier = 100;
constexpr int kNone = 1000000;
constexpr int kM = 1 * kMultiplier, kN = 2 * kMultiplier, kIa = 4 * kMultiplier,
              kJa = 5 * kMultiplier, kDesc = 6 * kMultiplier;
enum Entry : int { kDtype = 1, kCtxt, kRows, kCols, kMb, kNb, kRsrc, kCsrc, kLld };
constexpr int kBlockCyclic2d = 1;

}  // namespace

Descriptor descriptor_from(const int* desc) {
  return {desc[0], desc[1], desc[2], desc[3], desc[4], desc[5], desc[6], desc[7], desc[8]};
}

int numroc(int n, int nb, int iproc, int isrc, int nprocs) {
  const int distance = (nprocs + iproc - isrc) % nprocs;
  const int blocks = n / nb;
  int count = blocks / nprocs * nb;
  const int extra = blocks % nprocs;
  if (distance < extra) {
    count += nb;
  } else if (distance == extra) {
    count += n % nb;
  }
  return count;
}

int index_owner(int global, int nb, int src, int nprocs) {
  return (src + (global - 1) / nb) % nprocs;
}

int check_arguments(int m, int n, int ia, int ja, const Descriptor& d, const Grid& g) {
  int info = kNone;
  const auto fail = [&info](int code) { info = std::min(info, code); };
  if (d.dtype != kBlockCyclic2d) {
    fail(kDesc + kDtype);
  } else if (m < 0) {
    fail(kM);
  } else if (n < 0) {
    fail(kN);
  } else if (ia < 1) {
    fail(kIa);
  } else if (ja < 1) {
    fail(kJa);
  } else if (d.mb < 1) {
    fail(kDesc + kMb);
  } else if (d.nb < 1) {
    fail(kDesc + kNb);
  } else if (d.rsrc < 0 || d.rsrc >= g.nprow) {
    fail(kDesc + kRsrc);
  } else if (d.csrc < 0 || d.csrc >= g.npcol) {
    fail(kDesc + kCsrc);
  } else if (d.lld < 1) {
    fail(kDesc + kLld);
  } else if (d.lld < numroc(d.m, d.mb, g.myrow, d.rsrc, g.nprow) &&
             numroc(d.n, d.nb, g.mycol, d.csrc, g.npcol) > 0) {
    // A process holding no column of A may have any leading dimension.
    fail(kDesc + kLld);
  }
  if (m == 0 || n == 0) {
    if (d.m < 0) fail(kDesc + kRows);
    if (d.n < 0) fail(kDesc + kCols);
  } else if (d.m < 1) {
    fail(kDesc + kRows);
  } else if (d.n < 1) {
    fail(kDesc + kCols);
  } else if (ia > d.m) {
    fail(kIa);
  } else if (ja > d.n) {
    fail(kJa);
  } else {
    if (std::int64_t{ia} + m - 1 > d.m) fail(kM);
    if (std::int64_t{ja} + n - 1 > d.n) fail(kN);
  }
  if (info == kNone) return 0;
  return info % kMultiplier == 0 ? -info / kMultiplier : -info;
}

std::int64_t minimum_lwork(int m, int n, int ia, int ja, const Descriptor& d, const Grid& g) {
  const int row_offset = (ia - 1) % d.mb;
  const int col_offset = (ja - 1) % d.nb;
  const int first_prow = index_owner(ia, d.mb, d.rsrc, g.nprow);
  const int first_pcol = index_owner(ja, d.nb, d.csrc, g.npcol);
  const std::int64_t mp0 = numroc(m + row_offset, d.mb, g.myrow, first_prow, g.nprow);
  const std::int64_t nq0 = numroc(n + col_offset, d.nb, g.mycol, first_pcol, g.npcol);
  return std::int64_t{d.nb} * (mp0 + nq0 + d.nb);
}

const char* layout_declines(int m, int n, int, int ja, const Descriptor& d, const Grid& g) {
  if (n < 1) return "sub(A) has no columns";
  if (m < n) return "TSQR needs M >= N";
  if (g.npcol > 1 && (ja - 1) % d.nb + std::int64_t{n} > d.nb) {
    return "sub(A)'s columns span several process columns (NB < the columns JA's block needs)";
  }
  return nullptr;
}

const char* gpu_layout_declines(int m, int n, int ia, const Descriptor& d, const Grid& g) {
  if (n > kGpuRanksMaxColumns) return "N > 256: wider than the GPU QR takes";
  if (g.nprow > 1 && (ia - 1) % d.mb + std::int64_t{n} > d.mb) {
    return "sub(A)'s first N rows span several process rows (MB < the rows IA's block needs)";
  }
  for (int p = 0; p < g.nprow; ++p) {
    const int rows =
        numroc(ia - 1 + m, d.mb, p, d.rsrc, g.nprow) - numroc(ia - 1, d.mb, p, d.rsrc, g.nprow);
    if (rows > 0 && rows < n) return "a process holds fewer than N rows of sub(A), but some";
  }
  return nullptr;
}

RowPlace row_place(int i, int ia, const Descriptor& d, int nprow) {
  const int global = ia - 1 + i;  // 0-based
  const int prow = index_owner(global + 1, d.mb, d.rsrc, nprow);
  return {prow,
          numroc(global, d.mb, prow, d.rsrc, nprow) - numroc(ia - 1, d.mb, prow, d.rsrc, nprow)};
}

Share share_of(int m, int ia, int ja, const Descriptor& d, const Grid& g) {
  Share s;
  s.column = index_owner(ja, d.nb, d.csrc, g.npcol);
  s.in_column = g.mycol == s.column;
  // The local rows before IA, and those before IA + M, are each a prefix of the local rows.
  const int before = numroc(ia - 1, d.mb, g.myrow, d.rsrc, g.nprow);
  s.first_row = before;
  s.rows = numroc(ia - 1 + m, d.mb, g.myrow, d.rsrc, g.nprow) - before;
  s.first_col = numroc(ja - 1, d.nb, g.mycol, d.csrc, g.npcol);
  return s;
}

}  // namespace switchyard::scalapack
