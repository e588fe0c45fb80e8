// Reference BLAS/LAPACK reached directly (not through Switchyard's exported
// names), and the matrices the ABI tests feed both.
#pragma once

#include <random>
#include <vector>

#include "fallback.hpp"

namespace switchyard::test {

template <class T> GemmFn<T>* reference_gemm();
template <class T> SyrkFn<T>* reference_syrk();
template <class T> GeqrfFn<T>* reference_geqrf();

// Uniform(-1, 1) entries from a fixed seed.
template <class T>
std::vector<T> random_matrix(std::size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(count);
  for (T& x : v) x = T(dist(gen));
  return v;
}

}  // namespace switchyard::test
