// Random matrices made on the device, so that benchmarks of large shapes do not wait for the
// host to generate gigabytes.
#pragma once

#include <cstddef>

namespace switchyard::bench {

// x[i] uniform in [-1, 1), a hash of (seed, i); synchronous.
template <class T>
void fill_uniform_on_device(T* x, std::size_t count, unsigned seed);

}  // namespace switchyard::bench
