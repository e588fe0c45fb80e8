#include "gemm/device_gemm.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "gemm/inplace_kernel_source.hpp"

namespace switchyard::gemm {
namespace {

int round_up(int v, int to) { return (v + to - 1) / to * to; }

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

template <class V>
cl_int set(const opencl::Api& cl, cl_kernel kernel, cl_uint index, const V& value) {
  return cl.SetKernelArg(kernel, index, sizeof value, &value);
}

// The sizes of a launch: dimensions past the ones given are 1.
struct Range {
  std::size_t global[3], local[3];
};

// Sets `kernel`'s arguments in order and enqueues it; an error names the kernel.
template <class... Args>
bool launch(opencl::Runtime& rt, Kernels& kernels, cl_kernel kernel, const char* name,
            const Range& range, std::string& error, const Args&... args) {
  const opencl::Api& cl = rt.cl();
  std::lock_guard<std::mutex> lock(kernels.launch);
  cl_uint index = 0;
  cl_int r = CL_SUCCESS;
  ((r = r != CL_SUCCESS ? r : set(cl, kernel, index++, args)), ...);
  if (r == CL_SUCCESS) {
    r = cl.EnqueueNDRangeKernel(rt.queue(), kernel, 3, nullptr, range.global, range.local, 0,
                                nullptr, nullptr);
  }
  if (r != CL_SUCCESS) {
    error = std::string(name) + " failed: " + opencl::error_name(r);
    return false;
  }
  return true;
}

// Which operands already lie in the TN kernel's packed ROW layout (kernel_source.hpp): rows
// along C's side (op(A) = A, op(B) = B^T), Kp of them, Mp (Np) apart from the start of the
// buffer. Packing such an operand would copy it unchanged; for 8192 x 256 x 8192 that copy of
// A took a third of the product's time. Entries past m (n) in a row may hold anything: they
// reach only entries of C that are not written. Rows past k would have to be zeros, so k must
// be Kp.
struct InLayout {
  bool a, b;
};

InLayout in_packed_layout(const KernelParams& p, char transa, char transb, const Padded& size,
                          int k, const DeviceMatrix& a, const DeviceMatrix& b) {
  const auto ready = [&](Layout layout, const DeviceMatrix& x, int padded_rows) {
    return layout == Layout::row && x.offset == 0 && x.ld == padded_rows && size.kp == k;
  };
  return {transa == 'N' && ready(p.layout_a, a, size.mp),
          transb != 'N' && ready(p.layout_b, b, size.np)};
}

// routes_inplace on the product's padded size and the operands already in the packed layout.
bool inplace_for(const Kernels& kernels, int m, int n, int k, const Padded& size,
                 const InLayout& in_layout) {
  // With both operands already in the packed layout nothing is copied, and the TN kernel's
  // larger tiles run faster (256 x 256 x 2^20 NT on the H200: 2.93 against 3.26 ms).
  if (takes_inplace(kernels, m, n)) return !(in_layout.a && in_layout.b);
  if (!kernels.inplace[0][0]) return false;
  const double copied = (in_layout.a ? 0.0 : double(size.kp) * size.mp) +
                        (in_layout.b ? 0.0 : double(size.kp) * size.np);
  return inplace_pays(m, n, k, copied);
}

}  // namespace

bool enqueue_pack(opencl::Runtime& rt, Kernels& kernels, Operand which, bool transposed, int K,
                  int R, int Kp, int Rp, const DeviceMatrix& src, cl_mem dst,
                  std::string& error) {
  const std::size_t tile = kPackTile;
  const Range range{{round_up(std::size_t(Rp), tile), round_up(std::size_t(Kp), tile), 1},
                    {tile, tile, 1}};
  const char* name = transposed ? kPackTransposed[int(which)] : kPackDirect[int(which)];
  const cl_long offset = src.offset;
  return launch(rt, kernels, kernels.pack[int(which)][transposed], name, range, error,
                cl_int(K), cl_int(R), src.mem, offset, cl_int(src.ld), cl_int(Kp), cl_int(Rp),
                dst);
}

Kernels* kernels_for(opencl::Runtime& rt, const KernelParams& p, std::string& error) {
  static std::mutex mutex;
  // Never destroyed: a start in the background may still be building its program when the process
  // exits, and adds to them after.
  static auto& built =
      *new std::map<std::pair<const opencl::Runtime*, std::string>, std::unique_ptr<Kernels>>;
  const auto key = std::make_pair(
      &rt, std::string(p.precision == Precision::f64 ? "d " : "s ") + describe(p));
  std::lock_guard<std::mutex> lock(mutex);
  auto found = built.find(key);
  if (found != built.end()) return found->second.get();

  const DeviceLimits limits{rt.device().max_work_group, rt.device().local_memory,
                            rt.device().nv_compute_capability};
  const std::string why = invalid(p, limits);
  if (!why.empty()) {
    error = "kernel parameters " + describe(p) + ": " + why;
    return nullptr;
  }
  cl_program program = rt.build(program_source(p), kBuildOptions, error);
  if (!program) return nullptr;
  auto k = std::make_unique<Kernels>();
  k->params = p;
  k->compute_units = std::max(1, rt.device().compute_units);
  cl_int r = CL_SUCCESS;
  for (int w = 0; w < 2 && r == CL_SUCCESS; ++w) {
    k->pack[w][0] = rt.cl().CreateKernel(program, kPackDirect[w], &r);
    if (r == CL_SUCCESS) k->pack[w][1] = rt.cl().CreateKernel(program, kPackTransposed[w], &r);
  }
  if (r == CL_SUCCESS) k->tn = rt.cl().CreateKernel(program, kTnKernel, &r);
  if (r == CL_SUCCESS) k->reduce = rt.cl().CreateKernel(program, kReduceKernel, &r);
  for (int ta = 0; ta < 2 && r == CL_SUCCESS && has_inplace_kernels(p); ++ta)
    for (int tb = 0; tb < 2 && r == CL_SUCCESS; ++tb) {
      const std::string name = inplace_kernel_name(ta ? 'T' : 'N', tb ? 'T' : 'N');
      k->inplace[ta][tb] = rt.cl().CreateKernel(program, name.c_str(), &r);
    }
  if (r != CL_SUCCESS) {
    error = "clCreateKernel failed: " + opencl::error_name(r);
    return nullptr;
  }
  Kernels* kernels = k.get();
  built.emplace(key, std::move(k));
  return kernels;
}

Padded padded(const KernelParams& p, int m, int n, int k) {
  return {round_up(m, p.ml), round_up(n, p.nl), round_up(k, p.kl)};
}

Split split_for(const Kernels& kernels, const Padded& size, int forced_slices) {
  const KernelParams& p = kernels.params;
  const int tiles = (size.mp / p.ml) * (size.np / p.nl);
  return choose_split(p, tiles, size.kp, kernels.compute_units, forced_slices);
}

std::size_t partial_bytes(const Split& split, int m, int n, std::size_t element_size) {
  if (split.slices <= 1) return 0;
  return element_size * std::size_t(split.slices) * std::size_t(m) * std::size_t(n);
}

template <class T>
bool enqueue_gemm(opencl::Runtime& rt, Kernels& kernels, char transa, char transb, int m, int n,
                  int k, T alpha, const DeviceMatrix& a, const DeviceMatrix& b, T beta,
                  const DeviceMatrix& c, std::vector<opencl::Buffer>& scratch,
                  std::string& error, int forced_slices) {
  // alpha = 0 or k = 0: no product; the TN kernel runs no k step and writes
  // beta C (or zeros), reading neither A nor B.
  const bool product = alpha != T(0) && k > 0;
  const Padded size = padded(kernels.params, m, n, product ? k : 0);
  const InLayout in_layout = in_packed_layout(kernels.params, transa, transb, size, k, a, b);
  const bool inplace = product && inplace_for(kernels, m, n, k, size, in_layout);
  const Split split = inplace ? inplace_split(m, n, k, kernels.compute_units, forced_slices)
                              : split_for(kernels, size, forced_slices);
  cl_mem ap = c.mem, bp = c.mem, partials = c.mem;  // never read when there is no product
  const auto acquire = [&](std::size_t bytes, cl_mem& mem) {
    opencl::Buffer buffer = rt.acquire(bytes, error);
    mem = buffer.get();
    if (mem) scratch.push_back(std::move(buffer));
    return mem != nullptr;
  };
  if (product && split.slices > 1 && !acquire(partial_bytes(split, m, n, sizeof(T)), partials)) {
    return false;
  }
  if (inplace) {
    return enqueue_inplace(rt, kernels, transa, transb, split, m, n, k, alpha, a, b, beta, c,
                           same_place(transa, transb, m, n, a, b), partials, error);
  }
  if (product) {
    // op(A)(i, k) = A[i + k lda] (N: i contiguous) or A[k + i lda] (T);
    // op(B)(k, j) = B[k + j ldb] (N: k contiguous) or B[j + k ldb] (T).
    if (in_layout.a) {
      ap = a.mem;
    } else if (!acquire(sizeof(T) * std::size_t(size.kp) * size.mp, ap) ||
               !enqueue_pack(rt, kernels, Operand::a, transa != 'N', k, m, size.kp, size.mp, a,
                             ap, error)) {
      return false;
    }
    if (in_layout.b) {
      bp = b.mem;
    } else if (!acquire(sizeof(T) * std::size_t(size.kp) * size.np, bp) ||
               !enqueue_pack(rt, kernels, Operand::b, transb == 'N', k, n, size.kp, size.np, b,
                             bp, error)) {
      return false;
    }
  }
  return enqueue_product<T>(rt, kernels, size, split, ap, bp, m, n, alpha, beta, c, partials,
                            error);
}

namespace {

// The TN kernel over the slices of `split`, slice s writing C + s c_slice.
template <class T>
bool enqueue_slices(opencl::Runtime& rt, Kernels& kernels, const Padded& size, const Split& split,
                    cl_mem ap, cl_mem bp, int m, int n, T alpha, T beta, const DeviceMatrix& c,
                    long c_slice, std::string& error) {
  const KernelParams& p = kernels.params;
  const Range range{{std::size_t(size.mp / p.ml * p.threads_m()),
                     std::size_t(size.np / p.nl * p.threads_n()), std::size_t(split.slices)},
                    {std::size_t(p.threads_m()), std::size_t(p.threads_n()), 1}};
  return launch(rt, kernels, kernels.tn, kTnKernel, range, error, cl_int(size.kp),
                cl_int(size.mp), cl_int(size.np), ap, bp, cl_int(m), cl_int(n), alpha, beta, c.mem,
                cl_long(c.offset), cl_int(c.ld), cl_int(split.depth), cl_long(c_slice));
}

// The reduction of split-K's partial products (each m x n, one after the other) into C.
template <class T>
bool enqueue_reduce(opencl::Runtime& rt, Kernels& kernels, const Split& split, int m, int n,
                    cl_mem partials, T alpha, T beta, const DeviceMatrix& c, std::string& error) {
  const std::size_t tile = kPackTile;
  const Range range{{round_up(std::size_t(m), tile), round_up(std::size_t(n), tile), 1},
                    {tile, tile, 1}};
  return launch(rt, kernels, kernels.reduce, kReduceKernel, range, error, cl_int(m), cl_int(n),
                cl_int(split.slices), partials, cl_long(long(m) * n), alpha, beta, c.mem,
                cl_long(c.offset), cl_int(c.ld));
}

}  // namespace

template <class T>
bool enqueue_tn(opencl::Runtime& rt, Kernels& kernels, const Padded& size, cl_mem ap, cl_mem bp,
                int m, int n, T alpha, T beta, const DeviceMatrix& c, std::string& error) {
  return enqueue_slices<T>(rt, kernels, size, Split{1, size.kp}, ap, bp, m, n, alpha, beta, c, 0,
                           error);
}

template <class T>
bool enqueue_product(opencl::Runtime& rt, Kernels& kernels, const Padded& size,
                     const Split& split, cl_mem ap, cl_mem bp, int m, int n, T alpha, T beta,
                     const DeviceMatrix& c, cl_mem partials, std::string& error) {
  if (split.slices <= 1) return enqueue_tn<T>(rt, kernels, size, ap, bp, m, n, alpha, beta, c, error);
  // Each slice's product, as it is (alpha 1, beta 0), into its own m x n partial.
  const long slice = long(m) * n;
  if (!enqueue_slices<T>(rt, kernels, size, split, ap, bp, m, n, T(1), T(0), {partials, 0, m},
                         slice, error)) {
    return false;
  }
  return enqueue_reduce<T>(rt, kernels, split, m, n, partials, alpha, beta, c, error);
}

bool inplace_pays(int m, int n, int k, double copied) {
  return 2.0 * m * n * k < kInplaceFlopsPerCopied * copied;
}

bool routes_inplace(const Kernels& kernels, char transa, char transb, int m, int n, int k,
                    const DeviceMatrix& a, const DeviceMatrix& b) {
  const Padded size = padded(kernels.params, m, n, k);
  return inplace_for(kernels, m, n, k, size,
                     in_packed_layout(kernels.params, transa, transb, size, k, a, b));
}

bool takes_inplace(const Kernels& kernels, int m, int n) {
  if (!kernels.inplace[0][0]) return false;
  const Padded size = padded(kernels.params, m, n, 0);
  const long tiles = long(size.mp / kernels.params.ml) * (size.np / kernels.params.nl);
  return tiles < kernels.compute_units;
}

template <class T>
bool enqueue_inplace(opencl::Runtime& rt, Kernels& kernels, char transa, char transb,
                     const Split& split, int m, int n, int k, T alpha, const DeviceMatrix& a,
                     const DeviceMatrix& b, T beta, const DeviceMatrix& c, bool same,
                     cl_mem partials, std::string& error) {
  const auto tiles = [](int extent) { return std::size_t(extent + kInplaceTile - 1) / kInplaceTile; };
  const Range range{{tiles(m) * kInplaceThreads, tiles(n), std::size_t(split.slices)},
                    {std::size_t(kInplaceThreads), 1, 1}};
  const cl_kernel kernel = kernels.inplace[transa != 'N'][transb != 'N'];
  const auto run = [&](T a_scale, T b_scale, const DeviceMatrix& out, long out_slice) {
    return launch(rt, kernels, kernel, "the in-place gemm kernel", range, error, cl_int(k),
                  cl_int(m), cl_int(n), a.mem, cl_long(a.offset), cl_int(a.ld), b.mem,
                  cl_long(b.offset), cl_int(b.ld), a_scale, b_scale, out.mem,
                  cl_long(out.offset), cl_int(out.ld), cl_int(split.depth), cl_long(out_slice),
                  cl_int(same));
  };
  if (split.slices <= 1) return run(alpha, beta, c, 0);
  // Each slice's product, as it is (alpha 1, beta 0), into its own m x n partial.
  return run(T(1), T(0), {partials, 0, m}, long(m) * n) &&
         enqueue_reduce<T>(rt, kernels, split, m, n, partials, alpha, beta, c, error);
}

template bool enqueue_inplace<double>(opencl::Runtime&, Kernels&, char, char, const Split&, int,
                                      int, int, double, const DeviceMatrix&, const DeviceMatrix&,
                                      double, const DeviceMatrix&, bool, cl_mem, std::string&);
template bool enqueue_inplace<float>(opencl::Runtime&, Kernels&, char, char, const Split&, int, int,
                                     int, float, const DeviceMatrix&, const DeviceMatrix&, float,
                                     const DeviceMatrix&, bool, cl_mem, std::string&);

template bool enqueue_gemm<double>(opencl::Runtime&, Kernels&, char, char, int, int, int, double,
                                   const DeviceMatrix&, const DeviceMatrix&, double,
                                   const DeviceMatrix&, std::vector<opencl::Buffer>&,
                                   std::string&, int);
template bool enqueue_gemm<float>(opencl::Runtime&, Kernels&, char, char, int, int, int, float,
                                  const DeviceMatrix&, const DeviceMatrix&, float,
                                  const DeviceMatrix&, std::vector<opencl::Buffer>&,
                                  std::string&, int);
template bool enqueue_product<double>(opencl::Runtime&, Kernels&, const Padded&, const Split&,
                                      cl_mem, cl_mem, int, int, double, double,
                                      const DeviceMatrix&, cl_mem, std::string&);
template bool enqueue_product<float>(opencl::Runtime&, Kernels&, const Padded&, const Split&,
                                     cl_mem, cl_mem, int, int, float, float, const DeviceMatrix&,
                                     cl_mem, std::string&);
template bool enqueue_tn<double>(opencl::Runtime&, Kernels&, const Padded&, cl_mem, cl_mem, int,
                                 int, double, double, const DeviceMatrix&, std::string&);
template bool enqueue_tn<float>(opencl::Runtime&, Kernels&, const Padded&, cl_mem, cl_mem, int,
                                int, float, float, const DeviceMatrix&, std::string&);

}  // namespace switchyard::gemm
