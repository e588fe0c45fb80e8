// The device lists a split call's tests run on (SWITCHYARD_DEVICES's ordinals): two and three
// shares of this process's device (a repeated device is another stream on it, the same
// algorithm), and every device where there are two or more.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "device/cuda_runtime.hpp"

namespace switchyard::test {

inline std::vector<std::vector<int>> device_lists() {
  const int here = cuda::device_ordinal();
  std::vector<std::vector<int>> lists = {{here, here}, {here, here, here}};
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count >= 2) {
    std::vector<int> every;
    for (int d = 0; d < count; ++d) every.push_back(d);
    lists.push_back(every);
  }
  return lists;
}

// "devices 0 0": a list for a test's trace.
inline std::string named(const std::vector<int>& devices) {
  std::string text = "devices";
  for (int d : devices) text += " " + std::to_string(d);
  return text;
}

}  // namespace switchyard::test
