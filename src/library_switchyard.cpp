// What libswitchyard.so finds in other libraries. Its plain names are the
// 32-bit ones, so the routes and the 32-bit entry points hand on to the next
// library's plain names; its 64-bit entry points (dgemm_64_) to the next
// library's names of the same convention.
#include <dlfcn.h>

#include "fallback.hpp"

namespace switchyard {
namespace {

// Reference LAPACK/BLAS, which libswitchyard.so is linked with: they cover a
// program that loaded its BLAS privately (RTLD_LOCAL).
constexpr const char* lp64_net[] = {"liblapack.so.3", "libblas.so.3"};

// Debian's 64-bit reference LAPACK/BLAS name their routines plainly (dgemm_
// with 64-bit integers). Opened with RTLD_DEEPBIND so that their own calls
// (dgeqrf_ calling dgemm_) stay inside them instead of binding to this
// library's 32-bit plain names.
constexpr const char* ilp64_net[] = {"liblapack64.so.3", "libblas64.so.3"};

const TableSource ilp64_source{"64_", ilp64_net, 2, "", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND};

}  // namespace

const char* const ilp64_suffix = "64_";

const Fallback& fallback() {
  static const Fallback table = resolve_table<int>({"", lp64_net, 2, "", RTLD_NOW | RTLD_LOCAL});
  return table;
}

const Fallback64& fallback64() {
  static const Fallback64 table = resolve_table<std::int64_t>(ilp64_source);
  return table;
}

void* next_symbol64(const char* plain) { return resolve_symbol(plain, ilp64_source); }

}  // namespace switchyard
