#include "fallback.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "config.hpp"

namespace switchyard {
namespace {

// Libraries tried last: the reference BLAS/LAPACK Switchyard is linked with,
// which covers a program that loaded its BLAS privately (RTLD_LOCAL).
constexpr const char* safety_net[] = {"liblapack.so.3", "libblas.so.3"};

// The routines Switchyard hands to its fallback (the table below).
constexpr const char* handed_on[] = {"sgemm_",  "dgemm_",  "ssyrk_",  "dsyrk_",
                                     "sgeqrf_", "dgeqrf_", "sorgqr_", "dorgqr_",
                                     "sormqr_", "dormqr_", "strsm_",  "dtrsm_"};

const void* own_base() {
  static const void* base = [] {
    Dl_info self{};
    dladdr(reinterpret_cast<const void*>(&own_base), &self);
    return self.dli_fbase;
  }();
  return base;
}

bool is_own(void* symbol) {
  Dl_info where{};
  return dladdr(symbol, &where) != 0 && where.dli_fbase == own_base();
}

// A library that defines none of them (libm, libz), itself or through the
// libraries it depends on, is surely not the one meant; one that defines some
// runs those, and the next library the rest.
bool defines_any_handed_on(void* handle) {
  for (const char* name : handed_on) {
    void* s = dlsym(handle, name);
    if (s && !is_own(s)) return true;
  }
  return false;
}

void* override_library() {
  const std::string& path = config().fallback_path;
  if (path.empty()) return nullptr;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "switchyard: SWITCHYARD_FALLBACK=%s cannot be loaded (%s); "
                 "using the next library\n", path.c_str(), dlerror());
    return nullptr;
  }
  if (!defines_any_handed_on(handle)) {
    std::fprintf(stderr, "switchyard: SWITCHYARD_FALLBACK=%s defines no BLAS/LAPACK routine "
                 "Switchyard hands on (dgemm_ and the others); using the next library\n",
                 path.c_str());
    dlclose(handle);
    return nullptr;
  }
  return handle;
}

void* resolve(const char* name, void* override_handle) {
  if (override_handle) {
    void* s = dlsym(override_handle, name);
    if (s && !is_own(s)) return s;
  }
  void* next = dlsym(RTLD_NEXT, name);
  if (next && !is_own(next)) return next;
  for (const char* lib : safety_net) {
    void* handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    void* s = handle ? dlsym(handle, name) : nullptr;
    if (s && !is_own(s)) return s;
  }
  std::fprintf(stderr, "switchyard: fatal: no BLAS/LAPACK library provides %s; "
               "set SWITCHYARD_FALLBACK to one that does\n", name);
  std::abort();
}

std::string origin(void* symbol) {
  Dl_info where{};
  return dladdr(symbol, &where) && where.dli_fname ? where.dli_fname : "?";
}

template <class Fn>
Fn* lookup(const char* name, void* override_handle) {
  return reinterpret_cast<Fn*>(resolve(name, override_handle));
}

}  // namespace

const Fallback& fallback() {
  static const Fallback table = [] {
    void* lib = override_library();
    Fallback f{};
    f.sgemm = lookup<GemmFn<float>>("sgemm_", lib);
    f.dgemm = lookup<GemmFn<double>>("dgemm_", lib);
    f.ssyrk = lookup<SyrkFn<float>>("ssyrk_", lib);
    f.dsyrk = lookup<SyrkFn<double>>("dsyrk_", lib);
    f.sgeqrf = lookup<GeqrfFn<float>>("sgeqrf_", lib);
    f.dgeqrf = lookup<GeqrfFn<double>>("dgeqrf_", lib);
    f.sorgqr = lookup<OrgqrFn<float>>("sorgqr_", lib);
    f.dorgqr = lookup<OrgqrFn<double>>("dorgqr_", lib);
    f.sormqr = lookup<OrmqrFn<float>>("sormqr_", lib);
    f.dormqr = lookup<OrmqrFn<double>>("dormqr_", lib);
    f.strsm = lookup<TrsmFn<float>>("strsm_", lib);
    f.dtrsm = lookup<TrsmFn<double>>("dtrsm_", lib);
    f.blas_origin = origin(reinterpret_cast<void*>(f.dgemm));
    f.lapack_origin = origin(reinterpret_cast<void*>(f.dgeqrf));
    return f;
  }();
  return table;
}

}  // namespace switchyard
