#include "reference_blas.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace switchyard::test {
namespace {

void* symbol(const char* library, const char* name) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  void* s = handle ? dlsym(handle, name) : nullptr;
  if (!s) std::abort();
  return s;
}

}  // namespace

template <> GemmFn<float>* reference_gemm<float>() {
  return reinterpret_cast<GemmFn<float>*>(symbol("libblas.so.3", "sgemm_"));
}
template <> GemmFn<double>* reference_gemm<double>() {
  return reinterpret_cast<GemmFn<double>*>(symbol("libblas.so.3", "dgemm_"));
}
template <> SyrkFn<float>* reference_syrk<float>() {
  return reinterpret_cast<SyrkFn<float>*>(symbol("libblas.so.3", "ssyrk_"));
}
template <> SyrkFn<double>* reference_syrk<double>() {
  return reinterpret_cast<SyrkFn<double>*>(symbol("libblas.so.3", "dsyrk_"));
}
template <> GeqrfFn<float>* reference_geqrf<float>() {
  return reinterpret_cast<GeqrfFn<float>*>(symbol("liblapack.so.3", "sgeqrf_"));
}
template <> GeqrfFn<double>* reference_geqrf<double>() {
  return reinterpret_cast<GeqrfFn<double>*>(symbol("liblapack.so.3", "dgeqrf_"));
}

}  // namespace switchyard::test
