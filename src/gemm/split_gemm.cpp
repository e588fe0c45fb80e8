#include "gemm/split_gemm.hpp"

#include <algorithm>
#include <cstddef>
#include <future>
#include <mutex>
#include <optional>
#include <system_error>

namespace switchyard::gemm {

std::vector<CBlock> split_blocks(int m, int n, int devices, int row_step, int col_step) {
  const bool rows = m >= n;
  const int length = rows ? m : n, step = std::max(1, rows ? row_step : col_step);
  const int steps = (length + step - 1) / step;
  const int parts = std::max(1, std::min(devices, steps));
  std::vector<CBlock> blocks;
  int at = 0;
  for (int d = 0; d < parts; ++d) {
    const int size = d + 1 == parts ? length - at : steps / parts * step;
    blocks.push_back(rows ? CBlock{at, 0, size, n} : CBlock{0, at, m, size});
    at += size;
  }
  return blocks;
}

bool pays_to_split(int m, int n, int k, std::size_t element_size, std::size_t devices) {
  const double dm = m, dn = n, dk = k;
  const double bytes = double(element_size) * (dm * dk + dk * dn + dm * dn);
  const double flops = 2 * dm * dn * dk;
  return devices > 1 && bytes > 0 && flops >= kSplitMinFlopsPerByte * bytes &&
         flops >= kSplitMinFlops;
}

template <class T>
bool gemm_split(const std::vector<Share>& shares, opencl::SharedStaging* shared, char transa,
                char transb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb,
                T beta, T* c, int ldc, std::vector<CBlock>& unwritten, std::string& error,
                const SplitProbe& probe) {
  unwritten.clear();
  if (m <= 0 || n <= 0) return true;
  const KernelParams& p = shares.front().kernels->params;
  const std::vector<CBlock> blocks = split_blocks(m, n, int(shares.size()), p.ml, p.nl);
  // With the rows cut every share reads all of op(B); with the columns cut, all of op(A).
  const Operand whole = m >= n ? Operand::b : Operand::a;
  std::unique_lock<std::mutex> owned;
  std::optional<Feed<T>> feed;
  if (shared && blocks.size() > 1) {
    owned = std::unique_lock<std::mutex>(shared->busy);
    feed.emplace(&shares.front().rt->cl(), shared->slots, opencl::SharedStaging::kSlotBytes,
                 int(blocks.size()));
    if (!feed->working()) feed.reset();  // no thread to copy: each share copies for itself
  }
  struct Outcome {
    bool ok = false;
    std::vector<CBlock> unwritten;
    std::string error;
  };
  std::vector<Outcome> outcomes(blocks.size());
  const auto run = [&](std::size_t s, bool fed) {
    const CBlock& x = blocks[s];
    const Share& share = shares[s];
    const T* a_s = a + (transa == 'N' ? std::size_t(x.row) : std::size_t(x.row) * lda);
    const T* b_s = b + (transb == 'N' ? std::size_t(x.col) * ldb : std::size_t(x.col));
    T* c_s = c + x.row + std::size_t(x.col) * ldc;
    StreamPlan plan = default_plan(share.kernels->params, x.cols);
    if (feed) plan.fed_piece_bytes = opencl::SharedStaging::kSlotBytes;
    if (probe.piece_bytes) plan.piece_bytes = plan.fed_piece_bytes = probe.piece_bytes;
    const FeedSeat<T> seat = fed ? FeedSeat<T>{&*feed, int(s), whole} : FeedSeat<T>{};
    Outcome& o = outcomes[s];
    o.ok = gemm_streamed<T>(*share.rt, *share.kernels, transa, transb, x.rows, x.cols, k, alpha,
                            a_s, lda, b_s, ldb, beta, c_s, ldc, plan, o.unwritten, o.error,
                            int(s) == probe.fault_share ? probe.fault : nullptr, seat);
  };
  std::vector<std::future<void>> others;
  std::vector<std::size_t> on_this_thread;
  for (std::size_t s = 1; s < blocks.size(); ++s) {
    try {
      others.push_back(std::async(std::launch::async, run, s, feed.has_value()));
    } catch (const std::system_error&) {
      // No thread to spare: it runs after share 0, which must not wait for it in the feed.
      on_this_thread.push_back(s);
      if (feed) feed->leave(int(s));
    }
  }
  run(0, feed.has_value());
  for (std::size_t s : on_this_thread) run(s, false);
  for (std::future<void>& f : others) f.wait();

  bool untouched_all = true;
  for (std::size_t s = 0; s < blocks.size(); ++s) {
    const Outcome& o = outcomes[s];
    if (o.ok) {
      untouched_all = false;
      continue;
    }
    if (error.empty()) error = "device " + std::to_string(s) + " of the split: " + o.error;
    if (!untouched(o.unwritten, blocks[s].rows, blocks[s].cols)) untouched_all = false;
    for (const CBlock& u : o.unwritten) {
      unwritten.push_back({u.row + blocks[s].row, u.col + blocks[s].col, u.rows, u.cols});
    }
  }
  if (unwritten.empty()) return true;
  if (untouched_all) unwritten.assign(1, CBlock{0, 0, m, n});
  return false;
}

template bool gemm_split<double>(const std::vector<Share>&, opencl::SharedStaging*, char, char, int,
                                 int, int, double, const double*, int, const double*, int, double,
                                 double*, int, std::vector<CBlock>&, std::string&,
                                 const SplitProbe&);
template bool gemm_split<float>(const std::vector<Share>&, opencl::SharedStaging*, char, char, int,
                                int, int, float, const float*, int, const float*, int, float,
                                float*, int, std::vector<CBlock>&, std::string&, const SplitProbe&);

}  // namespace switchyard::gemm
