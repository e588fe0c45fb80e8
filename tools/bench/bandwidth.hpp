// The ceilings the benchmarks print their floors from, measured in the same run.
#pragma once

namespace switchyard::bench {

// GB/s of a 1 GiB device-to-device copy, read and write counted; best of 5 after a warm-up.
double device_copy_bandwidth();

// GB/s of a 1 GiB copy from pinned host memory to the device; best of 5 after a warm-up.
double pinned_to_device_bandwidth();

}  // namespace switchyard::bench
