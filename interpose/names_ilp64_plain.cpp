// libswitchyard64.so's names: the plain names with 64-bit integers, as
// Debian's libblas64.so.3, liblapack64.so.3 and liblapacke64.so.3 have them.
#include <cstddef>
#include <cstdint>

#include "entry.hpp"
#include "export.hpp"

#define SWITCHYARD_CONVENTION switchyard::Ilp64
#define SWITCHYARD_NAME(name) name
#include "names.inc"
