// pxGEQRF's TSQR with each MPI process's rows on its own CUDA device: the steps of
// scalapack/gpu_ranks.hpp, where the algorithm is described. The device steps are the split
// TSQR's (split_tsqr.cpp); what goes between them goes through the program's MPI.
#include <algorithm>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "qr/gpu/residence.hpp"
#include "qr/gpu/split_devices.hpp"
#include "qr/gpu/tsqr_tree.hpp"
#include "scalapack/gpu_ranks.hpp"
#include "tsqr/cpu_row_blocks.hpp"

namespace switchyard::qr::gpu {
namespace {

using scalapack::AllGather;
using scalapack::Layout;

// One all-gather of every process's status and `count` elements of E, in rank order.
class Exchange {
 public:
  Exchange(const AllGather& gather, int ranks) : gather_(gather), ranks_(ranks) {}

  // kOk with every process's elements in `all` (ranks x count), kGpuStepFailed when any
  // process's status was not cudaSuccess, or kCommunicationFailed.
  template <class E>
  int all(cudaError_t status, const E* mine, std::size_t count, std::vector<E>& all) {
    const std::size_t bytes = kHeader + sizeof(E) * count;
    std::vector<unsigned char> out(bytes, 0), in(bytes * std::size_t(ranks_));
    const int code = status;
    std::memcpy(out.data(), &code, sizeof code);
    if (status == cudaSuccess && count) std::memcpy(out.data() + kHeader, mine, bytes - kHeader);
    if (!gather_(out.data(), in.data(), bytes)) return scalapack::kCommunicationFailed;
    all.resize(count * std::size_t(ranks_));
    int failed = scalapack::kOk;
    for (int rank = 0; rank < ranks_; ++rank) {
      const unsigned char* from = in.data() + bytes * std::size_t(rank);
      int theirs;
      std::memcpy(&theirs, from, sizeof theirs);
      if (theirs != cudaSuccess) failed = scalapack::kGpuStepFailed;
      if (count)
        std::memcpy(all.data() + count * std::size_t(rank), from + kHeader, bytes - kHeader);
    }
    return failed;
  }

 private:
  static constexpr std::size_t kHeader = 16;  // the status, padded to keep E aligned
  const AllGather& gather_;
  int ranks_;
};

// This process's rows on its device, and the tree that factors them.
template <class T>
struct DeviceShare {
  Residence where;
  std::optional<Operand<T>> on_a;
  std::optional<TsqrTree<T>> tree;
  std::optional<cuda::DeviceBuffer> small;  // n x n

  cudaStream_t stream() const { return where.stream(); }
  T* x() const { return static_cast<T*>(small->get()); }

  // Step 1: the rows up, their leaves factored as they land, reduced to R (n x n, ld n).
  cudaError_t factor(int h, int n, T* a, int lda, T* r) {
    if (where.status() != cudaSuccess) return where.status();
    on_a.emplace(where, a, lda, h, n);
    if (on_a->status() != cudaSuccess) return on_a->status();
    tree.emplace(h, n, on_a->get(), on_a->ld(), stream());
    if (tree->status() != cudaSuccess) return tree->status();
    small.emplace(sizeof(T) * std::size_t(n) * n, stream());
    if (small->status() != cudaSuccess) return small->status();
    cudaError_t step = on_a->arrive(n, kTsqrBlockRows, [&](long long first, long long rows) {
      return tree->factor_leaves(first, rows);
    });
    if (step == cudaSuccess) step = tree->reduce();
    if (step == cudaSuccess) step = get(tree->root_r(), r, n, n, n, stream());
    return cuda::wait(stream(), step);
  }
};

template <class T>
int run(const Layout& layout, int h, T* a, int lda, T* tau, const AllGather& gather) {
  const int n = layout.n;
  const std::size_t square = std::size_t(n) * n;
  const bool member = layout.my_prow >= 0;
  const bool rows = member && h > 0;
  const int top_prow = layout.top[0].prow;
  const bool top = member && layout.my_prow == top_prow;
  const int top_rank = layout.column_ranks[std::size_t(top_prow)];
  Exchange exchange(gather, layout.ranks);
  std::optional<DeviceShare<T>> share;
  if (rows) share.emplace();

  // 1. R_p (zero for a process without rows).
  std::vector<T> r_p(square, T(0));
  cudaError_t status = cudaSuccess;
  if (rows) {
    // An exception of the streaming (pinned staging, a helper thread) fails the step, so that
    // this process still reaches the exchange and the others learn of it there.
    try {
      status = share->factor(h, n, a, lda, r_p.data());
    } catch (const std::exception&) {
      status = cudaErrorUnknown;
    }
  }
  std::vector<T> gathered;
  if (int e = exchange.all(status, r_p.data(), square, gathered)) return e;

  // 2. The column's stack of R factors, its R and explicit Q on every member; Q1 and inv(U) on
  //    the top process.
  const int prows = int(layout.column_ranks.size());
  const long long stack_rows = (long long)prows * n;
  std::vector<T> stack(std::size_t(stack_rows) * n), r(square, T(0)), u_inverse(square, T(0));
  if (member) {
    for (int p = 0; p < prows; ++p) {
      const T* from = gathered.data() + square * std::size_t(layout.column_ranks[std::size_t(p)]);
      tsqr::copy_matrix(n, n, from, n, stack.data() + std::size_t(p) * n, int(stack_rows));
    }
    factor_stack_of_r(int(stack_rows), n, stack.data(), r.data());
  }
  const T* const g_p = stack.data() + std::size_t(member ? layout.my_prow : 0) * n;
  if (top) {
    status = put(stack.data() + std::size_t(top_prow) * n, stack_rows, share->x(), n, n,
                 share->stream());
    if (status == cudaSuccess) status = share->tree->form_first_rows(share->x());
    if (status == cudaSuccess) status = share->tree->reconstruct();
    if (status == cudaSuccess) {
      status = get(share->tree->u_inverse(), u_inverse.data(), n, n, n, share->stream());
    }
    status = cuda::wait(share->stream(), status);
  }
  if (int e = exchange.all(status, u_inverse.data(), square, gathered)) return e;
  std::copy_n(gathered.data() + square * std::size_t(top_rank), square, u_inverse.data());

  // 3. V2 over this process's rows from G_p inv(U); its columns' nonzero flags.
  std::vector<int> flags(std::size_t(n), 0);
  if (rows) {
    std::vector<T> x(square);
    multiply_square(n, g_p, stack_rows, u_inverse.data(), x.data());
    status = put(x.data(), n, share->x(), n, n, share->stream());
    // Rows past sub(A)'s first N count towards the flags: all of them but the top process's.
    if (status == cudaSuccess) status = share->tree->write_q(share->x(), top ? 0 : n);
    if (status == cudaSuccess) {
      status = cudaMemcpyAsync(flags.data(), share->tree->nonzero(), sizeof(int) * n,
                               cudaMemcpyDeviceToHost, share->stream());
    }
    status = cuda::wait(share->stream(), status);
  }
  std::vector<int> all_flags;
  if (int e = exchange.all(status, flags.data(), flags.size(), all_flags)) return e;
  for (int rank = 0; rank < layout.ranks; ++rank) {
    for (int j = 0; j < n; ++j) flags[std::size_t(j)] |= all_flags[std::size_t(rank) * n + j];
  }

  // 4. V1, R and TAU on the top process.
  std::vector<T> top_tau(std::size_t(n), T(0));
  if (top) {
    std::vector<T> host_tau;
    status = cudaMemcpyAsync(share->tree->nonzero(), flags.data(), sizeof(int) * n,
                             cudaMemcpyHostToDevice, share->stream());
    if (status == cudaSuccess)
      status = put(r.data(), n, share->tree->root_r(), n, n, share->stream());
    T* const device_tau = share->x();  // x is spent: TAU fits in its first column
    if (status == cudaSuccess) status = share->tree->write_top(device_tau);
    if (status == cudaSuccess) status = to_host(device_tau, n, host_tau, share->stream());
    status = cuda::wait(share->stream(), status);
    if (status == cudaSuccess) top_tau = host_tau;
  }
  if (int e = exchange.all(status, top_tau.data(), top_tau.size(), gathered)) return e;

  // 5. Every process's work succeeded: the results go to the caller.
  if (rows) share->on_a->write_back();
  if (member) std::copy_n(gathered.data() + std::size_t(n) * top_rank, n, tau);
  return scalapack::kOk;
}

// Only the few small host buffers between the exchanges can fail now: this process can then no
// longer take part in the collective, as when MPI fails.
template <class T>
int run_guarded(const Layout& layout, int h, T* a, int lda, T* tau, const AllGather& gather) {
  try {
    return run(layout, h, a, lda, tau, gather);
  } catch (const std::bad_alloc&) {
    return scalapack::kCommunicationFailed;
  }
}

template <class T>
const scalapack::GpuRanks<T> ranks{cuda::unavailable, cuda::device_ordinal, cuda_device_pointer,
                                   run_guarded<T>};

[[maybe_unused]] const bool plugged = [] {
  scalapack::GpuRanks<float>::plugged = &ranks<float>;
  scalapack::GpuRanks<double>::plugged = &ranks<double>;
  return true;
}();

}  // namespace
}  // namespace switchyard::qr::gpu
