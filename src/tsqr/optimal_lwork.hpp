// WORK(1) on return from xGEQRF is the optimal LWORK. The TSQR routes need no workspace from
// the caller but report what the fallback's own xGEQRF would, so a program that sizes WORK
// from one call for the next sees the same numbers with and without Switchyard.
#pragma once

#include "calls.hpp"
#include "fallback.hpp"

namespace switchyard::tsqr {

template <class T>
T optimal_lwork(const GeqrfCall<T>& call) {
  GeqrfFn<T>* geqrf;
  if constexpr (sizeof(T) == sizeof(float)) {
    geqrf = fallback().sgeqrf;
  } else {
    geqrf = fallback().dgeqrf;
  }
  T answer{};
  int info = 0;
  const int query = -1;
  geqrf(&call.m, &call.n, call.a, &call.lda, call.tau, &answer, &query, &info);
  return answer;
}

}  // namespace switchyard::tsqr
