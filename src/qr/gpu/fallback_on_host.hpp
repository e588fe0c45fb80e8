#pragma once

// Layer 2 of the GPU QR (docs/qr-code.md): the fallback of a call whose arrays lie in device
// memory. The fallback runs on the host's cores and cannot read that memory, so where the GPU
// route declines a call (a shape past its limits, SIDE = 'R', JOBU = 'A'), fails, or is forced
// off, the arrays in device memory are copied to the host, the fallback runs on the copies,
// and what it wrote goes back. Managed memory, which the host reads, is handed over as it is.
// Each routed call lists its arrays below (for_each_array), with the extent LAPACK gives them,
// and its entry point hands the fallback the arrays of the call it is given.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <type_traits>
#include <vector>

#include "calls.hpp"
#include "device/cuda_runtime.hpp"

namespace switchyard::qr::gpu {

// f(pointer, rows, columns, leading dimension, written) for each array of a call that the
// fallback may read or write; a pointer f replaces is the one the fallback gets.
template <class T, class F>
void for_each_array(GeqrfCall<T>& c, F&& f) {
  f(c.a, c.m, c.n, c.lda, true);
  f(c.tau, std::min(c.m, c.n), 1, 1, true);
  f(c.work, std::max(1, c.lwork), 1, 1, true);
}
template <class T, class F>
void for_each_array(Geqp3Call<T>& c, F&& f) {
  f(c.a, c.m, c.n, c.lda, true);  // JPVT is read on the host by every route
  f(c.tau, std::min(c.m, c.n), 1, 1, true);
  f(c.work, std::max(1, c.lwork), 1, 1, true);
}
template <class T, class F>
void for_each_array(OrgqrCall<T>& c, F&& f) {
  f(c.a, c.m, c.n, c.lda, true);
  f(c.tau, c.k, 1, 1, false);
  f(c.work, std::max(1, c.lwork), 1, 1, true);
}
template <class T, class F>
void for_each_array(OrmqrCall<T>& c, F&& f) {
  f(c.a, c.side == 'L' ? c.m : c.n, c.k, c.lda, false);
  f(c.tau, c.k, 1, 1, false);
  f(c.c, c.m, c.n, c.ldc, true);
  f(c.work, std::max(1, c.lwork), 1, 1, true);
}
template <class T, class F>
void for_each_array(GelsCall<T>& c, F&& f) {
  f(c.a, c.m, c.n, c.lda, true);
  f(c.b, std::max(c.m, c.n), c.nrhs, c.ldb, true);
  f(c.work, std::max(1, c.lwork), 1, 1, true);
}
template <class T, class F>
void for_each_array(GelsdCall<T>& c, F&& f) {
  f(c.a, c.m, c.n, c.lda, true);
  f(c.b, std::max(c.m, c.n), c.nrhs, c.ldb, true);
  f(c.s, std::min(c.m, c.n), 1, 1, true);
  f(c.work, std::max(1, c.lwork), 1, 1, true);
}
template <class T, class F>
void for_each_array(GesddCall<T>& c, F&& f) {
  const int mn = std::min(c.m, c.n);
  f(c.a, c.m, c.n, c.lda, true);
  f(c.s, mn, 1, 1, true);
  // JOBZ = 'O' writes U (m >= n) or V^T (m < n) over A instead.
  const bool all = c.jobz == 'A', thin = c.jobz == 'S', over = c.jobz == 'O';
  if (all || thin || (over && c.m < c.n)) f(c.u, c.m, all || over ? c.m : mn, c.ldu, true);
  if (all || thin || (over && c.m >= c.n)) f(c.vt, all || over ? c.n : mn, c.n, c.ldvt, true);
  f(c.work, std::max(1, c.lwork), 1, 1, true);  // IWORK: the host's, as for every route
}
template <class T, class F>
void for_each_array(GesvdCall<T>& c, F&& f) {
  const int mn = std::min(c.m, c.n);
  f(c.a, c.m, c.n, c.lda, true);
  f(c.s, mn, 1, 1, true);
  if (c.jobu == 'A' || c.jobu == 'S') f(c.u, c.m, c.jobu == 'A' ? c.m : mn, c.ldu, true);
  if (c.jobvt == 'A' || c.jobvt == 'S') f(c.vt, c.jobvt == 'A' ? c.n : mn, c.n, c.ldvt, true);
  f(c.work, std::max(1, c.lwork), 1, 1, true);
}

// Implementation::fallback_on_host for the call types above.
template <class Call>
void fallback_on_host(const Call& call, const std::function<void(const Call&)>& fallback) {
  struct Copy {
    void* device;
    std::vector<char> host;
    std::size_t row_bytes, pitch;
    long long columns;
    bool written;
  };
  const auto fatal = [](const char* what, cudaError_t status) {
    std::fprintf(stderr, "switchyard: fatal: %s for the fallback: %s\n", what,
                 cuda::describe(status).c_str());
    std::abort();
  };
  Call on_host = call;
  std::vector<Copy> copies;
  for_each_array(on_host, [&](auto*& p, long long rows, long long columns, long long ld,
                              bool written) {
    if (!p || rows <= 0 || columns <= 0 || !cuda::device_only(p)) return;
    using Element =
        std::remove_const_t<std::remove_pointer_t<std::remove_reference_t<decltype(p)>>>;
    const std::size_t row_bytes = sizeof(Element) * std::size_t(rows);
    const std::size_t pitch = sizeof(Element) * std::size_t(std::max(ld, rows));
    Copy copy{const_cast<Element*>(p),
              std::vector<char>(pitch * std::size_t(columns)),
              row_bytes,
              pitch,
              columns,
              written};
    const cudaError_t status = cudaMemcpy2D(copy.host.data(), pitch, copy.device, pitch, row_bytes,
                                            std::size_t(columns), cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) fatal("copying an array from device memory", status);
    p = reinterpret_cast<Element*>(copy.host.data());
    copies.push_back(std::move(copy));
  });
  fallback(on_host);
  for (const Copy& copy : copies) {
    if (!copy.written) continue;
    const cudaError_t status =
        cudaMemcpy2D(copy.device, copy.pitch, copy.host.data(), copy.pitch, copy.row_bytes,
                     std::size_t(copy.columns), cudaMemcpyHostToDevice);
    if (status != cudaSuccess) fatal("returning an array to device memory", status);
  }
}

}  // namespace switchyard::qr::gpu
