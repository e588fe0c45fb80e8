// Marks a symbol the library exports; everything else is hidden.
#pragma once

#define SWITCHYARD_EXPORT extern "C" __attribute__((visibility("default")))

// A second name for an exported function (the unsuffixed Fortran names).
#define SWITCHYARD_ALIAS(target) __attribute__((visibility("default"), alias(#target)))
