#include "fallback.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "config.hpp"
#include "loaded_objects.hpp"

namespace switchyard {
namespace {

// The routines Switchyard hands to its fallback (resolve_table).
constexpr const char* handed_on[] = {"sgemm_",  "dgemm_",  "ssyrk_",  "dsyrk_",  "sgeqrf_",
                                     "dgeqrf_", "sorgqr_", "dorgqr_", "sormqr_", "dormqr_"};

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

// Says once per library why a library that defines a routine is not called.
void refuse(const char* library, const std::string& why) {
  static std::mutex mutex;
  static std::set<std::string> refused;
  const std::lock_guard<std::mutex> lock(mutex);
  if (refused.insert(library).second) {
    std::fprintf(stderr, "switchyard: %s is not called: %s\n", library, why.c_str());
  }
}

// Whether the library that defines `symbol` takes the integers the names of `source` take, as
// its width probe (in that same library) says; one without a probe cannot say, and is refused.
bool width_agrees(void* symbol, const TableSource& source) {
  if (!source.width_probe) return true;
  LoadedObject where;
  if (!object_containing(symbol, where)) return false;
  void* handle = dlopen(where.name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  void* probe = handle ? dlsym(handle, source.width_probe) : nullptr;
  if (handle) dlclose(handle);  // still loaded, as in loaded_definition
  LoadedObject probe_where;
  if (!probe || !object_containing(probe, probe_where) || probe_where.base != where.base) {
    refuse(where.name.c_str(), std::string("it has no ") + source.width_probe +
                                   " to say whether its integers are 32-bit or 64-bit");
    return false;
  }
  const char* config = reinterpret_cast<const char* (*)()>(probe)();
  const bool ilp64 = config && std::strstr(config, "USE64BITINT");
  if (ilp64 == source.ilp64) return true;
  refuse(where.name.c_str(), std::string(source.width_probe) + " says \"" + (config ? config : "") +
                                 "\": its integers are " + (ilp64 ? "64" : "32") +
                                 "-bit, the names Switchyard hands on to it take " +
                                 (source.ilp64 ? "64" : "32") + "-bit ones");
  return false;
}

// Whether a definition may be called: it is not Switchyard's own, and its library takes the
// integers its name does.
bool callable(void* symbol, const TableSource& source) {
  return symbol && !is_own(symbol) && width_agrees(symbol, source);
}

// The first loaded library, in load order, that defines `name` callably, found by opening each
// again: a library the program opened with dlopen(RTLD_LOCAL) is outside the scope RTLD_NEXT
// searches. Python loads NumPy's and SciPy's bundled OpenBLAS so, and their wheels call it by
// names Switchyard exports (dgemm_64_ up to NumPy 1.26, scipy_dgemm_64_ and scipy_dgemm_ since).
void* loaded_definition(const std::string& name, const TableSource& source) {
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
    if (callable(symbol, source)) return symbol;
  }
  return nullptr;
}

// `name`'s definition in the SWITCHYARD_FALLBACK library, the next library or any loaded one;
// null if none may be called.
void* find(const std::string& name, const TableSource& source, void* override_lib) {
  if (override_lib) {
    void* s = dlsym(override_lib, name.c_str());
    if (callable(s, source)) return s;
  }
  void* next = dlsym(RTLD_NEXT, name.c_str());
  if (callable(next, source)) return next;
  return loaded_definition(name, source);
}

// `plain`'s definition as the table takes it: in the libraries find() searches, else in the
// safety net; null if none.
void* resolve_optional(const std::string& plain, const TableSource& source, void* override_lib) {
  const std::string name = source.prefix + plain + source.suffix;
  if (void* found = find(name, source, override_lib)) return found;
  const std::string net_name = plain + source.net_suffix;
  for (std::size_t i = 0; i < source.net_count; ++i) {
    void* handle = dlopen(source.net[i], source.net_flags);
    void* s = handle ? dlsym(handle, net_name.c_str()) : nullptr;
    if (s && !is_own(s)) return s;
  }
  return nullptr;
}

void* resolve(const std::string& plain, const TableSource& source, void* override_lib) {
  if (void* found = resolve_optional(plain, source, override_lib)) return found;
  const std::string name = source.prefix + plain + source.suffix;
  if (source.width_probe) {
    std::fprintf(stderr,
                 "switchyard: fatal: no library that Switchyard may call provides %s "
                 "with %s-bit integers, and the call cannot run without one; run the program "
                 "without Switchyard\n",
                 name.c_str(), source.ilp64 ? "64" : "32");
  } else {
    missing_routine(name.c_str());
  }
  std::abort();
}

std::string origin(void* symbol) {
  LoadedObject where;
  return object_containing(symbol, where) && !where.name.empty() ? where.name : "?";
}

template <class Fn>
Fn* lookup(const char* plain, const TableSource& source) {
  return reinterpret_cast<Fn*>(resolve(plain, source, override_handle()));
}

template <class Fn>
Fn* lookup_optional(const char* plain, const TableSource& source) {
  return reinterpret_cast<Fn*>(resolve_optional(plain, source, override_handle()));
}

}  // namespace

void missing_routine(const char* name) {
  std::fprintf(stderr,
               "switchyard: fatal: no BLAS/LAPACK library provides %s; "
               "set SWITCHYARD_FALLBACK to one that does\n",
               name);
  std::abort();
}

void* resolve_symbol(const char* plain, const TableSource& source) {
  return resolve(plain, source, override_handle());
}

void* find_symbol(const std::string& name, const TableSource& source) {
  return find(name, source, override_handle());
}

template <class I>
BlasFallbackTable<I> resolve_blas_table(const TableSource& source) {
  BlasFallbackTable<I> f{};
  f.sgemm = lookup<GemmFn<float, I>>("sgemm_", source);
  f.dgemm = lookup<GemmFn<double, I>>("dgemm_", source);
  f.ssyrk = lookup<SyrkFn<float, I>>("ssyrk_", source);
  f.dsyrk = lookup<SyrkFn<double, I>>("dsyrk_", source);
  f.blas_origin = origin(reinterpret_cast<void*>(f.dgemm));
  return f;
}

template <class I>
FallbackTable<I> resolve_table(const TableSource& source, const BlasFallbackTable<I>& blas) {
  FallbackTable<I> f{};
  static_cast<BlasFallbackTable<I>&>(f) = blas;
  f.sgeqrf = lookup<GeqrfFn<float, I>>("sgeqrf_", source);
  f.dgeqrf = lookup<GeqrfFn<double, I>>("dgeqrf_", source);
  f.sorgqr = lookup<OrgqrFn<float, I>>("sorgqr_", source);
  f.dorgqr = lookup<OrgqrFn<double, I>>("dorgqr_", source);
  f.sormqr = lookup<OrmqrFn<float, I>>("sormqr_", source);
  f.dormqr = lookup<OrmqrFn<double, I>>("dormqr_", source);
  f.lapack_origin = origin(reinterpret_cast<void*>(f.dgeqrf));
  f.sgeqrt = lookup_optional<GeqrtFn<float, I>>("sgeqrt_", source);
  f.dgeqrt = lookup_optional<GeqrtFn<double, I>>("dgeqrt_", source);
  f.sgemqrt = lookup_optional<GemqrtFn<float, I>>("sgemqrt_", source);
  f.dgemqrt = lookup_optional<GemqrtFn<double, I>>("dgemqrt_", source);
  f.sgeqp3 = lookup_optional<Geqp3Fn<float, I>>("sgeqp3_", source);
  f.dgeqp3 = lookup_optional<Geqp3Fn<double, I>>("dgeqp3_", source);
  f.sgels = lookup_optional<GelsFn<float, I>>("sgels_", source);
  f.dgels = lookup_optional<GelsFn<double, I>>("dgels_", source);
  f.sgelsd = lookup_optional<GelsdFn<float, I>>("sgelsd_", source);
  f.dgelsd = lookup_optional<GelsdFn<double, I>>("dgelsd_", source);
  f.sgeqr = lookup_optional<GeqrFn<float, I>>("sgeqr_", source);
  f.dgeqr = lookup_optional<GeqrFn<double, I>>("dgeqr_", source);
  f.sgemqr = lookup_optional<GemqrFn<float, I>>("sgemqr_", source);
  f.dgemqr = lookup_optional<GemqrFn<double, I>>("dgemqr_", source);
  f.sgetsls = lookup_optional<GelsFn<float, I>>("sgetsls_", source);
  f.dgetsls = lookup_optional<GelsFn<double, I>>("dgetsls_", source);
  f.sgesdd = lookup_optional<GesddFn<float, I>>("sgesdd_", source);
  f.dgesdd = lookup_optional<GesddFn<double, I>>("dgesdd_", source);
  f.sgesvd = lookup_optional<GesvdFn<float, I>>("sgesvd_", source);
  f.dgesvd = lookup_optional<GesvdFn<double, I>>("dgesvd_", source);
  f.strtrs = lookup_optional<TrtrsFn<float, I>>("strtrs_", source);
  f.dtrtrs = lookup_optional<TrtrsFn<double, I>>("dtrtrs_", source);
  return f;
}

template BlasFallbackTable<int> resolve_blas_table<int>(const TableSource&);
template BlasFallbackTable<std::int64_t> resolve_blas_table<std::int64_t>(const TableSource&);
template FallbackTable<int> resolve_table<int>(const TableSource&, const BlasFallbackTable<int>&);
template FallbackTable<std::int64_t> resolve_table<std::int64_t>(
    const TableSource&, const BlasFallbackTable<std::int64_t>&);

}  // namespace switchyard
