// Marks a symbol the library exports; everything else is hidden.
#pragma once

#define SWITCHYARD_EXPORT extern "C" __attribute__((visibility("default")))

// A second name for an exported function (the Fortran names without the underscore, the
// other spelling of the 64-bit C names).
#define SWITCHYARD_ALIAS(target) __attribute__((visibility("default"), alias(#target)))
