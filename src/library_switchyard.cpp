// What libswitchyard.so finds in other libraries. Its plain names are the
// 32-bit ones, so the routes and the 32-bit entry points hand on to the next
// library's plain names; its 64-bit entry points (dgemm_64_) to the next
// library's names of the same convention.
#include <dlfcn.h>

#include "fallback.hpp"

namespace switchyard {
namespace {

// Reference LAPACK/BLAS, in libswitchyard.so's link interface but not among its
// dependencies: opened here, RTLD_LOCAL, when nothing loaded provides a routine
// (a preloaded Switchyard in a program whose BLAS is private, or that has none),
// so that their names never enter the program's global scope.
constexpr const char* lp64_net[] = {"liblapack.so.3", "libblas.so.3"};

// Debian's 64-bit reference LAPACK/BLAS name their routines plainly (dgemm_
// with 64-bit integers). Opened with RTLD_DEEPBIND so that their own calls
// (dgeqrf_ calling dgemm_) stay inside them instead of binding to this
// library's 32-bit plain names.
constexpr const char* ilp64_net[] = {"liblapack64.so.3", "libblas64.so.3"};

const TableSource lp64_source{"", lp64_net, 2, "", RTLD_NOW | RTLD_LOCAL};
const TableSource ilp64_source{"64_", ilp64_net, 2, "", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND};
// The BLAS routines' safety net is the BLAS alone (the last of each list), so that finding
// them never opens a LAPACK; LAPACK, opened later, uses that same BLAS.
const TableSource lp64_blas_source{"", lp64_net + 1, 1, "", RTLD_NOW | RTLD_LOCAL};
const TableSource ilp64_blas_source{"64_", ilp64_net + 1, 1, "",
                                    RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND};

}  // namespace

const char* const ilp64_suffix = "64_";

const BlasFallback& fallback_blas() {
  static const BlasFallback table = resolve_blas_table<int>(lp64_blas_source);
  return table;
}

const Fallback& fallback() {
  static const Fallback table = resolve_table<int>(lp64_source, fallback_blas());
  return table;
}

const BlasFallback64& fallback64_blas() {
  static const BlasFallback64 table = resolve_blas_table<std::int64_t>(ilp64_blas_source);
  return table;
}

const Fallback64& fallback64() {
  static const Fallback64 table = resolve_table<std::int64_t>(ilp64_source, fallback64_blas());
  return table;
}

void* next_symbol64(const char* plain) { return resolve_symbol(plain, ilp64_source); }

}  // namespace switchyard
