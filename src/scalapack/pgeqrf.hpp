// ScaLAPACK's pxGEQRF as Switchyard runs it: a tall-skinny sub(A) whose columns lie in one
// process column runs as a TSQR over the process rows, each process's rows on its GPU where that
// pays (gpu_ranks.hpp), else on its cores (distributed_tsqr.hpp); every other
// call, and every call with an argument ScaLAPACK would reject, goes to ScaLAPACK's own
// pxGEQRF, which checks and reports as always. The trace says which, and why.
//
// Whether to take a call, and where, is agreed by all processes of the grid with one all-gather
// before anything is written: a process may decline for a reason of its own (its LWORK or LLD,
// its memory, its device), and the others must then decline with it, as ScaLAPACK's collectives
// need them all.
#pragma once

namespace switchyard::scalapack {

// The Fortran pxGEQRF: every argument by reference.
template <class T>
using PgeqrfFn = void(const int* m, const int* n, T* a, const int* ia, const int* ja,
                      const int* desca, T* tau, T* work, const int* lwork, int* info);

template <class T>
void pgeqrf(int m, int n, T* a, int ia, int ja, const int* desca, T* tau, T* work, int lwork,
            int* info, PgeqrfFn<T>* scalapack);

}  // namespace switchyard::scalapack
