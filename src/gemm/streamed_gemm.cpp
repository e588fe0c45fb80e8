#include "gemm/streamed_gemm.hpp"

#include <algorithm>
#include <memory>

#include "device/opencl_staging.hpp"
#include "gemm/stream_transfers.hpp"
#include "routine.hpp"

namespace switchyard::gemm {

StreamPlan default_plan(const KernelParams& p, int n) {
  const int columns = std::max((n + 7) / 8, kMinPanelCols);
  return {(columns + p.nl - 1) / p.nl * p.nl, opencl::Staging::kSlotBytes};
}

RowBlocks stream_row_blocks(const Kernels& kernels, const StreamPlan& plan, int m, int n, int k,
                            bool product, bool shared, std::size_t element_bytes) {
  const int width = std::min(n, std::max(1, plan.panel_cols));
  if (!product || shared || takes_inplace(kernels, m, width)) return row_blocks(m, 1);
  return row_blocks(m, plan.row_blocks > 0 ? plan.row_blocks : row_blocks_for(m, k, element_bytes));
}

namespace {

// One stage of the uploads: row block `index` of op(A), or panel `index` of op(B) with its
// panel of C when beta != 0.
struct Stage {
  bool a;
  int index;
};

// The row blocks and the panels in the order they go up: A0, B0, A1, B1, ..., then the
// rest of the more numerous.
std::vector<Stage> stage_order(int blocks, int panels) {
  std::vector<Stage> order;
  for (int i = 0; i < std::max(blocks, panels); ++i) {
    if (i < blocks) order.push_back({true, i});
    if (i < panels) order.push_back({false, i});
  }
  return order;
}

}  // namespace

template <class T>
bool gemm_streamed(opencl::Runtime& rt, Kernels& kernels, char transa, char transb, int m, int n,
                   int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc,
                   const StreamPlan& plan, std::vector<CBlock>& unwritten, std::string& error,
                   const StreamFault* fault, FeedSeat<T> seat) {
  // However the call ends, the other devices of a feed never wait for this one after it.
  const std::unique_ptr<FeedSeat<T>, void (*)(FeedSeat<T>*)> leaves(&seat, [](FeedSeat<T>* s) {
    if (s->feed) s->feed->leave(s->device);
  });
  unwritten.clear();
  if (m <= 0 || n <= 0) return true;
  unwritten.assign(1, CBlock{0, 0, m, n});
  opencl::Staging* st = opencl::staging(rt, error);
  if (!st) return false;
  std::lock_guard<std::mutex> lock(st->busy);
  const opencl::Api& cl = rt.cl();

  const bool product = alpha != T(0) && k > 0;
  const bool na = transa == 'N', nb = transb == 'N';
  const long b_rows = nb ? k : n, b_cols = nb ? n : k;
  const int width = std::min(n, std::max(1, plan.panel_cols));
  const int panels = (n + width - 1) / width;
  // A product the in-place kernels take reads A and B as they were uploaded, unpacked.
  const bool inplace = product && takes_inplace(kernels, m, width);
  // The Gram product and its kin: op(B) is op(A)'s host matrix, read once.
  const bool shared = same_operand(transa, transb, m, n, k, a, lda, b, ldb);
  const RowBlocks blocks = stream_row_blocks(kernels, plan, m, n, k, product, shared, sizeof(T));
  const auto block_rows = [&](int r) { return std::min(blocks.rows, m - r * blocks.rows); };
  // Block r of op(A) as uploaded: rows x k (N) or k x rows (T), its own leading dimension.
  const auto a_ld = [&](int r) { return na ? block_rows(r) : k; };
  // Columns of block r packed (its rows padded to the kernel's tile).
  const auto packed_rows = [&](int r) { return padded(kernels.params, block_rows(r), 0, 0).mp; };
  const Padded widest = padded(kernels.params, blocks.rows, width, product ? k : 0);
  const Split k_split = inplace ? inplace_split(m, width, k, kernels.compute_units, plan.slices)
                                : split_for(kernels, widest, plan.slices);
  // Packed panels of op(B) kept at once: panel j's buffer is packed again for panel j + kept,
  // which goes up after the last row block, so after every product that reads panel j (the
  // kernel queue runs in order).
  const int kept = std::min(panels, std::max(2, blocks.count));

  // Device memory: each row block of A as it comes, B (none when shared), C, each row block
  // packed, the packed panels of op(B) kept, and with a split the partial products, which
  // each product's reduction has read before the next product's slices write them. The
  // in-place kernels need no packed operands.
  std::vector<opencl::Buffer> held;
  const auto acquire = [&](std::size_t elements) {
    opencl::Buffer buffer = rt.acquire(sizeof(T) * elements, error);
    cl_mem mem = buffer.get();
    if (mem) held.push_back(std::move(buffer));
    return mem;
  };
  cl_mem dc = acquire(std::size_t(m) * n);
  if (!dc) return false;
  // Never read without a product.
  std::vector<cl_mem> da(std::size_t(blocks.count), dc), ap(std::size_t(blocks.count), dc);
  std::vector<cl_mem> bp(std::size_t(kept), dc);
  cl_mem db = dc, partials = dc;
  if (product) {
    bool operands = true;
    for (int r = 0; r < blocks.count && operands; ++r) {
      da[r] = acquire(std::size_t(block_rows(r)) * k);
      if (da[r] && !inplace) {
        ap[r] = acquire(std::size_t(widest.kp) * packed_rows(r));
      }
      operands = da[r] && ap[r];
    }
    if (operands) db = shared ? da[0] : acquire(std::size_t(b_rows) * b_cols);
    operands = operands && db;
    for (int i = 0; i < kept && operands && !inplace; ++i) {
      bp[i] = acquire(std::size_t(widest.kp) * widest.np);
      operands = bp[i] != nullptr;
    }
    if (operands && k_split.slices > 1) {
      partials = acquire(std::size_t(k_split.slices) * blocks.rows * width);
    }
    if (!operands || !partials) return false;
  }

  // The uploads in stage_order, and panel j of C down. With `fed`, the pieces of the operand
  // the feed copies are of its slots' size and numbered in the order they go.
  const std::vector<Stage> order = stage_order(blocks.count, panels);
  const std::size_t elems = std::max<std::size_t>(1, plan.piece_bytes / sizeof(T));
  const std::size_t fed_elems =
      plan.fed_piece_bytes ? std::max<std::size_t>(1, plan.fed_piece_bytes / sizeof(T)) : elems;
  std::vector<std::vector<Piece<T>>> up, down;
  T* const a_host = const_cast<T*>(a);  // only read: uploads copy from it
  T* const b_host = const_cast<T*>(b);
  const auto cut = [&](bool fed) {
    up.assign(order.size(), {});
    down.assign(std::size_t(panels), {});
    const bool fed_a = fed && seat.operand == Operand::a, fed_b = fed && seat.operand == Operand::b;
    int number = 0;
    const auto numbered = [&](std::vector<Piece<T>>& stage) {
      for (Piece<T>& p : stage) p.feed = number++;
    };
    for (std::size_t s = 0; s < order.size(); ++s) {
      std::vector<Piece<T>>& stage = up[s];
      const int i = order[s].index;
      if (order[s].a) {
        const long r0 = long(i) * blocks.rows, rows = block_rows(i);
        const std::size_t a_elems = fed_a ? fed_elems : elems;
        if (product && na) split(a_host + r0, lda, rows, k, da[i], rows, 0, 0, a_elems, stage);
        if (product && !na) split(a_host + r0 * lda, lda, k, rows, da[i], k, 0, 0, a_elems, stage);
        if (fed_a) numbered(stage);
        continue;
      }
      const long j0 = long(i) * width, nj = std::min<long>(width, n - j0);
      const std::size_t b_elems = fed_b ? fed_elems : elems;
      if (product && !shared && nb)
        split(b_host + j0 * ldb, ldb, k, nj, db, b_rows, 0, j0, b_elems, stage);
      if (product && !shared && !nb)
        split(b_host + j0, ldb, nj, k, db, b_rows, j0, 0, b_elems, stage);
      if (fed_b) numbered(stage);
      if (beta != T(0)) split(c + j0 * ldc, ldc, m, nj, dc, m, 0, j0, elems, stage);
      split(c + j0 * ldc, ldc, m, nj, dc, m, 0, j0, elems, down[i]);
    }
  };
  cut(seat.feed != nullptr);
  if (seat.feed) {
    std::vector<const Piece<T>*> pieces;
    for (const std::vector<Piece<T>>& stage : up) {
      for (const Piece<T>& p : stage) {
        if (p.feed >= 0) pieces.push_back(&p);
      }
    }
    // Refused (and out of the feed): this device copies its own, in its own slots' size.
    if (!seat.feed->offer(seat.device, pieces)) {
      seat.feed = nullptr;
      cut(false);
    }
  }

  Download<T> download(cl, *st, down, fault);
  cl_command_queue kernel_queue = rt.queue();
  // The product of row block r and panel j into C; the last block's completes the panel, and
  // a planted kernel failure of panel j comes before it.
  const auto multiply = [&](int r, int j) {
    const int j0 = j * width, nj = std::min(width, n - j0), r0 = r * blocks.rows;
    const int rows = block_rows(r);
    if (r + 1 == blocks.count) {
      if (const cl_int code = planted(fault, StreamFault::Step::kernels, j); code != CL_SUCCESS) {
        error =
            "the kernels of panel " + std::to_string(j) + " failed: " + opencl::error_name(code);
        return false;
      }
    }
    const DeviceMatrix c_block{dc, long(j0) * m + r0, m};
    if (inplace) {
      const DeviceMatrix a_whole{da[0], 0, a_ld(0)};
      const DeviceMatrix b_panel{db, nb ? long(j0) * b_rows : long(j0), int(b_rows)};
      return enqueue_inplace(rt, kernels, transa, transb, k_split, m, nj, k, alpha, a_whole,
                             b_panel, beta, c_block,
                             same_place(transa, transb, m, nj, a_whole, b_panel), partials, error);
    }
    const Padded size = padded(kernels.params, rows, nj, product ? k : 0);
    return enqueue_product<T>(rt, kernels, size, k_split, ap[r], bp[j % kept], rows, nj, alpha,
                              beta, c_block, partials, error);
  };
  // Panel j's products are all enqueued: it goes down after them.
  const auto done = [&](int j) {
    cl_event computed = nullptr;
    const cl_int r = cl.EnqueueMarkerWithWaitList(kernel_queue, 0, nullptr, &computed);
    if (r != CL_SUCCESS) {
      error = "clEnqueueMarkerWithWaitList failed: " + opencl::error_name(r);
      return false;
    }
    cl.Flush(kernel_queue);
    download.hand(j, computed);
    return true;
  };
  int blocks_up = 0, panels_up = 0;
  const auto after = [&](int s, cl_event uploaded) {
    if (uploaded) {
      const cl_int r = cl.EnqueueBarrierWithWaitList(kernel_queue, 1, &uploaded, nullptr);
      if (r != CL_SUCCESS) {
        error = "clEnqueueBarrierWithWaitList failed: " + opencl::error_name(r);
        return false;
      }
    }
    const int i = order[s].index;
    if (order[s].a) {
      if (product && !inplace &&
          !enqueue_pack(rt, kernels, Operand::a, !na, k, block_rows(i), widest.kp, packed_rows(i),
                        {da[i], 0, a_ld(i)}, ap[i], error)) {
        return false;
      }
      blocks_up = i + 1;
      for (int j = 0; j < panels_up; ++j) {
        if (!multiply(i, j) || (blocks_up == blocks.count && !done(j))) return false;
      }
      return true;
    }
    const int j0 = i * width, nj = std::min(width, n - j0);
    const DeviceMatrix b_panel{db, nb ? long(j0) * b_rows : long(j0), int(b_rows)};
    if (product && !inplace &&
        !enqueue_pack(rt, kernels, Operand::b, nb, k, nj, widest.kp,
                      padded(kernels.params, 0, nj, 0).np, b_panel, bp[i % kept], error)) {
      return false;
    }
    panels_up = i + 1;
    for (int r = 0; r < blocks_up; ++r) {
      if (!multiply(r, i)) return false;
    }
    return blocks_up < blocks.count || done(i);
  };
  const bool uploaded = upload<T>(cl, *st, up, after, error, fault, seat);
  download.finish();
  // Nothing may still use the device buffers when they go back to the pool.
  cl.Finish(st->upload);
  cl.Finish(kernel_queue);
  cl.Finish(st->download);

  unwritten.clear();
  bool none = true;
  for (int j = 0; j < panels; ++j) {
    for (std::size_t i = 0; i < down[j].size(); ++i) {
      const Piece<T>& p = down[j][i];
      if (download.written()[std::size_t(download.first(j)) + i]) {
        none = false;
      } else {
        unwritten.push_back({int(p.row), int(p.col), int(p.rows), int(p.cols)});
      }
    }
  }
  if (unwritten.empty()) return true;
  if (uploaded && download.error().empty()) error = "a transfer or kernel failed on the device";
  if (uploaded && !download.error().empty()) error = download.error();
  if (none) unwritten.assign(1, CBlock{0, 0, m, n});
  return false;
}

template bool gemm_streamed<double>(opencl::Runtime&, Kernels&, char, char, int, int, int, double,
                                    const double*, int, const double*, int, double, double*, int,
                                    const StreamPlan&, std::vector<CBlock>&, std::string&,
                                    const StreamFault*, FeedSeat<double>);
template bool gemm_streamed<float>(opencl::Runtime&, Kernels&, char, char, int, int, int, float,
                                   const float*, int, const float*, int, float, float*, int,
                                   const StreamPlan&, std::vector<CBlock>&, std::string&,
                                   const StreamFault*, FeedSeat<float>);

}  // namespace switchyard::gemm
