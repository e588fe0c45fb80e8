#include "clblast_anchor.hpp"

#include <dlfcn.h>

namespace switchyard::bench {

Clblast::Clblast() {
  void* lib = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  sgemm_ = reinterpret_cast<Gemm<float>*>(dlsym(lib, "CLBlastSgemm"));
  dgemm_ = reinterpret_cast<Gemm<double>*>(dlsym(lib, "CLBlastDgemm"));
  if (!sgemm_) dgemm_ = nullptr;
}

template <class T>
bool Clblast::gemm(cl_command_queue queue, char ta, char tb, int m, int n, int k, T alpha,
                   cl_mem a, int lda, cl_mem b, int ldb, T beta, cl_mem c, int ldc) const {
  constexpr int kColMajor = 102, kNo = 111, kYes = 112;
  Gemm<T>* f;
  if constexpr (sizeof(T) == 8) {
    f = dgemm_;
  } else {
    f = sgemm_;
  }
  return f(kColMajor, ta == 'N' ? kNo : kYes, tb == 'N' ? kNo : kYes, size_t(m), size_t(n),
           size_t(k), alpha, a, 0, size_t(lda), b, 0, size_t(ldb), beta, c, 0, size_t(ldc),
           &queue, nullptr) == 0;
}

template bool Clblast::gemm<double>(cl_command_queue, char, char, int, int, int, double, cl_mem,
                                    int, cl_mem, int, double, cl_mem, int) const;
template bool Clblast::gemm<float>(cl_command_queue, char, char, int, int, int, float, cl_mem,
                                   int, cl_mem, int, float, cl_mem, int) const;

}  // namespace switchyard::bench
