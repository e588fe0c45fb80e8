// For the tests that need a CUDA device: each starts with SKIP_WITHOUT_CUDA(), which reports the
// test skipped, with the reason, where this process can run no CUDA work.
#pragma once

#include <gtest/gtest.h>

#include "device/cuda_runtime.hpp"

#define SKIP_WITHOUT_CUDA()                                                     \
  do {                                                                          \
    if (const char* why = switchyard::cuda::unavailable()) GTEST_SKIP() << why; \
  } while (0)
