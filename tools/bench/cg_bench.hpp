#pragma once

namespace switchyard::bench {

// `switchyard bench cg`: the sparse CG's half-storage DIA SpMV and CG on the FEM Poisson
// problem against full-storage DIA, cuSPARSE CSR SpMV and a cuSPARSE + cuBLAS CG.
int cg_main(int argc, char** argv);

}  // namespace switchyard::bench
