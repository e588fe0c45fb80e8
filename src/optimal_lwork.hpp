// WORK(1) on return from xGEQRF, xORGQR, xORMQR and xGELS is the optimal LWORK. The accelerated
// routes need no workspace from the caller but report what the fallback's own routine would, so a
// program that sizes WORK from one call for the next sees the same numbers with and without
// Switchyard. Each asks the fallback with a workspace query.
#pragma once

#include "calls.hpp"
#include "fallback.hpp"

namespace switchyard {

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

template <class T>
T optimal_lwork(const OrgqrCall<T>& call) {
  OrgqrFn<T>* orgqr;
  if constexpr (sizeof(T) == sizeof(float)) {
    orgqr = fallback().sorgqr;
  } else {
    orgqr = fallback().dorgqr;
  }
  T answer{};
  int info = 0;
  const int query = -1;
  orgqr(&call.m, &call.n, &call.k, call.a, &call.lda, call.tau, &answer, &query, &info);
  return answer;
}

template <class T>
T optimal_lwork(const OrmqrCall<T>& call) {
  OrmqrFn<T>* ormqr;
  if constexpr (sizeof(T) == sizeof(float)) {
    ormqr = fallback().sormqr;
  } else {
    ormqr = fallback().dormqr;
  }
  T answer{};
  int info = 0;
  const int query = -1;
  ormqr(&call.side, &call.trans, &call.m, &call.n, &call.k, call.a, &call.lda, call.tau, call.c,
        &call.ldc, &answer, &query, &info, 1, 1);
  return answer;
}

template <class T>
T optimal_lwork(const GelsCall<T>& call) {
  GelsFn<T>* gels;
  if constexpr (sizeof(T) == sizeof(float)) {
    gels = required(fallback().sgels, "sgels_");
  } else {
    gels = required(fallback().dgels, "dgels_");
  }
  T answer{};
  int info = 0;
  const int query = -1;
  gels(&call.trans, &call.m, &call.n, &call.nrhs, call.a, &call.lda, call.b, &call.ldb, &answer,
       &query, &info, 1);
  return answer;
}

}  // namespace switchyard
