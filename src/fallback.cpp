#include "fallback.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "config.hpp"

namespace switchyard {
namespace {

// The routines Switchyard hands to its fallback (resolve_table).
constexpr const char* handed_on[] = {"sgemm_",  "dgemm_",  "ssyrk_",  "dsyrk_",  "sgeqrf_",
                                     "dgeqrf_", "sorgqr_", "dorgqr_", "sormqr_", "dormqr_"};

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

// A library that defines none of them in either width's names (libm, libz),
// itself or through the libraries it depends on, is surely not the one meant;
// one that defines some runs those, and the next library the rest.
bool defines_any_handed_on(void* handle) {
  for (const char* name : handed_on) {
    for (const std::string& s : {std::string(name), name + std::string(ilp64_suffix)}) {
      void* symbol = dlsym(handle, s.c_str());
      if (symbol && !is_own(symbol)) return true;
    }
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

// Opened once, whichever table is resolved first, so that a refusal is said once.
void* override_handle() {
  static void* const handle = override_library();
  return handle;
}

// The first loaded library, in load order, that defines `name` and is not Switchyard, found
// by opening each again: a library the program opened with dlopen(RTLD_LOCAL) is outside
// the scope RTLD_NEXT searches. Python loads NumPy's and SciPy's bundled OpenBLAS so, and
// NumPy's wheels up to 1.26 call it by the 64-bit names Switchyard exports (dgemm_64_).
void* loaded_definition(const std::string& name) {
  std::vector<std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        if (info->dlpi_name && *info->dlpi_name) {
          static_cast<std::vector<std::string>*>(data)->push_back(info->dlpi_name);
        }
        return 0;
      },
      &paths);
  // Opened outside the iteration, which holds the loader's lock.
  for (const std::string& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) continue;
    void* symbol = dlsym(handle, name.c_str());
    dlclose(handle);  // still loaded: RTLD_NOLOAD only counted one more user
    if (symbol && !is_own(symbol)) return symbol;
  }
  return nullptr;
}

void* resolve(const std::string& plain, const TableSource& source, void* override_lib) {
  const std::string name = plain + source.suffix;
  if (override_lib) {
    void* s = dlsym(override_lib, name.c_str());
    if (s && !is_own(s)) return s;
  }
  void* next = dlsym(RTLD_NEXT, name.c_str());
  if (next && !is_own(next)) return next;
  if (void* loaded = loaded_definition(name)) return loaded;
  const std::string net_name = plain + source.net_suffix;
  for (std::size_t i = 0; i < source.net_count; ++i) {
    void* handle = dlopen(source.net[i], source.net_flags);
    void* s = handle ? dlsym(handle, net_name.c_str()) : nullptr;
    if (s && !is_own(s)) return s;
  }
  std::fprintf(stderr, "switchyard: fatal: no BLAS/LAPACK library provides %s; "
               "set SWITCHYARD_FALLBACK to one that does\n", name.c_str());
  std::abort();
}

std::string origin(void* symbol) {
  Dl_info where{};
  return dladdr(symbol, &where) && where.dli_fname ? where.dli_fname : "?";
}

template <class Fn>
Fn* lookup(const char* plain, const TableSource& source) {
  return reinterpret_cast<Fn*>(resolve(plain, source, override_handle()));
}

}  // namespace

void* resolve_symbol(const char* plain, const TableSource& source) {
  return resolve(plain, source, override_handle());
}

template <class I>
FallbackTable<I> resolve_table(const TableSource& source) {
  FallbackTable<I> f{};
  f.sgemm = lookup<GemmFn<float, I>>("sgemm_", source);
  f.dgemm = lookup<GemmFn<double, I>>("dgemm_", source);
  f.ssyrk = lookup<SyrkFn<float, I>>("ssyrk_", source);
  f.dsyrk = lookup<SyrkFn<double, I>>("dsyrk_", source);
  f.sgeqrf = lookup<GeqrfFn<float, I>>("sgeqrf_", source);
  f.dgeqrf = lookup<GeqrfFn<double, I>>("dgeqrf_", source);
  f.sorgqr = lookup<OrgqrFn<float, I>>("sorgqr_", source);
  f.dorgqr = lookup<OrgqrFn<double, I>>("dorgqr_", source);
  f.sormqr = lookup<OrmqrFn<float, I>>("sormqr_", source);
  f.dormqr = lookup<OrmqrFn<double, I>>("dormqr_", source);
  f.blas_origin = origin(reinterpret_cast<void*>(f.dgemm));
  f.lapack_origin = origin(reinterpret_cast<void*>(f.dgeqrf));
  return f;
}

template FallbackTable<int> resolve_table<int>(const TableSource&);
template FallbackTable<std::int64_t> resolve_table<std::int64_t>(const TableSource&);

}  // namespace switchyard
