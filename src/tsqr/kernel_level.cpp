// Which of the kernels' copies (cpu_simd.hpp) runs here. On its own, so that a program that
// weighs routes (the router's fuzz target) need not compile the kernels themselves.
#include "cpu_leaf.hpp"
#include "cpu_simd.hpp"

namespace switchyard::tsqr {

// The loader picks x86-64-v4's copy where AVX-512's F, BW, CD, DQ and VL subsets are there,
// v3's where AVX2, FMA and BMI2 are; features asked one by one, as every compiler knows them.
int kernel_level() {
#if SWITCHYARD_HAS_LEVEL_COPIES
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl")) {
    return 4;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi2")) {
    return 3;
  }
#endif
  return 1;
}

}  // namespace switchyard::tsqr
