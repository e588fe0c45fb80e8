#include "loaded_objects.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdint>

namespace switchyard {
namespace {

struct Search {
  std::uintptr_t address = 0;
  bool found = false;
  std::uintptr_t base = 0;
  const char* name = nullptr;  // the loader's own copy, kept while the object is loaded
};

// Called with the loader's lock held: it only reads, and allocates nothing.
int look_in(dl_phdr_info* info, std::size_t, void* data) {
  Search& s = *static_cast<Search*>(data);
  std::uintptr_t lowest = UINTPTR_MAX;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    const std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    lowest = std::min(lowest, begin);
    if (s.address >= begin && s.address - begin < segment.p_memsz) s.found = true;
  }
  if (!s.found) return 0;
  s.base = lowest;
  s.name = info->dlpi_name;
  return 1;  // stops the iteration
}

// The loaded object holding `address`, if any, as the loader lists it.
Search search(const void* address) {
  Search s;
  s.address = reinterpret_cast<std::uintptr_t>(address);
  dl_iterate_phdr(look_in, &s);
  return s;
}

}  // namespace

bool object_containing(const void* address, LoadedObject& found) {
  const Search s = search(address);
  if (!s.found) return false;
  found.base = reinterpret_cast<const void*>(s.base);
  found.name = s.name ? s.name : "";
  if (found.name.empty()) {
    // The program itself, which the loader lists without a name: dladdr names it, once per
    // call here, which only a program with its own BLAS linked in makes.
    Dl_info where{};
    if (dladdr(address, &where) && where.dli_fname) found.name = where.dli_fname;
  }
  return true;
}

// Compares bases alone: no name is copied, nor asked of dladdr for a symbol in the program.
bool is_own(const void* address) {
  static const Search own = search(reinterpret_cast<const void*>(&is_own));
  if (!own.found) return false;
  const Search where = search(address);
  return where.found && where.base == own.base;
}

}  // namespace switchyard
