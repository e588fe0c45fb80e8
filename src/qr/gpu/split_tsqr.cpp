#include "qr/gpu/split_tsqr.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "qr/gpu/residence.hpp"
#include "qr/gpu/split_devices.hpp"
#include "tsqr/cpu_row_blocks.hpp"

namespace switchyard::qr::gpu {
namespace {

// One device's share of A's rows and what works on it there.
template <class T>
struct Share {
  int ordinal;
  long long first, rows;
  std::unique_ptr<Residence> where;
  std::unique_ptr<Operand<T>> on_a;
  std::unique_ptr<TsqrTree<T>> tree;
  std::unique_ptr<cuda::DeviceBuffer> small;  // n x n

  cudaStream_t stream() const { return where->stream(); }
  T* x() const { return static_cast<T*>(small->get()); }
  void release() {
    tree.reset();
    small.reset();
    on_a.reset();
    where.reset();
  }
};

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
  if (!splits(devices, m, n)) return false;
  const long long rows = share_rows(m, devices.size(), kTsqrBlockRows);
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
    const int count = int(devices.size());
    const long long rows = share_rows(m, devices.size(), kTsqrBlockRows);
    std::vector<Share<T>> shares;
    for (int d = 0; d < count; ++d) {
      const long long first = rows * d;
      shares.push_back({devices[std::size_t(d)], first, std::min(rows, m - first), {}, {}, {}, {}});
    }
    const Released<Share<T>> released{shares};
    const std::size_t square = std::size_t(n) * n;
    const long long stack_rows = (long long)count * n;

    // 1. Each share up and reduced to its R, into the stack (zero below the diagonals). A host
    // A's shares stream up on a thread each; a managed A's are enqueued from this thread.
    std::vector<T> stack(std::size_t(stack_rows) * n, T(0));
    std::vector<T> roots(std::size_t(count) * square);
    const auto prepare = [&](Share<T>& s) {
      s.where = std::make_unique<Residence>(s.ordinal);
      if (s.where->status() != cudaSuccess) return s.where->status();
      s.on_a = std::make_unique<Operand<T>>(*s.where, a + s.first, lda, s.rows, n);
      if (s.on_a->status() != cudaSuccess) return s.on_a->status();
      s.tree =
          std::make_unique<TsqrTree<T>>(int(s.rows), n, s.on_a->get(), s.on_a->ld(), s.stream());
      if (s.tree->status() != cudaSuccess) return s.tree->status();
      s.small = std::make_unique<cuda::DeviceBuffer>(sizeof(T) * square, s.stream());
      return s.small->status();
    };
    const auto reduce = [&](Share<T>& s) {
      cudaError_t step = s.on_a->arrive(n, kTsqrBlockRows, [&](long long first, long long rows) {
        return s.tree->factor_leaves(first, rows);
      });
      return step == cudaSuccess ? s.tree->reduce() : step;
    };
    // A copy to pageable memory returns only once the device is done, so it comes once the
    // share's work has been enqueued everywhere.
    const auto stacked = [&](Share<T>& s) {
      const std::size_t index = std::size_t(&s - shares.data());
      T* const root = roots.data() + index * square;
      const cudaError_t step =
          cuda::wait(s.stream(), get(s.tree->root_r(), root, n, n, n, s.stream()));
      if (step != cudaSuccess) return step;
      tsqr::copy_upper_triangle(n, root, n, stack.data() + index * n, stack_rows);
      return cudaSuccess;
    };
    cudaError_t status = cudaSuccess;
    if (cuda::device_accessible(a)) {
      // A is worked on in place: what the program enqueued on the calling device's default
      // streams, which may still be writing A, ends first (each share's stream follows only its
      // own device's), and every share's device memory is had before any device writes A, so
      // that failing to get it leaves A as it was for the fallback.
      status = cudaStreamSynchronize(cudaStreamLegacy);
      if (status == cudaSuccess) status = cudaStreamSynchronize(cudaStreamPerThread);
      for (Share<T>& s : shares) {
        if (status == cudaSuccess) status = cuda::use_device(s.ordinal);
        if (status == cudaSuccess) status = prepare(s);
      }
      if (status == cudaSuccess) status = enqueued_on_every_device(shares, reduce, stacked);
    } else {
      status = on_every_device(shares, [&](Share<T>& s) {
        cudaError_t step = prepare(s);
        if (step == cudaSuccess) step = cuda::wait(s.stream(), reduce(s));
        return step == cudaSuccess ? stacked(s) : step;
      });
    }
    if (status != cudaSuccess) return cuda::fail(error, "QR of each device's rows", status);

    // 2. The stack's R and explicit Q, on the host.
    std::vector<T> r(square);
    factor_stack_of_r(int(stack_rows), n, stack.data(), r.data());

    // 3. Q1 = (device 0's Q) G_0, and Q1 - S = L U there.
    std::vector<T> u_inverse(square);
    status = on_first_device(shares, [&](Share<T>& s) {
      cudaError_t step = put(stack.data(), stack_rows, s.x(), n, n, s.stream());
      if (step == cudaSuccess) step = s.tree->form_first_rows(s.x());
      if (step == cudaSuccess) step = s.tree->reconstruct();
      if (step == cudaSuccess) step = get(s.tree->u_inverse(), u_inverse.data(), n, n, n, s.stream());
      return cuda::wait(s.stream(), step);
    });
    if (status != cudaSuccess) return cuda::fail(error, "reconstruction", status);

    // 4. V2 over every share, from G_d inv(U); the nonzero flags or-ed.
    std::vector<int> flags(std::size_t(count) * n);
    std::vector<T> starts(std::size_t(count) * square);
    status = enqueued_on_every_device(
        shares,
        [&](Share<T>& s) {
          const std::size_t index = std::size_t(&s - shares.data());
          T* const x = starts.data() + index * square;
          multiply_square(n, stack.data() + index * n, stack_rows, u_inverse.data(), x);
          const cudaError_t step = put(x, n, s.x(), n, n, s.stream());
          return step == cudaSuccess ? s.tree->write_q(s.x(), s.first) : step;
        },
        [&](Share<T>& s) {
          const std::size_t index = std::size_t(&s - shares.data());
          return cuda::wait(s.stream(),
                            cudaMemcpyAsync(flags.data() + index * n, s.tree->nonzero(),
                                            sizeof(int) * n, cudaMemcpyDeviceToHost, s.stream()));
        });
    if (status != cudaSuccess) return cuda::fail(error, "V of each device's rows", status);
    for (int d = 1; d < count; ++d) {
      for (int j = 0; j < n; ++j) flags[std::size_t(j)] |= flags[std::size_t(d) * n + j];
    }

    // 5. V1, S R and tau on device 0, then every share of a host A back.
    std::vector<T> host_tau;
    status = on_first_device(shares, [&](Share<T>& s) {
      cudaError_t step = cudaMemcpyAsync(s.tree->nonzero(), flags.data(), sizeof(int) * n,
                                         cudaMemcpyHostToDevice, s.stream());
      if (step == cudaSuccess) step = put(r.data(), n, s.tree->root_r(), n, n, s.stream());
      T* const device_tau = s.x();  // x is spent: tau fits in its first column
      if (step == cudaSuccess) step = s.tree->write_top(device_tau);
      if (step == cudaSuccess) step = to_host(device_tau, n, host_tau, s.stream());
      return cuda::wait(s.stream(), step);
    });
    if (status != cudaSuccess) return cuda::fail(error, "the top rows", status);
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
template bool lies_split<double>(const std::vector<int>&, const double*, long long, long long,
                                 int);
template bool geqrf_split<float>(const std::vector<int>&, int, int, float*, int, float*,
                                 std::string&);
template bool geqrf_split<double>(const std::vector<int>&, int, int, double*, int, double*,
                                  std::string&);

}  // namespace switchyard::qr::gpu
