#include "qr/gpu/split_tsqr.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "qr/gpu/blocked_qr.hpp"
#include "qr/gpu/residence.hpp"
#include "qr/gpu/split_devices.hpp"
#include "qr/gpu/wy_block.hpp"
#include "tsqr/cpu_row_blocks.hpp"

namespace switchyard::qr::gpu {
namespace {

// One device's share of A's rows and what works on it there: for each panel its tree and, but
// for the last, the block that applies its reflectors to the columns to its right.
template <class T>
struct Share {
  int ordinal;
  long long first, rows;
  std::unique_ptr<Residence> where;
  std::unique_ptr<Operand<T>> on_a;
  std::vector<std::unique_ptr<TsqrTree<T>>> trees;
  std::vector<std::unique_ptr<WyBlock<T>>> updates;
  std::unique_ptr<cuda::DeviceBuffer> small;  // n x n

  cudaStream_t stream() const { return where->stream(); }
  T* x() const { return static_cast<T*>(small->get()); }
  // The share's rows from A's row j down start skip(j) rows into the share (device 0's rows
  // alone hold a panel's top), and row_of(j) rows below A's row j.
  long long skip(int j) const { return std::max<long long>(0, j - first); }
  long long row_of(int j) const { return first + skip(j) - j; }
  // Row i of the share in A's column j, where the device works on it.
  T* at(long long i, int j) const { return on_a->get() + i + j * on_a->ld(); }
  // Panel p's reflectors in the share's rows.
  Reflectors<T> reflectors(const Panel& p) const {
    return {at(skip(p.first), p.first), on_a->ld(), p.width, row_of(p.first)};
  }
  void release() {
    updates.clear();
    trees.clear();
    small.reset();
    on_a.reset();
    where.reset();
  }
};

// The panels of an m x n call, each factored from row `first` down as one split TSQR: one,
// unless A is worked on in place and wider than 32 columns; then the panels of one device's
// blocked QR (blocked_qr.hpp), all in one group, since n <= kSplitMaxColumns = the most
// reflectors one update applies. One device takes panels of 16 from 17 columns
// (blocked_qr.cpp); over devices, up to 32 columns was measured as one TSQR only
// (docs/multi-gpu.md).
constexpr int kSplitSingleTsqrColumns = 32;

template <class T>
std::vector<Panel> panels_of(int n, bool in_place) {
  static_assert(kSplitMaxColumns <= kWyMaxReflectors);
  if (!in_place || n <= kSplitSingleTsqrColumns) return {{0, n}};
  return column_panels<T>(n);
}

// The share's stream and memory: its rows of A where the device works on them, and every
// panel's tree and update.
template <class T>
cudaError_t prepare(Share<T>& s, const std::vector<Panel>& panels, T* a, int lda, int n) {
  s.where = std::make_unique<Residence>(s.ordinal);
  if (s.where->status() != cudaSuccess) return s.where->status();
  s.on_a = std::make_unique<Operand<T>>(*s.where, a + s.first, lda, s.rows, n);
  if (s.on_a->status() != cudaSuccess) return s.on_a->status();
  for (const Panel& p : panels) {
    const long long rows = s.rows - s.skip(p.first);
    s.trees.push_back(std::make_unique<TsqrTree<T>>(
        int(rows), p.width, s.at(s.skip(p.first), p.first), s.on_a->ld(), s.stream()));
    if (s.trees.back()->status() != cudaSuccess) return s.trees.back()->status();
    if (&p == &panels.back()) break;
    // [V^T V, V^T C] of the panel's reflectors and the columns to its right.
    s.updates.push_back(std::make_unique<WyBlock<T>>(rows, p.width, n - p.first, s.stream()));
    if (s.updates.back()->status() != cudaSuccess) return s.updates.back()->status();
  }
  s.small = std::make_unique<cuda::DeviceBuffer>(sizeof(T) * std::size_t(n) * n, s.stream());
  return s.small->status();
}

// One split TSQR of panel `index`, steps 1 to 5 of split_tsqr.hpp, once every share is
// prepared; with A in host memory, step 1 streams each share up on a thread of its own (its
// leaves factored as its rows land), otherwise it is enqueued from this thread. Writes the
// panel's tau at `tau` (host); returns the first error, `what` saying in which step.
template <class T>
cudaError_t factor_panel(std::vector<Share<T>>& shares, const std::vector<Panel>& panels,
                         std::size_t index, bool in_place, T* tau, const char*& what) {
  const Panel& p = panels[index];
  const int n = p.width, count = int(shares.size());
  const std::size_t square = std::size_t(n) * n;
  const long long stack_rows = (long long)count * n;

  // 1. Each share's rows of the panel reduced to its R, into the stack (zero below the
  // diagonals).
  std::vector<T> stack(std::size_t(stack_rows) * n, T(0));
  std::vector<T> roots(std::size_t(count) * square);
  const auto reduce = [&](Share<T>& s) {
    TsqrTree<T>& tree = *s.trees[index];
    // A host share streams up (it has one panel); in place, the panel's rows are there.
    cudaError_t step =
        in_place ? tree.factor_leaves(0, s.rows - s.skip(p.first))
                 : s.on_a->arrive(n, kTsqrBlockRows, [&](long long first, long long rows) {
                     return tree.factor_leaves(first, rows);
                   });
    return step == cudaSuccess ? tree.reduce() : step;
  };
  // A copy to pageable memory returns only once the device is done, so it comes once the
  // share's work has been enqueued everywhere.
  const auto stacked = [&](Share<T>& s) {
    const std::size_t d = std::size_t(&s - shares.data());
    T* const root = roots.data() + d * square;
    const cudaError_t step =
        cuda::wait(s.stream(), get(s.trees[index]->root_r(), root, n, n, n, s.stream()));
    if (step != cudaSuccess) return step;
    tsqr::copy_upper_triangle(n, root, n, stack.data() + d * n, stack_rows);
    return cudaSuccess;
  };
  what = "QR of each device's rows";
  cudaError_t status = on_every_share(in_place, shares, reduce, stacked);
  if (status != cudaSuccess) return status;

  // 2. The stack's R and explicit Q, on the host.
  std::vector<T> r(square);
  factor_stack_of_r(int(stack_rows), n, stack.data(), r.data());

  // 3. Q1 = (device 0's Q) G_0, and Q1 - S = L U there.
  what = "reconstruction";
  std::vector<T> u_inverse(square);
  status = on_first_device(shares, [&](Share<T>& s) {
    TsqrTree<T>& tree = *s.trees[index];
    cudaError_t step = put(stack.data(), stack_rows, s.x(), n, n, s.stream());
    if (step == cudaSuccess) step = tree.form_first_rows(s.x());
    if (step == cudaSuccess) step = tree.reconstruct();
    if (step == cudaSuccess) step = get(tree.u_inverse(), u_inverse.data(), n, n, n, s.stream());
    return cuda::wait(s.stream(), step);
  });
  if (status != cudaSuccess) return status;

  // 4. V2 over every share, from G_d inv(U); the nonzero flags or-ed.
  what = "V of each device's rows";
  std::vector<int> flags(std::size_t(count) * n);
  std::vector<T> starts(std::size_t(count) * square);
  status = enqueued_on_every_device(
      shares,
      [&](Share<T>& s) {
        const std::size_t d = std::size_t(&s - shares.data());
        T* const x = starts.data() + d * square;
        multiply_square(n, stack.data() + d * n, stack_rows, u_inverse.data(), x);
        const cudaError_t step = put(x, n, s.x(), n, n, s.stream());
        return step == cudaSuccess ? s.trees[index]->write_q(s.x(), s.row_of(p.first)) : step;
      },
      [&](Share<T>& s) {
        const std::size_t d = std::size_t(&s - shares.data());
        return cuda::wait(s.stream(),
                          cudaMemcpyAsync(flags.data() + d * n, s.trees[index]->nonzero(),
                                          sizeof(int) * n, cudaMemcpyDeviceToHost, s.stream()));
      });
  if (status != cudaSuccess) return status;
  for (int d = 1; d < count; ++d) {
    for (int j = 0; j < n; ++j) flags[std::size_t(j)] |= flags[std::size_t(d) * n + j];
  }

  // 5. V1, S R and tau on device 0.
  what = "the top rows";
  return on_first_device(shares, [&](Share<T>& s) {
    TsqrTree<T>& tree = *s.trees[index];
    cudaError_t step = cudaMemcpyAsync(tree.nonzero(), flags.data(), sizeof(int) * n,
                                       cudaMemcpyHostToDevice, s.stream());
    if (step == cudaSuccess) step = put(r.data(), n, tree.root_r(), n, n, s.stream());
    T* const device_tau = s.x();  // x is spent: tau fits in its first column
    if (step == cudaSuccess) step = tree.write_top(device_tau);
    if (step == cudaSuccess) {
      step = cudaMemcpyAsync(tau, device_tau, sizeof(T) * n, cudaMemcpyDeviceToHost, s.stream());
    }
    return cuda::wait(s.stream(), step);
  });
}

// Panel `index`'s reflectors applied, as Q^T, to the columns to its right, A in place: each
// device sums [V^T V, V^T C] over its rows, the host adds the sums over the devices, and each
// device writes its rows of C - V W. That last step is not waited for: the next panel's steps
// follow on the same streams.
template <class T>
cudaError_t update_right(std::vector<Share<T>>& shares, const std::vector<Panel>& panels,
                         std::size_t index, int n, const T* tau) {
  const Panel& p = panels[index];
  const int k = p.width, right = p.first + p.width, columns = n - right;
  // Each share's rows of C (the columns right of the panel) from the panel's top row down.
  const auto c = [&](const Share<T>& s) { return s.at(s.skip(p.first), right); };
  cudaError_t status = in_turn_on_every_device(shares, [&](Share<T>& s) {
    WyBlock<T>& block = *s.updates[index];
    cudaError_t step = block.take_tau(tau);
    if (step == cudaSuccess) {
      step = block.product_rows(s.reflectors(p), true, c(s), s.on_a->ld(), columns, 0,
                                s.rows - s.skip(p.first));
    }
    return step == cudaSuccess ? block.sum_product(true, columns) : step;
  });
  if (status == cudaSuccess) {
    status = add_over_devices<T>(true, shares, k, k + columns,
                                 [&](Share<T>& s) { return s.updates[index]->product(); });
  }
  if (status != cudaSuccess) return status;
  return in_turn_on_every_device(shares, [&](Share<T>& s) {
    return s.updates[index]->apply(s.reflectors(p), true, true, columns, c(s), s.on_a->ld());
  });
}

}  // namespace

const char* split_note(const std::vector<int>& devices) {
  // Never destroyed: the report at exit prints it after static destructors have run.
  static const std::string* note = [&] {
    std::string text = "split over CUDA devices ";
    for (std::size_t d = 0; d < devices.size(); ++d) {
      text += (d ? "," : "") + std::to_string(devices[d]);
    }
    return new std::string(text);
  }();
  return note->c_str();
}

bool splits(const std::vector<int>& devices, long long m, int n) {
  if (devices.size() < 2 || n > kSplitMaxColumns) return false;
  const long long rows = share_rows(m, devices.size(), kTsqrBlockRows);
  const long long last = m - rows * (long long)(devices.size() - 1);
  return last >= std::max<long long>(n, 1) && rows >= n;
}

template <class T>
bool lies_split(const std::vector<int>& devices, const T* a, long long lda, long long m, int n) {
  if (devices.size() < 2) return false;
  const long long rows = share_rows(m, devices.size(), kTsqrBlockRows);
  if (m - rows * (long long)(devices.size() - 1) < 1) return false;
  // Column by column, so that a matrix on one device fails at its first column's second share.
  for (int j = 0; j < n; ++j) {
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const long long first = rows * (long long)d, count = std::min(rows, m - first);
      if (cuda::prefetched_device(a + first + lda * j, sizeof(T) * std::size_t(count)) !=
          devices[d]) {
        return false;
      }
    }
  }
  return true;
}

template <class T>
bool geqrf_split(const std::vector<int>& devices, int m, int n, T* a, int lda, T* tau,
                 std::string& error) {
  if (!splits(devices, m, n) || lda < m) {
    error = "invalid arguments";
    return false;
  }
  return cuda::run_guarded(error, [&] {
    const bool in_place = cuda::device_accessible(a);
    const std::vector<Panel> panels = panels_of<T>(n, in_place);
    const long long rows = share_rows(m, devices.size(), kTsqrBlockRows);
    std::vector<Share<T>> shares;
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const long long first = rows * (long long)d;
      shares.push_back({devices[d], first, std::min(rows, m - first), {}, {}, {}, {}, {}});
    }
    const Released<Share<T>> released{shares};

    // Every share's device memory is had before any device writes A, so that failing to get
    // it leaves A as it was for the fallback.
    cudaError_t status = in_place ? program_work_done() : cudaSuccess;
    if (status == cudaSuccess) {
      status = in_turn_on_every_device(shares,
                                       [&](Share<T>& s) { return prepare(s, panels, a, lda, n); });
    }
    if (status != cudaSuccess) return cuda::fail(error, "device memory", status);

    std::vector<T> host_tau(static_cast<std::size_t>(n));
    for (std::size_t p = 0; p < panels.size(); ++p) {
      T* const panel_tau = host_tau.data() + panels[p].first;
      const char* what = "";
      status = factor_panel(shares, panels, p, in_place, panel_tau, what);
      if (status != cudaSuccess) return cuda::fail(error, what, status);
      if (p + 1 < panels.size()) status = update_right(shares, panels, p, n, panel_tau);
      if (status != cudaSuccess) return cuda::fail(error, "update right of a panel", status);
    }

    // Every share of a host A back, only once every device has succeeded.
    on_every_device(shares, [](Share<T>& s) {
      s.on_a->write_back();
      return cudaSuccess;
    });
    // tau may be device memory when A is.
    cudaMemcpy(tau, host_tau.data(), sizeof(T) * host_tau.size(), cudaMemcpyDefault);
    return true;
  });
}

template bool lies_split<float>(const std::vector<int>&, const float*, long long, long long, int);
template bool lies_split<double>(const std::vector<int>&, const double*, long long, long long, int);
template bool geqrf_split<float>(const std::vector<int>&, int, int, float*, int, float*,
                                 std::string&);
template bool geqrf_split<double>(const std::vector<int>&, int, int, double*, int, double*,
                                  std::string&);

}  // namespace switchyard::qr::gpu
