// The anchor of `switchyard bench cg`: a straightforward Jacobi-preconditioned
// CG from cuSPARSE's CSR SpMV and cuBLAS's level-1 routines, dots returned to
// the host (the CUDA samples' conjugateGradient with a preconditioner).
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>

#include "dia_compare.hpp"

namespace switchyard::bench {

// y = A x through cusparseSpMV, its workspace kept across calls.
class CusparseSpmv {
 public:
  CusparseSpmv(cusparseHandle_t h, const DeviceCsr<double>& a, double* x, double* y);
  ~CusparseSpmv();
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;
  bool ok() const { return ok_; }
  void run();  // on the handle's stream

 private:
  cusparseHandle_t handle_;
  cusparseSpMatDescr_t a_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  void* buffer_ = nullptr;
  bool ok_ = false;
};

struct ReferenceCg {
  int iterations = 0;
  bool converged = false;
};

// Solves from x = 0 until ||r|| / ||b|| <= tolerance (r recursive, as in the
// library's CG), with inverse_diagonal as the Jacobi preconditioner;
// `work` holds 4 n doubles.
ReferenceCg cusparse_cg(cusparseHandle_t sparse, cublasHandle_t blas, const DeviceCsr<double>& a,
                        const double* inverse_diagonal, const double* b, double* x, double* work,
                        double tolerance, int max_iterations);

}  // namespace switchyard::bench
