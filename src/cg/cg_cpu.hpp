// Conjugate gradients on host threads, Jacobi-preconditioned or plain, on
// half-storage DIA or full CSR. One team of threads runs the whole solve,
// each on its own rows: per iteration a p update, the product with p'Ap
// folded in, and one pass that updates x, r and z with r'z, r'r and the
// stopping criterion's sums folded in; three barriers, two of them
// reductions.
#pragma once

#include "cg/cg_params.hpp"
#include "cg/matrix.hpp"

namespace switchyard::cg {

// Solves A x = b. Stops on convergence, after max_iterations, when p'Ap <= 0
// (not SPD), r'z <= 0 (preconditioner not SPD) or on a NaN or infinity;
// never runs past max_iterations. With Jacobi, a diagonal entry <= 0 stops
// it before the first iteration. Runs on `threads` threads (fewer if n is
// smaller, or if some cannot be started); cg_cpu_threads(n) is the choice
// worth making on this machine.
template <class Matrix>
CgOutcome cg_cpu(const Matrix& a, const double* b, double* x, const CgParams& params,
                 int threads);

// Threads worth using for n rows on this machine.
int cg_cpu_threads(Index n);

}  // namespace switchyard::cg
