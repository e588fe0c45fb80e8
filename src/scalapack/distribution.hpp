// ScaLAPACK's block-cyclic distribution as pxGEQRF sees it: the check it makes of its
// arguments on each process (TOOLS/chk1mat.f), the workspace it asks for, and whether the
// submatrix sub(A) = A(IA:IA+M-1, JA:JA+N-1) is laid out so that a TSQR over the process rows
// can take it. Pure functions of the arguments and the grid, so that every rule is tested
// without MPI.
#pragma once

#include <cstdint>

namespace switchyard::scalapack {

// The nine entries of a ScaLAPACK array descriptor (DTYPE_ .. LLD_).
struct Descriptor {
  int dtype, ctxt, m, n, mb, nb, rsrc, csrc, lld;
};
Descriptor descriptor_from(const int* desc);

// BLACS_GRIDINFO's answer for this process; nprow is -1 outside the grid.
struct Grid {
  int nprow, npcol, myrow, mycol;
};

// ScaLAPACK's NUMROC: how many of n items dealt in blocks of nb over nprocs processes, from
// process isrc on, process iproc holds.
int numroc(int n, int nb, int iproc, int isrc, int nprocs);

// ScaLAPACK's INDXG2P: the process holding global index `global` (1-based).
int index_owner(int global, int nb, int src, int nprocs);

// CHK1MAT(M, 1, N, 2, IA, JA, DESCA, 6, INFO) as pxGEQRF calls it on this process: 0 when
// the arguments pass, else the negated number of the first failing one (600 + entry for
// DESCA's entries).
int check_arguments(int m, int n, int ia, int ja, const Descriptor& d, const Grid& g);

// pxGEQRF's LWMIN on this process: NB (MP0 + NQ0 + NB), which it also returns in WORK(1).
std::int64_t minimum_lwork(int m, int n, int ia, int ja, const Descriptor& d, const Grid& g);

// Why a TSQR over the process rows cannot take sub(A) whatever the sizes, or null: its N
// columns must lie in one process column (a P x 1 grid, or JA's column block holding all N),
// and M >= N >= 1.
const char* layout_declines(int m, int n, int ia, int ja, const Descriptor& d, const Grid& g);

// The widest sub(A) the TSQR on the processes' GPUs takes, as the one-GPU QR: panels of 64
// columns, each a TSQR over the processes.
constexpr int kGpuRanksMaxColumns = 256;

// Why the TSQR on the processes' GPUs cannot take a sub(A) that layout_declines takes, or
// null: each process's rows are one device tree a panel, so none may hold fewer than N rows but
// some, and one process forms the top rows of each panel's Q, so sub(A)'s first N rows must be
// that process's first rows (one row block holds them, or there is one process row).
const char* gpu_layout_declines(int m, int n, int ia, const Descriptor& d, const Grid& g);

// Where row i of sub(A) (0-based) lies: the process row, and its position among that process
// row's rows of sub(A) (0-based), which are stored one after the other in global order.
struct RowPlace {
  int prow;
  int index;
};
RowPlace row_place(int i, int ia, const Descriptor& d, int nprow);

// This process's share of sub(A) when the layout is taken.
struct Share {
  bool in_column = false;  // this process lies in the process column holding sub(A)
  int rows = 0;            // its rows of sub(A), possibly none
  int first_row = 0;       // local (0-based) row of the first of them in the local array
  int first_col = 0;       // local (0-based) column of JA in the local array (and in TAU)
  int column = 0;          // the process column holding sub(A)
};
Share share_of(int m, int ia, int ja, const Descriptor& d, const Grid& g);

}  // namespace switchyard::scalapack
