#include "xerbla.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace switchyard {
namespace {

template <class I>
using XerblaFn = void(const char* srname, const I* info, std::size_t srname_len);
template <class I>
using CblasXerblaFn = void(I info, const char* rout, const char* form, ...);
template <class I>
using LapackeXerblaFn = void(const char* name, I info);
using NancheckFn = int();

// `name`'s handler in the convention C.
template <class T, class C>
T* handler(const char* name) {
  return reinterpret_cast<T*>(C::handler(name));
}

}  // namespace

template <class C>
void call_xerbla(const char* srname, Int<C> info) {
  static XerblaFn<Int<C>>* const xerbla = handler<XerblaFn<Int<C>>, C>("xerbla_");
  if (xerbla) {
    xerbla(srname, &info, std::strlen(srname));
    return;
  }
  std::fprintf(stderr, " ** On entry to %s parameter number %2d had an illegal value\n", srname,
               int(info));
}

template <class C>
void call_cblas_xerbla(Int<C> info, const char* rout, const char* form, int value) {
  static CblasXerblaFn<Int<C>>* const xerbla = handler<CblasXerblaFn<Int<C>>, C>("cblas_xerbla");
  if (xerbla) {
    xerbla(info, rout, form, value);
    return;
  }
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", int(info), rout);
  std::fprintf(stderr, form, value);
}

template <class C>
int* cblas_row_major_flag() {
  static int* const flag = handler<int, C>("RowMajorStrg");
  return flag;
}

template <class C>
int* cblas_call_from_c_flag() {
  static int* const flag = handler<int, C>("CBLAS_CallFromC");
  return flag;
}

template <class C>
void call_lapacke_xerbla(const char* name, Int<C> info) {
  static LapackeXerblaFn<Int<C>>* const xerbla =
      handler<LapackeXerblaFn<Int<C>>, C>("LAPACKE_xerbla");
  if (xerbla) {
    xerbla(name, info);
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

template <class C>
bool lapacke_nancheck() {
  static NancheckFn* const get = handler<NancheckFn, C>("LAPACKE_get_nancheck");
  if (get) return get() != 0;
  // Reference LAPACKE: on unless LAPACKE_NANCHECK is set to 0.
  static const bool from_env = [] {
    const char* v = std::getenv("LAPACKE_NANCHECK");
    return !v || std::atoi(v) != 0;
  }();
  return from_env;
}

// Every convention's handlers.
template decltype(call_xerbla<Lp64>) call_xerbla<Lp64>;
template decltype(call_cblas_xerbla<Lp64>) call_cblas_xerbla<Lp64>;
template decltype(cblas_row_major_flag<Lp64>) cblas_row_major_flag<Lp64>;
template decltype(cblas_call_from_c_flag<Lp64>) cblas_call_from_c_flag<Lp64>;
template decltype(call_lapacke_xerbla<Lp64>) call_lapacke_xerbla<Lp64>;
template decltype(lapacke_nancheck<Lp64>) lapacke_nancheck<Lp64>;
template decltype(call_xerbla<Ilp64>) call_xerbla<Ilp64>;
template decltype(call_cblas_xerbla<Ilp64>) call_cblas_xerbla<Ilp64>;
template decltype(cblas_row_major_flag<Ilp64>) cblas_row_major_flag<Ilp64>;
template decltype(cblas_call_from_c_flag<Ilp64>) cblas_call_from_c_flag<Ilp64>;
template decltype(call_lapacke_xerbla<Ilp64>) call_lapacke_xerbla<Ilp64>;
template decltype(lapacke_nancheck<Ilp64>) lapacke_nancheck<Ilp64>;
template decltype(call_xerbla<ScipyOpenblas32>) call_xerbla<ScipyOpenblas32>;
template decltype(call_cblas_xerbla<ScipyOpenblas32>) call_cblas_xerbla<ScipyOpenblas32>;
template decltype(cblas_row_major_flag<ScipyOpenblas32>) cblas_row_major_flag<ScipyOpenblas32>;
template decltype(cblas_call_from_c_flag<ScipyOpenblas32>) cblas_call_from_c_flag<ScipyOpenblas32>;
template decltype(call_lapacke_xerbla<ScipyOpenblas32>) call_lapacke_xerbla<ScipyOpenblas32>;
template decltype(lapacke_nancheck<ScipyOpenblas32>) lapacke_nancheck<ScipyOpenblas32>;
template decltype(call_xerbla<ScipyOpenblas64>) call_xerbla<ScipyOpenblas64>;
template decltype(call_cblas_xerbla<ScipyOpenblas64>) call_cblas_xerbla<ScipyOpenblas64>;
template decltype(cblas_row_major_flag<ScipyOpenblas64>) cblas_row_major_flag<ScipyOpenblas64>;
template decltype(cblas_call_from_c_flag<ScipyOpenblas64>) cblas_call_from_c_flag<ScipyOpenblas64>;
template decltype(call_lapacke_xerbla<ScipyOpenblas64>) call_lapacke_xerbla<ScipyOpenblas64>;
template decltype(lapacke_nancheck<ScipyOpenblas64>) lapacke_nancheck<ScipyOpenblas64>;

}  // namespace switchyard
