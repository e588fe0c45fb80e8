// CLBlast's xGEMM (Debian's libclblast1) as an anchor of bench gemm, on the
// same OpenCL queue and buffers as the route's kernels. Loaded with dlopen
// through its C API, so nothing links it; absent, its column reads "-".
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

namespace switchyard::bench {

class Clblast {
 public:
  // Opens libclblast.so.1; available() says whether it was found.
  Clblast();
  bool available() const { return dgemm_ != nullptr; }

  // C <- alpha op(A) op(B) + beta C on device buffers (column-major),
  // enqueued on `queue`; false when CLBlast returns an error.
  template <class T>
  bool gemm(cl_command_queue queue, char ta, char tb, int m, int n, int k, T alpha, cl_mem a,
            int lda, cl_mem b, int ldb, T beta, cl_mem c, int ldc) const;

 private:
  // CLBlast's C API: layout (102 column-major), transposes (111 no, 112 yes), sizes, alpha,
  // A, offset, ld, B, offset, ld, beta, C, offset, ld, queue, event; 0 on success.
  template <class T>
  using Gemm = int(int, int, int, size_t, size_t, size_t, T, cl_mem, size_t, size_t, cl_mem,
                   size_t, size_t, T, cl_mem, size_t, size_t, cl_command_queue*, cl_event*);
  Gemm<double>* dgemm_ = nullptr;
  Gemm<float>* sgemm_ = nullptr;
};

}  // namespace switchyard::bench
