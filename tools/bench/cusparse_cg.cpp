#include "cusparse_cg.hpp"

#include <cuda_runtime.h>

#include <cmath>

namespace switchyard::bench {

CusparseSpmv::CusparseSpmv(cusparseHandle_t h, const DeviceCsr<double>& a, double* x, double* y)
    : handle_(h) {
  std::size_t bytes = 0;
  const double one = 1.0, zero = 0.0;
  ok_ = cusparseCreateCsr(&a_, a.n, a.n, a.nnz, a.row_ptr, a.col, a.val, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                          CUDA_R_64F) == CUSPARSE_STATUS_SUCCESS &&
        cusparseCreateDnVec(&x_, a.n, x, CUDA_R_64F) == CUSPARSE_STATUS_SUCCESS &&
        cusparseCreateDnVec(&y_, a.n, y, CUDA_R_64F) == CUSPARSE_STATUS_SUCCESS &&
        cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a_, x_, &zero, y_,
                                CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                                &bytes) == CUSPARSE_STATUS_SUCCESS &&
        cudaMalloc(&buffer_, bytes ? bytes : 1) == cudaSuccess;
}

CusparseSpmv::~CusparseSpmv() {
  cudaFree(buffer_);
  if (y_) cusparseDestroyDnVec(y_);
  if (x_) cusparseDestroyDnVec(x_);
  if (a_) cusparseDestroySpMat(a_);
}

void CusparseSpmv::run() {
  const double one = 1.0, zero = 0.0;
  cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a_, x_, &zero, y_, CUDA_R_64F,
               CUSPARSE_SPMV_ALG_DEFAULT, buffer_);
}

ReferenceCg cusparse_cg(cusparseHandle_t sparse, cublasHandle_t blas, const DeviceCsr<double>& a,
                        const double* inverse_diagonal, const double* b, double* x, double* work,
                        double tolerance, int max_iterations) {
  const int n = a.n;
  double *r = work, *z = r + n, *p = z + n, *q = p + n;
  CusparseSpmv product(sparse, a, p, q);
  ReferenceCg out;
  if (!product.ok()) return out;
  cudaMemset(x, 0, n * sizeof(double));
  cublasDcopy(blas, n, b, 1, r, 1);
  cublasDdgmm(blas, CUBLAS_SIDE_LEFT, n, 1, r, n, inverse_diagonal, 1, z, n);  // z = M^-1 r
  cublasDcopy(blas, n, z, 1, p, 1);
  double rz = 0.0, b_norm = 0.0;
  cublasDdot(blas, n, r, 1, z, 1, &rz);
  cublasDnrm2(blas, n, b, 1, &b_norm);
  for (int k = 1; k <= max_iterations; ++k) {
    product.run();  // q = A p
    double pq = 0.0;
    cublasDdot(blas, n, p, 1, q, 1, &pq);
    const double alpha = rz / pq, minus_alpha = -alpha;
    cublasDaxpy(blas, n, &alpha, p, 1, x, 1);
    cublasDaxpy(blas, n, &minus_alpha, q, 1, r, 1);
    double r_norm = 0.0;
    cublasDnrm2(blas, n, r, 1, &r_norm);
    out.iterations = k;
    if (r_norm / b_norm <= tolerance) {
      out.converged = true;
      break;
    }
    cublasDdgmm(blas, CUBLAS_SIDE_LEFT, n, 1, r, n, inverse_diagonal, 1, z, n);
    double rz_new = 0.0;
    cublasDdot(blas, n, r, 1, z, 1, &rz_new);
    const double beta = rz_new / rz, one = 1.0;
    rz = rz_new;
    cublasDscal(blas, n, &beta, p, 1);  // p = z + beta p
    cublasDaxpy(blas, n, &one, z, 1, p, 1);
  }
  cudaDeviceSynchronize();
  return out;
}

}  // namespace switchyard::bench
