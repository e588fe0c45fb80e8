// What libswitchyard64.so finds in other libraries. Its plain names are the
// 64-bit ones, as in Debian's libblas64.so.3 and liblapack64.so.3, and so are
// the next library's: a process that loads it has no 32-bit BLAS to hand
// anything on to. The routes, written for int, reach the 64-bit fallback
// through the widening adapters below.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fallback.hpp"

namespace switchyard {
namespace {

// Debian's 64-bit reference LAPACK/BLAS, in libswitchyard64.so's link interface
// but, as for libswitchyard.so, opened here (RTLD_LOCAL) rather than depended on.
constexpr const char* ilp64_net[] = {"liblapack64.so.3", "libblas64.so.3"};
const TableSource ilp64_source{"", ilp64_net, 2, "", RTLD_NOW | RTLD_LOCAL};
// The BLAS routines' safety net is the BLAS alone, so that finding them never opens a LAPACK.
const TableSource ilp64_blas_source{"", ilp64_net + 1, 1, "", RTLD_NOW | RTLD_LOCAL};

using I64 = std::int64_t;

// The 64-bit table's routine of each precision.
template <class T>
struct Routines64;
template <>
struct Routines64<float> {
  static auto gemm() { return fallback64_blas().sgemm; }
  static auto syrk() { return fallback64_blas().ssyrk; }
  static auto geqrf() { return fallback64().sgeqrf; }
  static auto orgqr() { return fallback64().sorgqr; }
  static auto ormqr() { return fallback64().sormqr; }
  static auto geqp3() { return required(fallback64().sgeqp3, "sgeqp3_"); }
  static auto gels() { return required(fallback64().sgels, "sgels_"); }
  static auto gelsd() { return required(fallback64().sgelsd, "sgelsd_"); }
  static auto gesdd() { return required(fallback64().sgesdd, "sgesdd_"); }
  static auto gesvd() { return required(fallback64().sgesvd, "sgesvd_"); }
  static auto trtrs() { return required(fallback64().strtrs, "strtrs_"); }
};
template <>
struct Routines64<double> {
  static auto gemm() { return fallback64_blas().dgemm; }
  static auto syrk() { return fallback64_blas().dsyrk; }
  static auto geqrf() { return fallback64().dgeqrf; }
  static auto orgqr() { return fallback64().dorgqr; }
  static auto ormqr() { return fallback64().dormqr; }
  static auto geqp3() { return required(fallback64().dgeqp3, "dgeqp3_"); }
  static auto gels() { return required(fallback64().dgels, "dgels_"); }
  static auto gelsd() { return required(fallback64().dgelsd, "dgelsd_"); }
  static auto gesdd() { return required(fallback64().dgesdd, "dgesdd_"); }
  static auto gesvd() { return required(fallback64().dgesvd, "dgesvd_"); }
  static auto trtrs() { return required(fallback64().dtrtrs, "dtrtrs_"); }
};

// Each adapter has the 32-bit signature and calls the 64-bit routine with its
// integers widened; INFO comes back narrowed (it is 0 or a parameter number).
template <class T>
void gemm(const char* ta, const char* tb, const int* m, const int* n, const int* k, const T* alpha,
          const T* a, const int* lda, const T* b, const int* ldb, const T* beta, T* c,
          const int* ldc, std::size_t ta_len, std::size_t tb_len) {
  const I64 m64 = *m, n64 = *n, k64 = *k, lda64 = *lda, ldb64 = *ldb, ldc64 = *ldc;
  Routines64<T>::gemm()(ta, tb, &m64, &n64, &k64, alpha, a, &lda64, b, &ldb64, beta, c, &ldc64,
                        ta_len, tb_len);
}

template <class T>
void syrk(const char* uplo, const char* trans, const int* n, const int* k, const T* alpha,
          const T* a, const int* lda, const T* beta, T* c, const int* ldc, std::size_t uplo_len,
          std::size_t trans_len) {
  const I64 n64 = *n, k64 = *k, lda64 = *lda, ldc64 = *ldc;
  Routines64<T>::syrk()(uplo, trans, &n64, &k64, alpha, a, &lda64, beta, c, &ldc64, uplo_len,
                        trans_len);
}

template <class T>
void geqrf(const int* m, const int* n, T* a, const int* lda, T* tau, T* work, const int* lwork,
           int* info) {
  const I64 m64 = *m, n64 = *n, lda64 = *lda, lwork64 = *lwork;
  I64 info64 = 0;
  Routines64<T>::geqrf()(&m64, &n64, a, &lda64, tau, work, &lwork64, &info64);
  *info = int(info64);
}

template <class T>
void orgqr(const int* m, const int* n, const int* k, T* a, const int* lda, const T* tau, T* work,
           const int* lwork, int* info) {
  const I64 m64 = *m, n64 = *n, k64 = *k, lda64 = *lda, lwork64 = *lwork;
  I64 info64 = 0;
  Routines64<T>::orgqr()(&m64, &n64, &k64, a, &lda64, tau, work, &lwork64, &info64);
  *info = int(info64);
}

template <class T>
void ormqr(const char* side, const char* trans, const int* m, const int* n, const int* k,
           const T* a, const int* lda, const T* tau, T* c, const int* ldc, T* work,
           const int* lwork, int* info, std::size_t side_len, std::size_t trans_len) {
  const I64 m64 = *m, n64 = *n, k64 = *k, lda64 = *lda, ldc64 = *ldc, lwork64 = *lwork;
  I64 info64 = 0;
  Routines64<T>::ormqr()(side, trans, &m64, &n64, &k64, a, &lda64, tau, c, &ldc64, work, &lwork64,
                         &info64, side_len, trans_len);
  *info = int(info64);
}

// JPVT goes through a 64-bit copy; on entry only whether each element is zero matters.
template <class T>
void geqp3(const int* m, const int* n, T* a, const int* lda, int* jpvt, T* tau, T* work,
           const int* lwork, int* info) {
  const I64 m64 = *m, n64 = *n, lda64 = *lda, lwork64 = *lwork;
  I64 info64 = 0;
  std::vector<I64> jpvt64(jpvt, jpvt + std::max(0, *n));
  Routines64<T>::geqp3()(&m64, &n64, a, &lda64, jpvt64.data(), tau, work, &lwork64, &info64);
  std::copy(jpvt64.begin(), jpvt64.end(), jpvt);
  *info = int(info64);
}

template <class T>
void gels(const char* trans, const int* m, const int* n, const int* nrhs, T* a, const int* lda,
          T* b, const int* ldb, T* work, const int* lwork, int* info, std::size_t trans_len) {
  const I64 m64 = *m, n64 = *n, nrhs64 = *nrhs, lda64 = *lda, ldb64 = *ldb, lwork64 = *lwork;
  I64 info64 = 0;
  Routines64<T>::gels()(trans, &m64, &n64, &nrhs64, a, &lda64, b, &ldb64, work, &lwork64, &info64,
                        trans_len);
  *info = int(info64);
}

// IWORK goes through a 64-bit copy of xGELSD's size for it, 3 MINMN NLVL + 11 MINMN with NLVL
// from the least SMLSIZ an ILAENV gives (1), and only IWORK(1), the size, comes back.
template <class T>
void gelsd(const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b, const int* ldb,
           T* s, const T* rcond, int* rank, T* work, const int* lwork, int* iwork, int* info) {
  const I64 m64 = *m, n64 = *n, nrhs64 = *nrhs, lda64 = *lda, ldb64 = *ldb, lwork64 = *lwork;
  const I64 minmn = std::max<I64>(1, std::min(m64, n64));
  I64 levels = 1;
  while ((I64(1) << levels) < minmn) ++levels;
  std::vector<I64> iwork64(std::size_t(3 * minmn * (levels + 1) + 11 * minmn));
  I64 rank64 = 0, info64 = 0;
  Routines64<T>::gelsd()(&m64, &n64, &nrhs64, a, &lda64, b, &ldb64, s, rcond, &rank64, work,
                         &lwork64, iwork64.data(), &info64);
  iwork[0] = int(iwork64[0]);
  *rank = int(rank64);
  *info = int(info64);
}

// IWORK (8 min(M, N) of workspace, nothing on exit) goes through a 64-bit array of that size.
template <class T>
void gesdd(const char* jobz, const int* m, const int* n, T* a, const int* lda, T* s, T* u,
           const int* ldu, T* vt, const int* ldvt, T* work, const int* lwork, int* /*iwork*/,
           int* info, std::size_t jobz_len) {
  const I64 m64 = *m, n64 = *n, lda64 = *lda, ldu64 = *ldu, ldvt64 = *ldvt, lwork64 = *lwork;
  std::vector<I64> iwork64(std::size_t(8 * std::max<I64>(1, std::min(m64, n64))));
  I64 info64 = 0;
  Routines64<T>::gesdd()(jobz, &m64, &n64, a, &lda64, s, u, &ldu64, vt, &ldvt64, work, &lwork64,
                         iwork64.data(), &info64, jobz_len);
  *info = int(info64);
}

template <class T>
void gesvd(const char* jobu, const char* jobvt, const int* m, const int* n, T* a, const int* lda,
           T* s, T* u, const int* ldu, T* vt, const int* ldvt, T* work, const int* lwork,
           int* info, std::size_t jobu_len, std::size_t jobvt_len) {
  const I64 m64 = *m, n64 = *n, lda64 = *lda, ldu64 = *ldu, ldvt64 = *ldvt, lwork64 = *lwork;
  I64 info64 = 0;
  Routines64<T>::gesvd()(jobu, jobvt, &m64, &n64, a, &lda64, s, u, &ldu64, vt, &ldvt64, work,
                         &lwork64, &info64, jobu_len, jobvt_len);
  *info = int(info64);
}

template <class T>
void trtrs(const char* uplo, const char* trans, const char* diag, const int* n, const int* nrhs,
           const T* a, const int* lda, T* b, const int* ldb, int* info, std::size_t uplo_len,
           std::size_t trans_len, std::size_t diag_len) {
  const I64 n64 = *n, nrhs64 = *nrhs, lda64 = *lda, ldb64 = *ldb;
  I64 info64 = 0;
  Routines64<T>::trtrs()(uplo, trans, diag, &n64, &nrhs64, a, &lda64, b, &ldb64, &info64, uplo_len,
                         trans_len, diag_len);
  *info = int(info64);
}

}  // namespace

const char* const ilp64_suffix = "";

const BlasFallback64& fallback64_blas() {
  static const BlasFallback64 table = resolve_blas_table<std::int64_t>(ilp64_blas_source);
  return table;
}

const Fallback64& fallback64() {
  static const Fallback64 table = resolve_table<std::int64_t>(ilp64_source, fallback64_blas());
  return table;
}

const BlasFallback& fallback_blas() {
  static const BlasFallback table{gemm<float>, gemm<double>, syrk<float>, syrk<double>,
                                  fallback64_blas().blas_origin};
  return table;
}

const Fallback& fallback() {
  static const Fallback table = [] {
    Fallback f{};
    static_cast<BlasFallback&>(f) = fallback_blas();
    f.sgeqrf = geqrf<float>;
    f.dgeqrf = geqrf<double>;
    f.sorgqr = orgqr<float>;
    f.dorgqr = orgqr<double>;
    f.sormqr = ormqr<float>;
    f.dormqr = ormqr<double>;
    f.lapack_origin = fallback64().lapack_origin;
    f.sgeqp3 = geqp3<float>;
    f.dgeqp3 = geqp3<double>;
    f.sgels = gels<float>;
    f.dgels = gels<double>;
    f.sgelsd = gelsd<float>;
    f.dgelsd = gelsd<double>;
    f.sgesdd = gesdd<float>;
    f.dgesdd = gesdd<double>;
    f.sgesvd = gesvd<float>;
    f.dgesvd = gesvd<double>;
    f.strtrs = trtrs<float>;
    f.dtrtrs = trtrs<double>;
    return f;
  }();
  return table;
}

}  // namespace switchyard
