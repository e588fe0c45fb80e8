#include "qr/gpu/split_apply.hpp"

#include <algorithm>
#include <memory>

#include "qr/gpu/residence.hpp"
#include "qr/gpu/split_devices.hpp"
#include "qr/gpu/tsqr_tree.hpp"
#include "qr/gpu/wy_block.hpp"

namespace switchyard::qr::gpu {
namespace {

// One device's share of the rows and what works on it there: its rows of V (for xORGQR also
// Q's, in place) and of C (xORMQR).
template <class T>
struct Share {
  int ordinal;
  long long first, rows;
  std::unique_ptr<Residence> where;
  std::unique_ptr<Operand<T>> v, c;
  std::unique_ptr<WyBlock<T>> block;

  cudaStream_t stream() const { return where->stream(); }
  Reflectors<T> reflectors(int k) const { return {v->get(), v->ld(), k, first}; }
  void release() {
    block.reset();
    c.reset();
    v.reset();
    where.reset();
  }
};

// The shares of m rows over `devices`, each with its device's stream, its rows of V (m x
// `v_columns` at `a`) and of C (m x nc at `c`, when given) where the device works on them, and
// the block's workspace for `w` columns; the first error. Each share's device memory is had
// before any device writes, so that failing to get it leaves data in place as it was.
template <class T>
cudaError_t make_shares(const std::vector<int>& devices, long long m, T* a, int lda, int v_columns,
                        T* c, int ldc, int nc, int k, int w, const T* tau,
                        std::vector<Share<T>>& shares) {
  const long long rows = share_rows(m, devices.size(), kTsqrBlockRows);
  for (std::size_t d = 0; d < devices.size(); ++d) {
    const long long first = rows * (long long)d;
    shares.push_back({devices[d], first, std::min(rows, m - first), {}, {}, {}, {}});
  }
  return in_turn_on_every_device(shares, [&](Share<T>& s) {
    s.where = std::make_unique<Residence>(s.ordinal);
    if (s.where->status() != cudaSuccess) return s.where->status();
    s.v = std::make_unique<Operand<T>>(*s.where, a + s.first, lda, s.rows, v_columns);
    if (s.v->status() != cudaSuccess) return s.v->status();
    if (c) {
      s.c = std::make_unique<Operand<T>>(*s.where, c + s.first, ldc, s.rows, nc);
      if (s.c->status() != cudaSuccess) return s.c->status();
    }
    s.block = std::make_unique<WyBlock<T>>(s.rows, k, w, s.stream());
    if (s.block->status() != cudaSuccess) return s.block->status();
    return s.block->take_tau(tau);
  });
}

}  // namespace

bool apply_splits(const std::vector<int>& devices, long long m, int k, int w) {
  if (devices.size() < 2 || k < 1 || w < k || w > kWyMaxColumns || k > kWyMaxReflectors) {
    return false;
  }
  const long long rows = share_rows(m, devices.size(), kTsqrBlockRows);
  return m - rows * (long long)(devices.size() - 1) >= 1 && rows >= w;
}

template <class T>
bool orgqr_split(const std::vector<int>& devices, int m, int n, int k, T* a, int lda, const T* tau,
                 std::string& error) {
  if (!apply_splits(devices, m, k, n) || lda < m) {
    error = "invalid arguments";
    return false;
  }
  return cuda::run_guarded(error, [&] {
    const bool in_place = cuda::device_accessible(a);
    std::vector<Share<T>> shares;
    const Released<Share<T>> released{shares};
    cudaError_t status = in_place ? program_work_done() : cudaSuccess;
    if (status == cudaSuccess) {
      status = make_shares<T>(devices, m, a, lda, n, nullptr, 0, 0, k, n, tau, shares);
    }
    // 1. V^T V of each share, as its rows land.
    if (status == cudaSuccess) {
      status = on_every_share(in_place, shares, [&](Share<T>& s) {
        cudaError_t step = s.v->arrive(k, kWyBlockRows, [&](long long first, long long rows) {
          return s.block->gram_rows(s.reflectors(k), first, rows);
        });
        return step == cudaSuccess ? s.block->sum_gram() : step;
      });
    }
    // 2. The sums over every device.
    if (status == cudaSuccess) {
      status =
          add_over_devices<T>(in_place, shares, k, k, [](Share<T>& s) { return s.block->gram(); });
    }
    // 3. W = T V1^T on device 0, then on every device.
    std::vector<T> w(std::size_t(k) * n);
    if (status == cudaSuccess) {
      status = on_first_device(shares, [&](Share<T>& s) {
        cudaError_t step = s.block->form_w(s.reflectors(k), n);
        if (step == cudaSuccess) step = get(s.block->w(), w.data(), k, k, n, s.stream());
        return cuda::wait(s.stream(), step);
      });
    }
    // 4. Each share's rows of Q over its rows of V.
    if (status == cudaSuccess) {
      status = on_every_share(in_place, shares, [&](Share<T>& s) {
        cudaError_t step = put(w.data(), k, s.block->w(), k, n, s.stream());
        return step == cudaSuccess ? s.block->write_q(s.reflectors(k), n, s.v->get(), s.v->ld())
                                   : step;
      });
    }
    if (status != cudaSuccess) return cuda::fail(error, "Q over the devices", status);
    on_every_device(shares, [](Share<T>& s) {
      s.v->write_back();
      return cudaSuccess;
    });
    return true;
  });
}

template <class T>
bool ormqr_split(const std::vector<int>& devices, bool transpose, int m, int nc, int k, const T* a,
                 int lda, const T* tau, T* c, int ldc, std::string& error) {
  if (!apply_splits(devices, m, k, k + nc) || lda < m || ldc < m) {
    error = "invalid arguments";
    return false;
  }
  return cuda::run_guarded(error, [&] {
    const bool in_place = cuda::device_accessible(c);
    std::vector<Share<T>> shares;
    const Released<Share<T>> released{shares};
    cudaError_t status = in_place ? program_work_done() : cudaSuccess;
    // V is only read: its copies are never written back.
    if (status == cudaSuccess) {
      status =
          make_shares(devices, m, const_cast<T*>(a), lda, k, c, ldc, nc, k, k + nc, tau, shares);
    }
    // 1. [V^T V, V^T C] of each share, as its rows of C land after its rows of V.
    if (status == cudaSuccess) {
      status = on_every_share(in_place, shares, [&](Share<T>& s) {
        cudaError_t step = s.v->arrive();
        if (step == cudaSuccess) {
          step = s.c->arrive(nc, kWyBlockRows, [&](long long first, long long rows) {
            return s.block->product_rows(s.reflectors(k), true, s.c->get(), s.c->ld(), nc, first,
                                         rows);
          });
        }
        return step == cudaSuccess ? s.block->sum_product(true, nc) : step;
      });
    }
    // 2. The sums over every device.
    if (status == cudaSuccess) {
      status = add_over_devices<T>(in_place, shares, k, k + nc,
                                   [](Share<T>& s) { return s.block->product(); });
    }
    // 3. Each device's rows of C - V W, W formed from the same sums on every device.
    if (status == cudaSuccess) {
      status = on_every_share(in_place, shares, [&](Share<T>& s) {
        return s.block->apply(s.reflectors(k), transpose, true, nc, s.c->get(), s.c->ld());
      });
    }
    if (status != cudaSuccess) return cuda::fail(error, "Q applied over the devices", status);
    on_every_device(shares, [](Share<T>& s) {
      s.c->write_back();
      return cudaSuccess;
    });
    return true;
  });
}

template bool orgqr_split<float>(const std::vector<int>&, int, int, int, float*, int, const float*,
                                 std::string&);
template bool orgqr_split<double>(const std::vector<int>&, int, int, int, double*, int,
                                  const double*, std::string&);
template bool ormqr_split<float>(const std::vector<int>&, bool, int, int, int, const float*, int,
                                 const float*, float*, int, std::string&);
template bool ormqr_split<double>(const std::vector<int>&, bool, int, int, int, const double*, int,
                                  const double*, double*, int, std::string&);

}  // namespace switchyard::qr::gpu
