// pxGEQRF's TSQR with each MPI process's rows on its own CUDA device: the steps of
// scalapack/gpu_ranks.hpp, where the algorithm is described. The device steps are the split
// TSQR's (split_tsqr.cpp); what goes between them goes through the program's MPI.
#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "device/cuda_runtime.hpp"
#include "device/probe.hpp"
#include "qr/gpu/residence.hpp"
#include "qr/gpu/split_devices.hpp"
#include "qr/gpu/tsqr_tree.hpp"
#include "qr/gpu/wy_block.hpp"
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

// The widest panel one TSQR takes; wider matrices are factored a panel at a time.
constexpr int kPanelColumns = kTsqrMaxColumns;

// This process's rows of sub(A) on its device for the whole call.
template <class T>
struct DeviceRows {
  Residence where;
  std::optional<Operand<T>> on_a;
  std::optional<cuda::DeviceBuffer> small;  // kPanelColumns x kPanelColumns

  cudaStream_t stream() const { return where.stream(); }
  T* x() const { return static_cast<T*>(small->get()); }
  long long ld() const { return on_a->ld(); }
  T* at(long long row, int column) const { return on_a->get() + row + column * ld(); }

  cudaError_t open(int h, int n, T* a, int lda) {
    if (where.status() != cudaSuccess) return where.status();
    on_a.emplace(where, a, lda, h, n);
    if (on_a->status() != cudaSuccess) return on_a->status();
    small.emplace(sizeof(T) * std::size_t(kPanelColumns) * kPanelColumns, stream());
    return small->status();
  }
};

// An exception of the streaming (pinned staging, a helper thread) fails the step, so that this
// process still reaches the next exchange and the others learn of it there.
template <class Step>
cudaError_t guarded(Step&& step) {
  try {
    return step();
  } catch (const std::exception&) {
    return cudaErrorUnknown;
  }
}

// One panel of w columns from column c, as this process holds it: its rows from `first` on
// (the top process's first c rows lie above the panel), `rows` of them, and the tree that
// factors them.
template <class T>
struct Panel {
  int c, w;
  long long first, rows;
  TsqrTree<T>* tree;
};

// What the panels share: the processes, this one's place among them, and the exchange.
struct Ranks {
  const Layout& layout;
  Exchange& exchange;
  bool member, rows, top;
  int top_rank;
};

// The TSQR of one panel over the processes, its leaves already factored: R, V and tau written
// over the panel on the device, tau (w values) on the host. kOk, or the exchange's failure.
template <class T>
int panel_tsqr(const Ranks& k, std::optional<DeviceRows<T>>& dev, const Panel<T>& p,
               cudaError_t status, T* tau) {
  const Layout& layout = k.layout;
  const int w = p.w;
  const std::size_t square = std::size_t(w) * w;
  const auto enqueue = [&](auto&& step) {
    if (status == cudaSuccess) status = step();
  };

  // 1. R_p (zero for a process without rows).
  std::vector<T> r_p(square, T(0));
  if (k.rows) {
    enqueue([&] { return p.tree->reduce(); });
    enqueue([&] { return get(p.tree->root_r(), r_p.data(), w, w, w, dev->stream()); });
    status = cuda::wait(dev->stream(), status);
  }
  std::vector<T> gathered;
  if (int e = k.exchange.all(status, r_p.data(), square, gathered)) return e;

  // 2. The column's stack of R factors, its R and explicit Q on every member; Q1 and inv(U) on
  //    the top process.
  const int prows = int(layout.column_ranks.size());
  const int top_prow = layout.top[0].prow;
  const long long stack_rows = (long long)prows * w;
  std::vector<T> stack(std::size_t(stack_rows) * w), r(square, T(0)), u_inverse(square, T(0));
  if (k.member) {
    for (int q = 0; q < prows; ++q) {
      const T* from = gathered.data() + square * std::size_t(layout.column_ranks[std::size_t(q)]);
      tsqr::copy_matrix(w, w, from, w, stack.data() + std::size_t(q) * w, int(stack_rows));
    }
    factor_stack_of_r(int(stack_rows), w, stack.data(), r.data());
  }
  if (k.top) {
    enqueue([&] {
      return put(stack.data() + std::size_t(top_prow) * w, stack_rows, dev->x(), w, w,
                 dev->stream());
    });
    enqueue([&] { return p.tree->form_first_rows(dev->x()); });
    enqueue([&] { return p.tree->reconstruct(); });
    enqueue([&] { return get(p.tree->u_inverse(), u_inverse.data(), w, w, w, dev->stream()); });
    status = cuda::wait(dev->stream(), status);
  }
  if (int e = k.exchange.all(status, u_inverse.data(), square, gathered)) return e;
  std::copy_n(gathered.data() + square * std::size_t(k.top_rank), square, u_inverse.data());

  // 3. V2 over this process's rows from G_p inv(U); its columns' nonzero flags.
  std::vector<int> flags(std::size_t(w), 0);
  if (k.rows) {
    std::vector<T> x(square);
    multiply_square(w, stack.data() + std::size_t(layout.my_prow) * w, stack_rows, u_inverse.data(),
                    x.data());
    enqueue([&] { return put(x.data(), w, dev->x(), w, w, dev->stream()); });
    // Rows past the panel's first w count towards the flags: all of them but the top's.
    enqueue([&] { return p.tree->write_q(dev->x(), k.top ? 0 : w); });
    enqueue([&] {
      return cudaMemcpyAsync(flags.data(), p.tree->nonzero(), sizeof(int) * w,
                             cudaMemcpyDeviceToHost, dev->stream());
    });
    status = cuda::wait(dev->stream(), status);
  }
  std::vector<int> all_flags;
  if (int e = k.exchange.all(status, flags.data(), flags.size(), all_flags)) return e;
  for (int rank = 0; rank < layout.ranks; ++rank) {
    for (int j = 0; j < w; ++j) flags[std::size_t(j)] |= all_flags[std::size_t(rank) * w + j];
  }

  // 4. V1, R and tau on the top process.
  std::vector<T> top_tau(std::size_t(w), T(0));
  if (k.top) {
    std::vector<T> host_tau;
    T* const device_tau = dev->x();  // x is spent: tau fits in its first column
    enqueue([&] {
      return cudaMemcpyAsync(p.tree->nonzero(), flags.data(), sizeof(int) * w,
                             cudaMemcpyHostToDevice, dev->stream());
    });
    enqueue([&] { return put(r.data(), w, p.tree->root_r(), w, w, dev->stream()); });
    enqueue([&] { return p.tree->write_top(device_tau); });
    enqueue([&] { return to_host(device_tau, w, host_tau, dev->stream()); });
    status = cuda::wait(dev->stream(), status);
    if (status == cudaSuccess) top_tau = host_tau;
  }
  if (int e = k.exchange.all(status, top_tau.data(), top_tau.size(), gathered)) return e;
  std::copy_n(gathered.data() + std::size_t(w) * k.top_rank, w, tau);
  return scalapack::kOk;
}

// Q^T of a factored panel applied to the columns right of it, over the processes: each sums
// V^T V and V^T C over its rows, the sums are added over the processes in rank order (the same
// bits everywhere), and each writes its rows of C - V op(T) (V^T C). kOk, or the exchange's
// failure; `status` is left with this process's enqueueing of the last step, which the next
// exchange carries.
template <class T>
int update_trailing(const Ranks& k, std::optional<DeviceRows<T>>& dev, const Panel<T>& p, int n,
                    const T* tau, cudaError_t& status) {
  const int w = p.w;
  const int nc = n - p.c - w;
  const std::size_t entries = std::size_t(w) * std::size_t(w + nc);  // [V^T V, V^T C]
  std::vector<T> sums(entries, T(0));
  std::vector<std::unique_ptr<WyBlock<T>>> blocks;  // one a kWyMaxColumns columns of C
  const kernels::Reflectors<T> v{k.rows ? dev->at(p.first, p.c) : nullptr, k.rows ? dev->ld() : 1,
                                 w, k.top ? 0 : w};
  const auto chunk = [&](int b) { return std::min(kWyMaxColumns, nc - b * kWyMaxColumns); };
  const auto c_of = [&](int b) { return dev->at(p.first, p.c + w + b * kWyMaxColumns); };
  const int count = (nc + kWyMaxColumns - 1) / kWyMaxColumns;
  const auto enqueue = [&](auto&& step) {
    if (status == cudaSuccess) status = step();
  };
  if (k.rows) {
    for (int b = 0; b < count; ++b) {
      blocks.push_back(std::make_unique<WyBlock<T>>(p.rows, w, chunk(b), dev->stream()));
      WyBlock<T>& block = *blocks.back();
      enqueue([&] { return block.status(); });
      enqueue([&] { return block.take_tau(tau); });
      enqueue(
          [&] { return block.product_rows(v, false, c_of(b), dev->ld(), chunk(b), 0, p.rows); });
      enqueue([&] { return block.sum_product(false, chunk(b)); });
      enqueue([&] {
        return get(block.product(), sums.data() + std::size_t(w) * (w + b * kWyMaxColumns), w, w,
                   chunk(b), dev->stream());
      });
    }
    enqueue([&] { return blocks[0]->gram_rows(v, 0, p.rows); });
    enqueue([&] { return blocks[0]->sum_gram(); });
    enqueue([&] { return get(blocks[0]->gram(), sums.data(), w, w, w, dev->stream()); });
    status = cuda::wait(dev->stream(), status);
  }
  std::vector<T> gathered;
  if (int e = k.exchange.all(status, sums.data(), entries, gathered)) return e;
  std::fill(sums.begin(), sums.end(), T(0));
  for (int rank = 0; rank < k.layout.ranks; ++rank) {
    const T* theirs = gathered.data() + entries * std::size_t(rank);
    for (std::size_t e = 0; e < entries; ++e) sums[e] += theirs[e];
  }
  if (!k.rows) return scalapack::kOk;
  for (int b = 0; b < count; ++b) {
    WyBlock<T>& block = *blocks[std::size_t(b)];
    enqueue([&] { return put(sums.data(), w, block.gram(), w, w, dev->stream()); });
    enqueue([&] {
      return put(sums.data() + std::size_t(w) * (w + b * kWyMaxColumns), w, block.product(), w,
                 chunk(b), dev->stream());
    });
    enqueue([&] { return block.apply(v, true, false, chunk(b), c_of(b), dev->ld()); });
  }
  return scalapack::kOk;
}

template <class T>
int run(const Layout& layout, int h, T* a, int lda, T* tau, const AllGather& gather) {
  const int n = layout.n;
  const bool member = layout.my_prow >= 0;
  const bool rows = member && h > 0;
  const bool top = member && layout.my_prow == layout.top[0].prow;
  Exchange exchange(gather, layout.ranks);
  const Ranks k{layout, exchange, member,
                rows,   top,      layout.column_ranks[std::size_t(layout.top[0].prow)]};
  std::optional<DeviceRows<T>> dev;
  cudaError_t status = cudaSuccess;
  // One panel: its leaves are factored as its rows land. Several: all of A goes first, since each
  // panel's update reads the columns to its right.
  std::optional<TsqrTree<T>> streamed;
  if (rows) {
    dev.emplace();
    status = guarded([&] {
      cudaError_t step = dev->open(h, n, a, lda);
      if (step != cudaSuccess) return step;
      if (n > kPanelColumns) return dev->on_a->arrive();
      streamed.emplace(h, n, dev->at(0, 0), dev->ld(), dev->stream());
      if (streamed->status() != cudaSuccess) return streamed->status();
      return dev->on_a->arrive(n, kTsqrBlockRows, [&](long long first, long long count) {
        return streamed->factor_leaves(first, count);
      });
    });
  }
  std::vector<T> all_tau(n);
  for (int c = 0; c < n; c += kPanelColumns) {
    const int w = std::min(kPanelColumns, n - c);
    const long long first = top ? c : 0;
    std::optional<TsqrTree<T>> tree;
    if (rows && !streamed && status == cudaSuccess) {
      tree.emplace(h - first, w, dev->at(first, c), dev->ld(), dev->stream());
      status = tree->status();
      if (status == cudaSuccess) status = tree->factor_leaves(0, h - first);
    }
    const Panel<T> panel{c, w, first, rows ? h - first : 0,
                         streamed ? &*streamed
                         : tree   ? &*tree
                                  : nullptr};
    if (int e = panel_tsqr(k, dev, panel, status, all_tau.data() + c)) return e;
    // Every process's work so far succeeded; the update's own steps go with the next exchange.
    status = cudaSuccess;
    if (c + w < n) {
      if (int e = update_trailing(k, dev, panel, n, all_tau.data() + c, status)) return e;
    }
  }
  // The last exchange found every process's work done: the results go to the caller.
  if (rows) dev->on_a->write_back();
  if (member) std::copy(all_tau.begin(), all_tau.end(), tau);
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
