#pragma once

// The pivoted QR of a TSQR's R, between the reduction and the reconstruction (cpu_tsqr.hpp's
// factor_pivoted_cpu, qr/gpu/geqp3.cpp): the table's xGEQP3 on the n x n R,
// then its xORGQR for the small factorization's Q. Its workspace is taken before A is touched,
// so that once the leaves have run nothing can fail.

#include <algorithm>
#include <cstddef>
#include <new>
#include <stdexcept>
#include <vector>

#include "cpu_tsqr.hpp"
#include "lapack_table.hpp"

namespace switchyard::tsqr {

template <class T>
class SmallPivotedQr {
 public:
  SmallPivotedQr(int n, int* jpvt, const Lapack<T>& la) : n_(n), jpvt_(jpvt), la_(la) {}

  int allocate() {
    try {
      const std::size_t n = std::size_t(n_);
      factors_.resize(n * n);
      tau_.resize(n);
      std::vector<int> no_pivots(n);  // a query reads no JPVT, but is given one
      const int geqp3 = geqp3_lwork(no_pivots.data());
      const int orgqr = orgqr_lwork();
      if (geqp3 < 0 || orgqr < 0) return kWorkspaceQuery;
      work_.resize(std::size_t(std::max(geqp3, orgqr)));
    } catch (const std::bad_alloc&) {
      return kOutOfMemory;
    } catch (const std::length_error&) {
      return kOutOfMemory;
    }
    return kOk;
  }

  // R (n x n upper triangular, ld n) becomes R2 and Q (n x n) becomes Q2, with R P = Q2 R2 and P
  // the pivoting of JPVT.
  void run(T* r, T* q) {
    const std::size_t n = std::size_t(n_);
    std::fill(factors_.begin(), factors_.end(), T(0));
    for (std::size_t j = 0; j < n; ++j) std::copy(r + j * n, r + j * n + j + 1, &factors_[j * n]);
    int lwork = int(work_.size()), info = 0;
    la_.geqp3(&n_, &n_, factors_.data(), &n_, jpvt_, tau_.data(), work_.data(), &lwork, &info);
    work1_ = work_[0];
    for (std::size_t j = 0; j < n; ++j) {
      std::copy(&factors_[j * n], &factors_[j * n] + j + 1, r + j * n);
    }
    std::copy(factors_.begin(), factors_.end(), q);
    la_.orgqr(&n_, &n_, &n_, q, &n_, tau_.data(), work_.data(), &lwork, &info);
  }

  // WORK(1) as the small xGEQP3 left it: the workspace it used, which LAPACK's xGEQP3 also
  // reports for A, since its block sizes come from ILAENV for xGEQRF, which reads N, not M.
  T work1() const { return work1_; }

 private:
  int geqp3_lwork(int* jpvt) {
    T answer{};
    const int query = -1;
    int info = 0;
    la_.geqp3(&n_, &n_, factors_.data(), &n_, jpvt, tau_.data(), &answer, &query, &info);
    return info == 0 ? lwork_from_query(answer) : -1;
  }

  int orgqr_lwork() {
    T answer{};
    const int query = -1;
    int info = 0;
    la_.orgqr(&n_, &n_, &n_, factors_.data(), &n_, tau_.data(), &answer, &query, &info);
    return info == 0 ? lwork_from_query(answer) : -1;
  }

  const int n_;
  int* const jpvt_;
  const Lapack<T>& la_;
  std::vector<T> factors_;  // R, then the small xGEQP3's output, n x n
  std::vector<T> tau_;
  std::vector<T> work_;
  T work1_{};
};

}  // namespace switchyard::tsqr
