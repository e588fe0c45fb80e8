// Which loaded object (the program or a shared library) holds an address, from the program
// headers the dynamic loader keeps. dladdr answers the same question but also looks for the
// nearest symbol, walking the object's whole symbol table: the fallback's resolution asked it
// about a hundred times, and a process's first call through Switchyard took 2.9 ms more than
// OpenBLAS alone's (0.01 ms) on a 2-core host, 4-5 ms on nvidia-h200's, most of it in dladdr.
#pragma once

#include <string>

namespace switchyard {

struct LoadedObject {
  // Where its lowest loaded segment begins: the same for every address in it, and unlike the
  // loader's load bias (0 for a program not built position-independent) never another's.
  const void* base = nullptr;
  std::string name;            // its path as loaded; the program's own as dladdr gives it
};

// The object one of whose loaded segments holds `address`; false if none does.
bool object_containing(const void* address, LoadedObject& found);

// Whether `address` lies in the object this code was loaded with (libswitchyard.so): a
// definition found there would hand a call back to Switchyard itself.
bool is_own(const void* address);

}  // namespace switchyard
