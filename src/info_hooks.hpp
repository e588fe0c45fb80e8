// Lines a route adds to `switchyard info`, set by the route's own source
// file when it is part of the build (as routes plug into dispatch.hpp).
#pragma once

#include <cstdio>

namespace switchyard {

// The gemm route's OpenCL device and the tuning entry it would use.
inline void (*print_gemm_info)(FILE* out) = nullptr;

}  // namespace switchyard
