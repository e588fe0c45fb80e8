// GEMM on the OpenCL device: the copy kernels and the TN kernel of one
// parameter set (kernel_source.hpp) run on operands in device buffers. The
// route's host-memory form is streamed_gemm.hpp.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device/opencl_runtime.hpp"
#include "gemm/kernel_source.hpp"
#include "gemm/split_k.hpp"

namespace switchyard::gemm {

// The program and kernels of one parameter set, built once per process.
class Kernels {
 public:
  cl_kernel pack[2][2] = {};  // [operand][transposed]
  cl_kernel tn = nullptr;
  cl_kernel reduce = nullptr;  // split-K's sum of the partial products
  cl_kernel inplace[2][2] = {};  // [op(A) transposed][op(B) transposed], where has_inplace_kernels
  KernelParams params;
  int compute_units = 1;  // of the device, for choose_split
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

// Enqueues the copy kernel that packs op(X) of a call into `dst`: R x K for
// A (R = m), K x R for B (R = n), padded to Rp x Kp; `transposed` as the
// kernel names it (A: op(A) = A^T; B: op(B) = B).
bool enqueue_pack(opencl::Runtime& rt, Kernels& kernels, Operand which, bool transposed, int K,
                  int R, int Kp, int Rp, const DeviceMatrix& src, cl_mem dst, std::string& error);

// Enqueues the TN kernel alone on packed operands of `size`, in one slice.
template <class T>
bool enqueue_tn(opencl::Runtime& rt, Kernels& kernels, const Padded& size, cl_mem ap, cl_mem bp,
                int m, int n, T alpha, T beta, const DeviceMatrix& c, std::string& error);

// The split-K of a product of `size` with the kernels' tiles on their
// device (split_k.hpp); `forced_slices` > 0 asks for that many.
Split split_for(const Kernels& kernels, const Padded& size, int forced_slices = 0);

// Bytes of the partial products of `split` for an m x n C (0 without a split).
std::size_t partial_bytes(const Split& split, int m, int n, std::size_t element_size);

// Enqueues C <- alpha Ap^T Bp + beta C on packed operands of `size`: the TN
// kernel alone when split.slices == 1; else its slices into `partials`
// (partial_bytes of them) and the reduction into C.
template <class T>
bool enqueue_product(opencl::Runtime& rt, Kernels& kernels, const Padded& size,
                     const Split& split, cl_mem ap, cl_mem bp, int m, int n, T alpha, T beta,
                     const DeviceMatrix& c, cl_mem partials, std::string& error);

// Whether a product with an m x n C takes the in-place kernels (inplace_kernel_source.hpp)
// rather than the copy kernels and the TN kernel: where the kernels have them, and C's tiles
// are too few to fill the device, so that the product is bound by reading its operands and
// packing them would cost more than the product (the Gram products A^T A and A A^T).
bool takes_inplace(const Kernels& kernels, int m, int n);

// Flops per copied element below which the in-place kernels beat copying the operands. On the
// H200 the tuned TN kernel runs at about 47 TFLOP/s and the in-place kernels, when this was
// set, at about 37 (8192 x 256 x 8192), and a copy kernel moves an element (8 bytes read, 8
// written) in about 5.3 ps (3 TB/s): the copy costs more than the slower rate saves below
// 5.3e-12 / (1 / 37e12 - 1 / 47e12), about 930 flops per element. The in-place kernels now run
// that shape at about 45, which would move the line to about 5600, but their rate falls where
// k is short (8192 x 8192 x 256: 20-27 against the copies' 35) and was not measured on the
// shapes in between, so the line stays where it was measured to hold. In single precision, on
// FMAs, the TN kernel runs 8192 x 256 x 8192 at about 40.5 TFLOP/s with nothing to copy, the
// in-place kernels at 33-35, and copying that product's transposed A (67 million floats) took
// 0.29 ms, 4.4 ps an element: a line at about 840, near enough to share this one (a product
// between the two lines runs at most 3% slower in place than copied).
inline constexpr double kInplaceFlopsPerCopied = 1000;

// Whether a product of 2 m n k flops whose copy kernels would copy `copied` elements of A and
// B goes faster through the in-place kernels (kInplaceFlopsPerCopied): one short side against
// a long operand that is not in the packed layout, as op(A) = A^T of 8192 x 256 x 8192.
bool inplace_pays(int m, int n, int k, double copied);

// Whether enqueue_gemm gives a product to the in-place kernels: takes_inplace unless both
// operands already lie in the TN kernel's packed layout, or, where the kernels have them,
// inplace_pays for the elements of A and B its copy kernels would copy (none of an operand
// that already lies in their packed layout).
bool routes_inplace(const Kernels& kernels, char transa, char transb, int m, int n, int k,
                    const DeviceMatrix& a, const DeviceMatrix& b);

// Enqueues C <- alpha op(A) op(B) + beta C by the in-place kernel of (transa, transb) on A and
// B as they lie, over the slices of `split` (inplace_split) into `partials` (partial_bytes of
// them) and the reduction into C, or into C directly with one slice. `same`: op(B) is op(A)^T
// read from the same place (transa != transb, the same buffer, offset and ld, m = n).
template <class T>
bool enqueue_inplace(opencl::Runtime& rt, Kernels& kernels, char transa, char transb,
                     const Split& split, int m, int n, int k, T alpha, const DeviceMatrix& a,
                     const DeviceMatrix& b, T beta, const DeviceMatrix& c, bool same,
                     cl_mem partials, std::string& error);

// Whether op(B) is op(A)^T read from the same device matrix (enqueue_inplace's `same`).
inline bool same_place(char transa, char transb, int m, int n, const DeviceMatrix& a,
                       const DeviceMatrix& b) {
  return (transa == 'N') != (transb == 'N') && m == n && a.mem == b.mem &&
         a.offset == b.offset && a.ld == b.ld;
}

// Enqueues C <- alpha op(A) op(B) + beta C on device operands (any
// transpose, any ld). The packed operands (and partial products, when k is
// split) are taken from the pool into `scratch`, which must outlive the
// queued work (clFinish). alpha = 0 or k = 0 reads neither A nor B; beta = 0
// never reads C. `forced_slices` > 0 splits k into that many slices instead
// of choose_split's (inplace_split's) number (tests, benchmarks). Where
// routes_inplace, an in-place kernel reads A and B where they lie.
template <class T>
bool enqueue_gemm(opencl::Runtime& rt, Kernels& kernels, char transa, char transb, int m, int n,
                  int k, T alpha, const DeviceMatrix& a, const DeviceMatrix& b, T beta,
                  const DeviceMatrix& c, std::vector<opencl::Buffer>& scratch,
                  std::string& error, int forced_slices = 0);

}  // namespace switchyard::gemm
