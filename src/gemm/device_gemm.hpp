// GEMM on the OpenCL device: the copy kernels and the TN kernel of one
// parameter set (kernel_source.hpp) run on operands in device buffers, and
// the host-memory form the route uses (upload, run, download).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/kernel_source.hpp"

namespace switchyard::gemm {

// The program and kernels of one parameter set, built once per process.
class Kernels {
 public:
  cl_kernel pack[2][2] = {};  // [operand][transposed]
  cl_kernel tn = nullptr;
  KernelParams params;
  // clSetKernelArg and the enqueue that follows must not interleave with
  // another thread's on the same kernel object.
  std::mutex launch;
};

// The OpenCL compiler options of every gemm program (part of the cache key).
inline constexpr const char* kBuildOptions = "-cl-std=CL1.2";

// The kernels of `p` on `rt`, compiled (or loaded from the program cache) on
// first use; null with the reason in `error`.
Kernels* kernels_for(opencl::Runtime& rt, const KernelParams& p, std::string& error);

// A matrix in a device buffer: element (i, j) at offset + i + j * ld (column-major).
struct DeviceMatrix {
  cl_mem mem = nullptr;
  long offset = 0;
  int ld = 1;
};

// The padded sizes of the packed operands for a call.
struct Padded {
  int mp, np, kp;
};
Padded padded(const KernelParams& p, int m, int n, int k);

// Enqueues the TN kernel alone on packed operands of `size`.
template <class T>
bool enqueue_tn(opencl::Runtime& rt, Kernels& kernels, const Padded& size, cl_mem ap, cl_mem bp,
                int m, int n, T alpha, T beta, const DeviceMatrix& c, std::string& error);

// Enqueues C <- alpha op(A) op(B) + beta C on device operands (any
// transpose, any ld). The packed operands are taken from the pool into
// `scratch`, which must outlive the queued work (clFinish). alpha = 0 or
// k = 0 reads neither A nor B; beta = 0 never reads C.
template <class T>
bool enqueue_gemm(opencl::Runtime& rt, Kernels& kernels, char transa, char transb, int m, int n,
                  int k, T alpha, const DeviceMatrix& a, const DeviceMatrix& b, T beta,
                  const DeviceMatrix& c, std::vector<opencl::Buffer>& scratch,
                  std::string& error);

// The whole call on host operands: A, B (and C when beta != 0) go to the
// device, the kernels run, C comes back. False with the reason in `error`
// when any step fails, C then being untouched unless the final read failed.
template <class T>
bool gemm_host(opencl::Runtime& rt, Kernels& kernels, char transa, char transb, int m, int n,
               int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc,
               std::string& error);

}  // namespace switchyard::gemm
