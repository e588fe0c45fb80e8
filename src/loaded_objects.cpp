#include "loaded_objects.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <utility>

namespace switchyard {
namespace {

struct Search {
  std::uintptr_t address = 0;
  bool found = false;
  LoadedObject object;
};

int look_in(dl_phdr_info* info, std::size_t, void* data) {
  Search& s = *static_cast<Search*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    const std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (s.address >= begin && s.address - begin < segment.p_memsz) {
      s.found = true;
      s.object.base = reinterpret_cast<const void*>(info->dlpi_addr);
      s.object.name = info->dlpi_name ? info->dlpi_name : "";
      return 1;  // stops the iteration
    }
  }
  return 0;
}

}  // namespace

bool object_containing(const void* address, LoadedObject& found) {
  Search s;
  s.address = reinterpret_cast<std::uintptr_t>(address);
  dl_iterate_phdr(look_in, &s);
  if (!s.found) return false;
  if (s.object.name.empty()) {
    // The program itself, which the loader lists without a name: dladdr names it, once per
    // call here, which only a program with its own BLAS linked in makes.
    Dl_info where{};
    if (dladdr(address, &where) && where.dli_fname) s.object.name = where.dli_fname;
  }
  found = std::move(s.object);
  return true;
}

}  // namespace switchyard
