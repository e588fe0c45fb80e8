// The next BLAS/LAPACK: the library that runs every call Switchyard does not
// take. Under LD_PRELOAD it is the program's own BLAS/LAPACK (whatever comes
// after Switchyard in the symbol search order, or a loaded library that
// defines it); when a program is linked with -lswitchyard it is reference
// LAPACK/BLAS, linked with the program or else opened RTLD_LOCAL (the safety
// net); SWITCHYARD_FALLBACK names a library that overrides both. A symbol that resolves back into
// Switchyard is never used, so a call can not loop into itself.
//
// There are two tables, one for each integer width of the ABI (docs/ilp64.md):
// fallback() with int arguments, which the routes and the 32-bit entry points
// use, and fallback64() with std::int64_t arguments, for the 64-bit entry
// points. Each library defines both in its own source (library_*.cpp), since
// the names they are found under differ between libswitchyard.so and
// libswitchyard64.so. Two more serve the names of the pip wheels' bundled
// OpenBLAS (scipy_dgemm_, scipy_dgemm_64_; docs/pip-wheels.md), the same in both
// libraries (wheel_fallback.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace switchyard {

template <class T, class I = int>
using GemmFn = void(const char* transa, const char* transb, const I* m, const I* n, const I* k,
                    const T* alpha, const T* a, const I* lda, const T* b, const I* ldb,
                    const T* beta, T* c, const I* ldc, std::size_t transa_len,
                    std::size_t transb_len);

template <class T, class I = int>
using SyrkFn = void(const char* uplo, const char* trans, const I* n, const I* k, const T* alpha,
                    const T* a, const I* lda, const T* beta, T* c, const I* ldc,
                    std::size_t uplo_len, std::size_t trans_len);

template <class T, class I = int>
using GeqrfFn = void(const I* m, const I* n, T* a, const I* lda, T* tau, T* work, const I* lwork,
                     I* info);

template <class T, class I = int>
using OrgqrFn = void(const I* m, const I* n, const I* k, T* a, const I* lda, const T* tau, T* work,
                     const I* lwork, I* info);

template <class T, class I = int>
using Geqp3Fn = void(const I* m, const I* n, T* a, const I* lda, I* jpvt, T* tau, T* work,
                     const I* lwork, I* info);

template <class T, class I = int>
using OrmqrFn = void(const char* side, const char* trans, const I* m, const I* n, const I* k,
                     const T* a, const I* lda, const T* tau, T* c, const I* ldc, T* work,
                     const I* lwork, I* info, std::size_t side_len, std::size_t trans_len);

template <class T, class I = int>
using GeqrtFn = void(const I* m, const I* n, const I* nb, T* a, const I* lda, T* t, const I* ldt,
                     T* work, I* info);

template <class T, class I = int>
using GemqrtFn = void(const char* side, const char* trans, const I* m, const I* n, const I* k,
                      const I* nb, const T* v, const I* ldv, const T* t, const I* ldt, T* c,
                      const I* ldc, T* work, I* info, std::size_t side_len, std::size_t trans_len);

// LAPACK's tall-skinny API (3.7 and later): T holds its block sizes, then its block factors.
template <class T, class I = int>
using GeqrFn = void(const I* m, const I* n, T* a, const I* lda, T* t, const I* tsize, T* work,
                    const I* lwork, I* info);

template <class T, class I = int>
using GemqrFn = void(const char* side, const char* trans, const I* m, const I* n, const I* k,
                     const T* a, const I* lda, const T* t, const I* tsize, T* c, const I* ldc,
                     T* work, const I* lwork, I* info, std::size_t side_len, std::size_t trans_len);

// xGELS, and xGETSLS, whose arguments are the same.
template <class T, class I = int>
using GelsFn = void(const char* trans, const I* m, const I* n, const I* nrhs, T* a, const I* lda,
                    T* b, const I* ldb, T* work, const I* lwork, I* info, std::size_t trans_len);

template <class T, class I = int>
using GelsdFn = void(const I* m, const I* n, const I* nrhs, T* a, const I* lda, T* b, const I* ldb,
                     T* s, const T* rcond, I* rank, T* work, const I* lwork, I* iwork, I* info);

template <class T, class I = int>
using GesddFn = void(const char* jobz, const I* m, const I* n, T* a, const I* lda, T* s, T* u,
                     const I* ldu, T* vt, const I* ldvt, T* work, const I* lwork, I* iwork,
                     I* info, std::size_t jobz_len);

template <class T, class I = int>
using GesvdFn = void(const char* jobu, const char* jobvt, const I* m, const I* n, T* a,
                     const I* lda, T* s, T* u, const I* ldu, T* vt, const I* ldvt, T* work,
                     const I* lwork, I* info, std::size_t jobu_len, std::size_t jobvt_len);

template <class T, class I = int>
using TrtrsFn = void(const char* uplo, const char* trans, const char* diag, const I* n,
                     const I* nrhs, const T* a, const I* lda, T* b, const I* ldb, I* info,
                     std::size_t uplo_len, std::size_t trans_len, std::size_t diag_len);

template <class I>
struct BlasFallbackTable {
  GemmFn<float, I>* sgemm;
  GemmFn<double, I>* dgemm;
  SyrkFn<float, I>* ssyrk;
  SyrkFn<double, I>* dsyrk;
  std::string blas_origin;  // the file dgemm was found in
};

// The BLAS routines and the LAPACK ones. A program whose BLAS calls are all too small for the
// router to weigh never resolves the LAPACK part, which in a program linked without LAPACK
// would open the safety net (about a millisecond on its first call). A weighed call does: the
// figures it is weighed by are those of the fallback's LAPACK (calibration.hpp).
template <class I>
struct FallbackTable : BlasFallbackTable<I> {
  GeqrfFn<float, I>* sgeqrf;
  GeqrfFn<double, I>* dgeqrf;
  OrgqrFn<float, I>* sorgqr;
  OrgqrFn<double, I>* dorgqr;
  OrmqrFn<float, I>* sormqr;
  OrmqrFn<double, I>* dormqr;
  std::string lapack_origin;  // the file dgeqrf was found in
  // Found as the others are, but a library without them (LAPACK before 3.4 has no xGEQRT or
  // xGEMQRT; a stand-in may hold only the routines above) still serves the rest: they are null
  // there, and a call that needs one stops with required()'s message.
  GeqrtFn<float, I>* sgeqrt = nullptr;
  GeqrtFn<double, I>* dgeqrt = nullptr;
  GemqrtFn<float, I>* sgemqrt = nullptr;
  GemqrtFn<double, I>* dgemqrt = nullptr;
  Geqp3Fn<float, I>* sgeqp3 = nullptr;
  Geqp3Fn<double, I>* dgeqp3 = nullptr;
  GelsFn<float, I>* sgels = nullptr;
  GelsFn<double, I>* dgels = nullptr;
  GelsdFn<float, I>* sgelsd = nullptr;
  GelsdFn<double, I>* dgelsd = nullptr;
  GeqrFn<float, I>* sgeqr = nullptr;  // LAPACK 3.7 and later
  GeqrFn<double, I>* dgeqr = nullptr;
  GemqrFn<float, I>* sgemqr = nullptr;
  GemqrFn<double, I>* dgemqr = nullptr;
  GelsFn<float, I>* sgetsls = nullptr;
  GelsFn<double, I>* dgetsls = nullptr;
  GesddFn<float, I>* sgesdd = nullptr;
  GesddFn<double, I>* dgesdd = nullptr;
  GesvdFn<float, I>* sgesvd = nullptr;
  GesvdFn<double, I>* dgesvd = nullptr;
  TrtrsFn<float, I>* strtrs = nullptr;  // for the least-squares route's triangular solve
  TrtrsFn<double, I>* dtrtrs = nullptr;
};
using Fallback = FallbackTable<int>;
using Fallback64 = FallbackTable<std::int64_t>;
using BlasFallback = BlasFallbackTable<int>;
using BlasFallback64 = BlasFallbackTable<std::int64_t>;

// A routine of a table that may lack it (xGEQRT, xGEMQRT, xGEQP3, xGELS, xGELSD, xGEQR, xGEMQR,
// xGETSLS, xGESDD, xGESVD, xTRTRS), named `name` ("dgeqrt_"): `fn`, or when it is null, a fatal error
// with the message of a routine found nowhere.
[[noreturn]] void missing_routine(const char* name);
template <class Fn>
Fn* required(Fn* fn, const char* name) {
  if (!fn) missing_routine(name);
  return fn;
}

// Resolved once, on first use: the BLAS part on a program's first call, the whole on its first
// LAPACK call (or the first one the router weighs, whose figures are its LAPACK's). A symbol
// found nowhere is a fatal error with a clear message: there is no way to compute a correct
// answer without it.
const BlasFallback& fallback_blas();
const Fallback& fallback();
// Resolved on the first 64-bit call, so that a program that makes none never
// needs a 64-bit library.
const BlasFallback64& fallback64_blas();
const Fallback64& fallback64();

// The wheels' bundled OpenBLAS, 32-bit (SciPy's, scipy_dgemm_) and 64-bit (NumPy's,
// scipy_dgemm_64_): each resolved on the first call of its names, from a library whose
// integer width is checked; none acceptable is a fatal error.
const Fallback& wheel_fallback();
const Fallback64& wheel_fallback64();

// An error handler of a wheel's convention ("xerbla_" as scipy_xerbla_ or scipy_xerbla_64_):
// the program's own, else the one of the library wheel_fallback() (64) found; null if neither.
void* wheel_handler(const char* plain, bool ilp64);

// How one table is found: each routine's Fortran name ("dgemm_") with `suffix`
// appended (and `prefix` prepended), in the SWITCHYARD_FALLBACK library, then in
// the next library, then in any loaded library; failing all, with `net_suffix`
// appended in the safety-net libraries `net`, opened with `net_flags`.
//
// With a `width_probe` (scipy_openblas_get_config64_), a library is taken only if
// that function, in the same library, names USE64BITINT exactly when `ilp64`:
// a library whose integers are not the names' is never called.
struct TableSource {
  const char* suffix;
  const char* const* net;
  std::size_t net_count;
  const char* net_suffix;
  int net_flags;
  const char* prefix = "";
  const char* width_probe = nullptr;
  bool ilp64 = false;
};

template <class I>
BlasFallbackTable<I> resolve_blas_table(const TableSource& source);
// The table whose BLAS part is `blas` (resolve_blas_table's, whose safety net may hold the BLAS
// alone), its LAPACK part found now from `source`.
template <class I>
FallbackTable<I> resolve_table(const TableSource& source, const BlasFallbackTable<I>& blas);

// One routine found as resolve_table finds each of its own.
void* resolve_symbol(const char* plain, const TableSource& source);

// The definition of `name` (in full: "scipy_xerbla_64_") that resolve_table would take,
// without the safety net; null, not fatal, if there is none.
void* find_symbol(const std::string& name, const TableSource& source);

// A routine outside the tables, found as fallback64()'s are: libswitchyard.so exports a few
// 64-bit names only so that other libraries recognise it (isamax_64_), and hands their calls on.
void* next_symbol64(const char* plain);

// The suffix a 64-bit entry point's error handlers and fallback add to a name
// to find its 64-bit form: "64_" in libswitchyard.so (xerbla_64_), "" in
// libswitchyard64.so, whose plain names are the 64-bit ones.
extern const char* const ilp64_suffix;

}  // namespace switchyard
