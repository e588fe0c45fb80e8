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
  const long a_rows = na ? m : k, a_cols = na ? k : m;
  const long b_rows = nb ? k : n, b_cols = nb ? n : k;
  const int width = std::min(n, std::max(1, plan.panel_cols));
  const int panels = (n + width - 1) / width;
  const Padded widest = padded(kernels.params, m, width, product ? k : 0);
  // A product the in-place kernels take reads A and B as they were uploaded, unpacked.
  const bool inplace = product && takes_inplace(kernels, m, width);
  const Split k_split = inplace ? inplace_split(m, width, k, kernels.compute_units, plan.slices)
                                : split_for(kernels, widest, plan.slices);
  // The Gram product and its kin: op(B) is op(A)'s host matrix, read once.
  const bool shared = same_operand(transa, transb, m, n, k, a, lda, b, ldb);

  // Device memory: A and B as they come (one copy when shared), C, packed A,
  // packed panels of op(B) in turn (the kernel queue runs in order, so panel
  // j + 2 is packed only after the TN kernel of panel j read its buffer),
  // and with a split the partial products, which each panel's reduction has
  // read before the next panel's slices write them. The in-place kernels
  // need no packed operands.
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
  cl_mem da = dc, db = dc, ap = dc, bp[2] = {dc, dc}, partials = dc;
  if (product) {
    da = acquire(std::size_t(a_rows) * a_cols);
    db = da && !shared ? acquire(std::size_t(b_rows) * b_cols) : da;
    if (db && !inplace) {
      ap = acquire(std::size_t(widest.kp) * widest.mp);
      bp[0] = ap ? acquire(std::size_t(widest.kp) * widest.np) : nullptr;
      bp[1] = bp[0] && panels > 1 ? acquire(std::size_t(widest.kp) * widest.np) : bp[0];
    }
    const bool operands = inplace ? db != nullptr : bp[1] != nullptr;
    if (operands && k_split.slices > 1) partials = acquire(std::size_t(k_split.slices) * m * width);
    if (!operands || !partials) return false;
  }

  // Stage 0 uploads A, stage 1 + j the panel j of op(B) and of C (beta != 0). With `fed`, the
  // pieces of the operand the feed copies are of its slots' size and numbered in the order
  // they go.
  const std::size_t elems = std::max<std::size_t>(1, plan.piece_bytes / sizeof(T));
  const std::size_t fed_elems =
      plan.fed_piece_bytes ? std::max<std::size_t>(1, plan.fed_piece_bytes / sizeof(T)) : elems;
  std::vector<std::vector<Piece<T>>> up, down;
  T* const a_host = const_cast<T*>(a);  // only read: uploads copy from it
  T* const b_host = const_cast<T*>(b);
  const auto cut = [&](bool fed) {
    up.assign(std::size_t(panels) + 1, {});
    down.assign(std::size_t(panels), {});
    const bool fed_a = fed && seat.operand == Operand::a, fed_b = fed && seat.operand == Operand::b;
    int number = 0;
    const auto numbered = [&](std::vector<Piece<T>>& stage) {
      for (Piece<T>& p : stage) p.feed = number++;
    };
    if (product)
      split(a_host, lda, a_rows, a_cols, da, a_rows, 0, 0, fed_a ? fed_elems : elems, up[0]);
    if (fed_a) numbered(up[0]);
    for (int j = 0; j < panels; ++j) {
      const long j0 = long(j) * width, nj = std::min<long>(width, n - j0);
      const std::size_t b_elems = fed_b ? fed_elems : elems;
      if (product && !shared && nb)
        split(b_host + j0 * ldb, ldb, k, nj, db, b_rows, 0, j0, b_elems, up[1 + j]);
      if (product && !shared && !nb)
        split(b_host + j0, ldb, nj, k, db, b_rows, j0, 0, b_elems, up[1 + j]);
      if (fed_b) numbered(up[1 + j]);
      if (beta != T(0)) split(c + j0 * ldc, ldc, m, nj, dc, m, 0, j0, elems, up[1 + j]);
      split(c + j0 * ldc, ldc, m, nj, dc, m, 0, j0, elems, down[j]);
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
  const auto after = [&](int stage, cl_event uploaded) {
    if (uploaded) {
      const cl_int r = cl.EnqueueBarrierWithWaitList(kernel_queue, 1, &uploaded, nullptr);
      if (r != CL_SUCCESS) {
        error = "clEnqueueBarrierWithWaitList failed: " + opencl::error_name(r);
        return false;
      }
    }
    if (stage == 0) {
      return !product || inplace ||
             enqueue_pack(rt, kernels, Operand::a, !na, k, m, widest.kp, widest.mp,
                          {da, 0, int(a_rows)}, ap, error);
    }
    const int j = stage - 1, j0 = j * width, nj = std::min(width, n - j0);
    if (const cl_int r = planted(fault, StreamFault::Step::kernels, j); r != CL_SUCCESS) {
      error = "the kernels of panel " + std::to_string(j) + " failed: " + opencl::error_name(r);
      return false;
    }
    const Padded size = padded(kernels.params, m, nj, product ? k : 0);
    const DeviceMatrix b_panel{db, nb ? long(j0) * b_rows : long(j0), int(b_rows)};
    if (inplace) {
      const DeviceMatrix a_whole{da, 0, int(a_rows)};
      if (!enqueue_inplace(rt, kernels, transa, transb, k_split, m, nj, k, alpha, a_whole, b_panel,
                           beta, {dc, long(j0) * m, m},
                           same_place(transa, transb, m, nj, a_whole, b_panel), partials, error)) {
        return false;
      }
    } else if ((product && !enqueue_pack(rt, kernels, Operand::b, nb, k, nj, size.kp, size.np,
                                         b_panel, bp[j % 2], error)) ||
               !enqueue_product<T>(rt, kernels, size, k_split, ap, bp[j % 2], m, nj, alpha, beta,
                                   {dc, long(j0) * m, m}, partials, error)) {
      return false;
    }
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
