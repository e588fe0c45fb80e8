// cudaMalloc memory, which the host cannot read, holding a copy of host data (or `size`
// elements of `fill`, NaN unless given, so that an element a test's call leaves unwritten
// shows); freed with the object.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace switchyard::test {

template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& host) : size_(host.size()) {
    EXPECT_EQ(
        cudaMalloc(reinterpret_cast<void**>(&data_), sizeof(T) * std::max<std::size_t>(1, size_)),
        cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, host.data(), sizeof(T) * size_, cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  explicit DeviceArray(std::size_t size, T fill = std::numeric_limits<T>::quiet_NaN())
      : DeviceArray(std::vector<T>(size, fill)) {}
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return data_; }
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    EXPECT_EQ(cudaMemcpy(host.data(), data_, sizeof(T) * size_, cudaMemcpyDeviceToHost),
              cudaSuccess);
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t size_;
};

}  // namespace switchyard::test
