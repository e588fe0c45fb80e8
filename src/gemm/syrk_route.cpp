// The gpu route of ssyrk/dsyrk: C = alpha op(A) op(A)^T + beta C is the TN kernel's own shape
// (TRANS = 'T': A^T A; 'N': A A^T), so it runs as the gemm route's streamed product of A with
// itself into a scratch n x n matrix, of which only the triangle asked for is then merged into
// C. The other triangle of C is never written. Taken automatically on the same terms as gemm's
// route (opencl_route.hpp), never on an OpenCL CPU device (PoCL), where it runs only when
// forced.
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "calls.hpp"
#include "device/opencl_runtime.hpp"
#include "dispatch.hpp"
#include "gemm/opencl_route.hpp"
#include "gemm/streamed_gemm.hpp"

namespace switchyard {
namespace {

template <class T>
const char* declines(const SyrkCall<T>& s) {
  return opencl_route::too_large<T>(s.n, s.n, s.k);
}

// C's triangle <- P + beta C (P = alpha op(A) op(A)^T); beta = 0 never reads C.
template <class T>
void merge_triangle(const SyrkCall<T>& s, const std::vector<T>& product) {
  const long long n = s.n, ldc = s.ldc;
  for (long long j = 0; j < n; ++j) {
    const long long first = s.uplo == 'U' ? 0 : j, last = s.uplo == 'U' ? j + 1 : n;
    T* c = s.c + j * ldc;
    const T* p = product.data() + j * n;
    for (long long i = first; i < last; ++i) {
      c[i] = s.beta == T(0) ? p[i] : p[i] + s.beta * c[i];
    }
  }
}

// C is only written once the whole product is in the scratch matrix: a failure before that
// leaves C as the caller gave it, and the call runs in the fallback.
template <class T>
bool run(const SyrkCall<T>& s) {
  const char* why = nullptr;
  opencl::Runtime* rt = opencl::runtime(&why);
  std::string error;
  std::vector<gemm::CBlock> unwritten;
  gemm::Kernels* kernels = opencl_route::kernels<T>(*rt, error);
  const char transa = s.trans == 'N' ? 'N' : 'T', transb = s.trans == 'N' ? 'T' : 'N';
  try {
    std::vector<T> product(std::size_t(s.n) * std::size_t(s.n));
    if (kernels &&
        gemm::gemm_streamed<T>(*rt, *kernels, transa, transb, s.n, s.n, s.k, s.alpha, s.a,
                               s.lda, s.a, s.lda, T(0), product.data(), s.n,
                               gemm::default_plan(kernels->params, s.n), unwritten, error)) {
      merge_triangle(s, product);
      return true;
    }
  } catch (const std::bad_alloc&) {
    error = "no host memory for the n x n product";
  }
  std::fprintf(stderr, "switchyard: %csyrk on the OpenCL device failed (%s); running it in the "
               "fallback\n", sizeof(T) == 8 ? 'd' : 's', error.c_str());
  return false;
}

template <class T>
const Implementation<SyrkCall<T>> opencl_syrk{opencl_route::unusable<T>, declines<T>, run<T>,
                                              opencl_route::forced_only, opencl_route::pays<T>,
                                              &opencl_route::cost<T>};

// Plugging the route in: the router sees it from the first call on.
[[maybe_unused]] const bool registered = [] {
  Implementations<SyrkCall<float>>::gpu = &opencl_syrk<float>;
  Implementations<SyrkCall<double>>::gpu = &opencl_syrk<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard
