#include "xerbla.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "fallback.hpp"

namespace switchyard {
namespace {

template <class I>
using XerblaFn = void(const char* srname, const I* info, std::size_t srname_len);
template <class I>
using CblasXerblaFn = void(I info, const char* rout, const char* form, ...);
template <class I>
using LapackeXerblaFn = void(const char* name, I info);
using NancheckFn = int();

// The first definition in the program's global scope of `name` in the
// convention of I: the executable's own, else the one of the BLAS/LAPACK it
// loaded.
template <class T, class I>
T* global_symbol(const char* name) {
  const std::string in_convention =
      std::is_same_v<I, int> ? std::string(name) : std::string(name) + ilp64_suffix;
  return reinterpret_cast<T*>(dlsym(RTLD_DEFAULT, in_convention.c_str()));
}

}  // namespace

template <class I>
void call_xerbla(const char* srname, I info) {
  static XerblaFn<I>* const handler = global_symbol<XerblaFn<I>, I>("xerbla_");
  if (handler) {
    handler(srname, &info, std::strlen(srname));
    return;
  }
  std::fprintf(stderr, " ** On entry to %s parameter number %2d had an illegal value\n", srname,
               int(info));
}

template <class I>
void call_cblas_xerbla(I info, const char* rout, const char* form, int value) {
  static CblasXerblaFn<I>* const handler = global_symbol<CblasXerblaFn<I>, I>("cblas_xerbla");
  if (handler) {
    handler(info, rout, form, value);
    return;
  }
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", int(info), rout);
  std::fprintf(stderr, form, value);
}

template <class I>
int* cblas_row_major_flag() {
  static int* const flag = global_symbol<int, I>("RowMajorStrg");
  return flag;
}

template <class I>
int* cblas_call_from_c_flag() {
  static int* const flag = global_symbol<int, I>("CBLAS_CallFromC");
  return flag;
}

template <class I>
void call_lapacke_xerbla(const char* name, I info) {
  static LapackeXerblaFn<I>* const handler =
      global_symbol<LapackeXerblaFn<I>, I>("LAPACKE_xerbla");
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
    std::fprintf(stderr, "Wrong parameter %d in %s\n", int(-info), name);
  }
}

template <class I>
bool lapacke_nancheck() {
  static NancheckFn* const get = global_symbol<NancheckFn, I>("LAPACKE_get_nancheck");
  if (get) return get() != 0;
  // Reference LAPACKE: on unless LAPACKE_NANCHECK is set to 0.
  static const bool from_env = [] {
    const char* v = std::getenv("LAPACKE_NANCHECK");
    return !v || std::atoi(v) != 0;
  }();
  return from_env;
}

template void call_xerbla<int>(const char*, int);
template void call_xerbla<std::int64_t>(const char*, std::int64_t);
template void call_cblas_xerbla<int>(int, const char*, const char*, int);
template void call_cblas_xerbla<std::int64_t>(std::int64_t, const char*, const char*, int);
template int* cblas_row_major_flag<int>();
template int* cblas_row_major_flag<std::int64_t>();
template int* cblas_call_from_c_flag<int>();
template int* cblas_call_from_c_flag<std::int64_t>();
template void call_lapacke_xerbla<int>(const char*, int);
template void call_lapacke_xerbla<std::int64_t>(const char*, std::int64_t);
template bool lapacke_nancheck<int>();
template bool lapacke_nancheck<std::int64_t>();

}  // namespace switchyard
