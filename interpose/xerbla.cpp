#include "xerbla.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace switchyard {
namespace {

using XerblaFn = void(const char* srname, const int* info, std::size_t srname_len);
using CblasXerblaFn = void(int info, const char* rout, const char* form, ...);
using LapackeXerblaFn = void(const char* name, int info);
using NancheckFn = int();

// The first definition in the program's global scope: the executable's own,
// else the one of the BLAS/LAPACK it loaded.
template <class T>
T* global_symbol(const char* name) {
  return reinterpret_cast<T*>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

void call_xerbla(const char* srname, int info) {
  static XerblaFn* const handler = global_symbol<XerblaFn>("xerbla_");
  if (handler) {
    handler(srname, &info, std::strlen(srname));
    return;
  }
  std::fprintf(stderr, " ** On entry to %s parameter number %2d had an illegal value\n", srname,
               info);
}

void call_cblas_xerbla(int info, const char* rout, const char* form, int value) {
  static CblasXerblaFn* const handler = global_symbol<CblasXerblaFn>("cblas_xerbla");
  if (handler) {
    handler(info, rout, form, value);
    return;
  }
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  std::fprintf(stderr, form, value);
}

int* cblas_row_major_flag() {
  static int* const flag = global_symbol<int>("RowMajorStrg");
  return flag;
}

int* cblas_call_from_c_flag() {
  static int* const flag = global_symbol<int>("CBLAS_CallFromC");
  return flag;
}

void call_lapacke_xerbla(const char* name, int info) {
  static LapackeXerblaFn* const handler = global_symbol<LapackeXerblaFn>("LAPACKE_xerbla");
  if (handler) {
    handler(name, info);
    return;
  }
  // Reference LAPACKE's messages; on stderr, since Switchyard itself never
  // writes to stdout.
  if (info == -1010) {
    std::fprintf(stderr, "Not enough memory to allocate work array in %s\n", name);
  } else if (info == -1011) {
    std::fprintf(stderr, "Not enough memory to transpose matrix in %s\n", name);
  } else if (info < 0) {
    std::fprintf(stderr, "Wrong parameter %d in %s\n", -info, name);
  }
}

bool lapacke_nancheck() {
  static NancheckFn* const get = global_symbol<NancheckFn>("LAPACKE_get_nancheck");
  if (get) return get() != 0;
  // Reference LAPACKE: on unless LAPACKE_NANCHECK is set to 0.
  static const bool from_env = [] {
    const char* v = std::getenv("LAPACKE_NANCHECK");
    return !v || std::atoi(v) != 0;
  }();
  return from_env;
}

}  // namespace switchyard
