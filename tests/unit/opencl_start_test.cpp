// When the OpenCL family's start ends: with the route's first program, not with its context.
#include <gtest/gtest.h>

#include <string>

#include "device/opencl_runtime.hpp"
#include "device/startup.hpp"
#include "gemm/opencl_route.hpp"

namespace {

namespace device = switchyard::device;

// A call that found the device started while a start in the background was still compiling
// would wait for the compile, where the router, seeing the start under way, keeps it in the
// fallback.
TEST(OpenClStart, EndsWithTheFirstProgramNotWithTheContext) {
  const char* why = nullptr;
  switchyard::opencl::Runtime* rt = switchyard::opencl::runtime(&why);
  if (!rt) GTEST_SKIP() << "no OpenCL device: " << why;
  EXPECT_EQ(device::state(device::Family::opencl), device::State::starting);
  std::string error;
  ASSERT_NE(switchyard::opencl_route::kernels<double>(*rt, error), nullptr) << error;
  EXPECT_EQ(device::state(device::Family::opencl), device::State::started);
}

}  // namespace
