// What the names of the pip wheels' bundled OpenBLAS are handed on to (docs/pip-wheels.md):
// that OpenBLAS itself. NumPy's wheels call scipy_dgemm_64_ and the rest with 64-bit
// integers in their scipy-openblas64 build, SciPy's call scipy_dgemm_ with 32-bit ones in
// their scipy-openblas32 build. Python opens both with RTLD_LOCAL, so they are found among
// the loaded libraries rather than through RTLD_NEXT; the width check keeps a library whose
// integers are not the names' from ever being called. There is no safety net: a process that
// calls these names has loaded a wheel's library.
#include <dlfcn.h>

#include <string>

#include "fallback.hpp"

namespace switchyard {
namespace {

// Every scipy-openblas build names its configuration string as it names its routines, and
// the string lists USE64BITINT in the 64-bit build only.
const TableSource scipy_openblas32{"",   nullptr, 0, "", 0, "scipy_", "scipy_openblas_get_config",
                                   false};
const TableSource scipy_openblas64{
    "64_", nullptr, 0, "", 0, "scipy_", "scipy_openblas_get_config64_", true};

}  // namespace

const Fallback& wheel_fallback() {
  static const Fallback table =
      resolve_table<int>(scipy_openblas32, resolve_blas_table<int>(scipy_openblas32));
  return table;
}

const Fallback64& wheel_fallback64() {
  static const Fallback64 table = resolve_table<std::int64_t>(
      scipy_openblas64, resolve_blas_table<std::int64_t>(scipy_openblas64));
  return table;
}

void* wheel_handler(const char* plain, bool ilp64) {
  const TableSource& source = ilp64 ? scipy_openblas64 : scipy_openblas32;
  const std::string name = source.prefix + std::string(plain) + source.suffix;
  // A program's own handler first, as for reference names; Switchyard defines none of these.
  if (void* own = dlsym(RTLD_DEFAULT, name.c_str())) return own;
  return find_symbol(name, source);
}

}  // namespace switchyard
