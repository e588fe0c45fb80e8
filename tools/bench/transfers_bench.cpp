// switchyard bench transfers: the host side of streaming a matrix from pageable memory, piece by
// piece, as the routes do: what pinning staging costs, how fast host threads copy pageable
// memory into it, how fast the device takes it from there, what pinning the pageable memory in
// place would cost instead, and the gemm route's whole upload (the Gram product 64 x 64 x 2^22
// from host memory) against those parts, in CUDA and OpenCL.
#include "transfers_bench.hpp"

#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.hpp"
#include "device/opencl_runtime.hpp"
#include "device/opencl_shared_staging.hpp"
#include "device/opencl_staging.hpp"
#include "gemm/device_gemm.hpp"
#include "gemm/streamed_gemm.hpp"
#include "gemm/tuning_db.hpp"

namespace switchyard::bench {
namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;
constexpr std::size_t kTotal = std::size_t(2) << 30;  // 2 GiB: 2^22 x 64 doubles

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Host copies of `total` bytes of `source` into a ring of `slots`, piece by piece, `threads`
// threads each taking every threads-th piece: GB/s.
double copy_rate(const char* source, std::size_t total, const std::vector<void*>& slots,
                 std::size_t piece, int threads) {
  const std::size_t pieces = total / piece;
  const double ms = best_ms(3, [&] {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (std::size_t i = std::size_t(t); i < pieces; i += std::size_t(threads)) {
          std::memcpy(slots[i % slots.size()], source + i * piece, piece);
        }
      });
    }
    for (std::thread& th : pool) th.join();
  });
  return double(total) / ms / 1e6;
}

// Fresh anonymous memory, its pages faulted in (and backed by huge pages where `huge`); the
// time of the faulting in `ms`.
void* faulted(std::size_t bytes, bool huge, double& ms) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (huge) madvise(p, bytes, MADV_HUGEPAGE);
  const auto start = std::chrono::steady_clock::now();
  std::memset(p, 0, bytes);
  ms = 1e3 * seconds_since(start);
  return p;
}

// The ways to pin 64 MiB of staging, in a process whose context has just started.
void cuda_pinning() {
  std::printf("\nCUDA\n");
  auto start = std::chrono::steady_clock::now();
  cudaFree(nullptr);
  std::printf("  context (cudaFree(0))                          %8.1f ms\n",
              1e3 * seconds_since(start));
  for (const bool huge : {false, true}) {
    double touch_ms = 0;
    void* p = faulted(64 * kMiB, huge, touch_ms);
    start = std::chrono::steady_clock::now();
    const cudaError_t r = cudaHostRegister(p, 64 * kMiB, cudaHostRegisterPortable);
    std::printf("  64 MiB faulted in%s %6.1f ms, then cudaHostRegister %6.1f ms%s\n",
                huge ? " (huge pages)" : "             ", touch_ms, 1e3 * seconds_since(start),
                r == cudaSuccess ? "" : "  FAILED");
    if (r == cudaSuccess) cudaHostUnregister(p);
    munmap(p, 64 * kMiB);
  }
  for (const auto& [count, bytes] : {std::pair<int, std::size_t>{1, 64 * kMiB},
                                     {16, 4 * kMiB},
                                     {4, 16 * kMiB},
                                     {16, 16 * kMiB}}) {
    std::vector<void*> slots(std::size_t(count), nullptr);
    start = std::chrono::steady_clock::now();
    for (void*& s : slots) cudaMallocHost(&s, bytes);
    std::printf("  cudaMallocHost %2d x %2zu MiB, one after another  %8.1f ms\n", count,
                bytes / kMiB, 1e3 * seconds_since(start));
    for (void* s : slots) cudaFreeHost(s);
  }
}

void cuda_rates(const char* source) {
  std::printf("\nCUDA rates\n");
  std::vector<void*> ring(16, nullptr);
  for (void*& s : ring) cudaMallocHost(&s, 16 * kMiB);
  for (const std::size_t piece : {2 * kMiB, 4 * kMiB, 16 * kMiB}) {
    for (const int threads : {4, 8, 12, 16}) {
      std::printf("  pageable -> pinned, %2zu MiB pieces, %2d threads %8.1f GB/s\n", piece / kMiB,
                  threads, copy_rate(source, kTotal, ring, piece, threads));
    }
  }
  void* device = nullptr;
  cudaMalloc(&device, kTotal);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  for (const std::size_t piece : {1 * kMiB, 4 * kMiB, 16 * kMiB}) {
    const double ms = best_ms(3, [&] {
      for (std::size_t i = 0; i < kTotal / piece; ++i) {
        cudaMemcpyAsync(static_cast<char*>(device) + i * piece, ring[i % ring.size()], piece,
                        cudaMemcpyHostToDevice, stream);
      }
      cudaStreamSynchronize(stream);
    });
    std::printf("  pinned -> device, %2zu MiB pieces               %8.1f GB/s\n", piece / kMiB,
                double(kTotal) / ms / 1e6);
  }
  cudaStreamDestroy(stream);
  cudaFree(device);
  for (void* s : ring) cudaFreeHost(s);
}

// The whole pages inside [source, source + total): pinning works on pages, and two ranges that
// share a page can not both be registered.
struct Pages {
  char* first;
  std::size_t bytes;
};
Pages pages_within(const char* source, std::size_t total) {
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(source) + page - 1) / page * page;
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(source) + total) / page * page;
  return {reinterpret_cast<char*>(begin), std::size_t(end - begin)};
}

// The first whole pieces of `p`.
Pages whole_pieces(const Pages& p, std::size_t piece) { return {p.first, p.bytes / piece * piece}; }

// `threads` threads each pinning (or unpinning) every threads-th piece of `p`: ms, or a negative
// figure when a call failed.
double pin_pieces(const Pages& p, std::size_t piece, int threads, bool pin) {
  const std::size_t pieces = p.bytes / piece;
  std::atomic<bool> failed{false};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t i = std::size_t(t); i < pieces; i += std::size_t(threads)) {
        char* at = p.first + i * piece;
        const cudaError_t r =
            pin ? cudaHostRegister(at, piece, cudaHostRegisterPortable) : cudaHostUnregister(at);
        if (r != cudaSuccess) failed = true;
      }
    });
  }
  for (std::thread& th : pool) th.join();
  const double ms = 1e3 * seconds_since(start);
  return failed ? -ms : ms;
}

// The caller's pageable memory pinned where it lies, piece by piece, instead of copied into
// staging: how fast pinning and unpinning go by thread count, how fast the device reads and
// writes such memory, and a whole upload that pins each piece on helper threads while the pieces
// pinned before it go up.
void cuda_in_place(const char* source) {
  std::printf("\nCUDA, pageable memory pinned in place (cudaHostRegister)\n");
  const std::size_t piece = 64 * kMiB;
  const Pages whole = whole_pieces(pages_within(source, kTotal), piece);
  const std::size_t pieces = whole.bytes / piece;
  for (const int threads : {1, 2, 4, 8, 16}) {
    const double pin_ms = pin_pieces(whole, piece, threads, true);
    const double unpin_ms = pin_pieces(whole, piece, threads, false);
    std::printf("  pin %zu x 64 MiB, %2d threads %8.1f GB/s, unpin %8.1f GB/s%s\n", pieces, threads,
                double(whole.bytes) / std::abs(pin_ms) / 1e6,
                double(whole.bytes) / std::abs(unpin_ms) / 1e6,
                pin_ms < 0 || unpin_ms < 0 ? "  FAILED" : "");
  }
  void* device = nullptr;
  if (cudaMalloc(&device, whole.bytes) != cudaSuccess) {
    std::printf("  no device memory\n");
    return;
  }
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  if (pin_pieces(whole, piece, 8, true) > 0) {
    for (const bool up : {true, false}) {
      const double ms = best_ms(3, [&] {
        for (std::size_t i = 0; i < pieces; ++i) {
          char* host = whole.first + i * piece;
          char* dev = static_cast<char*>(device) + i * piece;
          cudaMemcpyAsync(up ? static_cast<void*>(dev) : host, up ? static_cast<void*>(host) : dev,
                          piece, up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream);
        }
        cudaStreamSynchronize(stream);
      });
      std::printf("  pinned in place %s device, 64 MiB pieces     %8.1f GB/s\n", up ? "->" : "<-",
                  double(whole.bytes) / ms / 1e6);
    }
    pin_pieces(whole, piece, 8, false);
  }
  // The whole upload: helpers pin pieces in order, this thread sends each once it is pinned,
  // and the pieces are unpinned after the last transfer.
  for (const int threads : {2, 4, 8}) {
    const double ms = best_ms(3, [&] {
      std::vector<std::atomic<int>> pinned(pieces);
      for (std::atomic<int>& x : pinned) x = 0;
      std::atomic<std::size_t> next{0};
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
          for (std::size_t i; (i = next++) < pieces;) {
            const cudaError_t r =
                cudaHostRegister(whole.first + i * piece, piece, cudaHostRegisterPortable);
            pinned[i] = r == cudaSuccess ? 1 : -1;
          }
        });
      }
      for (std::size_t i = 0; i < pieces; ++i) {
        while (pinned[i] == 0) std::this_thread::yield();
        cudaMemcpyAsync(static_cast<char*>(device) + i * piece, whole.first + i * piece, piece,
                        cudaMemcpyHostToDevice, stream);
      }
      cudaStreamSynchronize(stream);
      for (std::thread& th : pool) th.join();
      pin_pieces(whole, piece, threads, false);
    });
    std::printf("  pinned as it goes up, %d threads, 2 GiB      %8.1f GB/s (pin, send, unpin)\n",
                threads, double(whole.bytes) / ms / 1e6);
  }
  cudaStreamDestroy(stream);
  cudaFree(device);
}

void opencl_part(const char* source) {
  std::printf("\nOpenCL\n");
  const char* why = nullptr;
  auto start = std::chrono::steady_clock::now();
  opencl::Runtime* rt = opencl::runtime(&why);
  if (!rt) {
    std::printf("  no OpenCL device: %s\n", why);
    return;
  }
  std::printf("  runtime (%s)  %8.1f ms\n", rt->device().name.c_str(), 1e3 * seconds_since(start));
  std::string error;
  const opencl::Api& cl = rt->cl();
  {
    cl_int r = CL_SUCCESS;
    start = std::chrono::steady_clock::now();
    cl_mem pinned = cl.CreateBuffer(rt->context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                    64 * kMiB, nullptr, &r);
    void* host = cl.EnqueueMapBuffer(rt->queue(), pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     64 * kMiB, 0, nullptr, nullptr, &r);
    std::printf("  1 x 64 MiB ALLOC_HOST_PTR, mapped            %8.1f ms%s\n",
                1e3 * seconds_since(start), host ? "" : "  FAILED");
    cl.ReleaseMemObject(pinned);
    double touch_ms = 0;
    void* p = faulted(64 * kMiB, false, touch_ms);
    start = std::chrono::steady_clock::now();
    cl_mem used =
        cl.CreateBuffer(rt->context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 64 * kMiB, p, &r);
    host = cl.EnqueueMapBuffer(rt->queue(), used, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64 * kMiB,
                               0, nullptr, nullptr, &r);
    std::printf("  64 MiB faulted in %6.1f ms, USE_HOST_PTR + map %6.1f ms (%s)\n", touch_ms,
                1e3 * seconds_since(start), host == p ? "same pointer" : "another pointer");
    opencl::Buffer device = rt->acquire(64 * kMiB, error);
    const double ms = best_ms(3, [&] {
      for (int i = 0; i < 16; ++i) {
        cl.EnqueueWriteBuffer(rt->queue(), device.get(), CL_FALSE, i * 4 * kMiB, 4 * kMiB,
                              static_cast<char*>(host) + i * 4 * kMiB, 0, nullptr, nullptr);
      }
      cl.Finish(rt->queue());
    });
    std::printf("  USE_HOST_PTR memory -> device, 4 MiB pieces   %8.1f GB/s\n",
                double(64 * kMiB) / ms / 1e6);
    cl.ReleaseMemObject(used);
    munmap(p, 64 * kMiB);
  }
  start = std::chrono::steady_clock::now();
  opencl::Staging* st = opencl::staging(*rt, error);
  if (!st) {
    std::printf("  no staging: %s\n", error.c_str());
    return;
  }
  std::printf("  staging, %zu x %zu MiB mapped             %8.1f ms\n",
              st->up.size() + st->down.size(), opencl::Staging::kSlotBytes / kMiB,
              1e3 * seconds_since(start));
  std::vector<void*> ring;
  for (const opencl::PinnedSlot& s : st->up) ring.push_back(s.host);
  for (const int threads : {8, 16}) {
    std::printf("  pageable -> mapped, 16 MiB pieces, %2d threads %8.1f GB/s\n", threads,
                copy_rate(source, kTotal, ring, opencl::Staging::kSlotBytes, threads));
  }
  opencl::Buffer device = rt->acquire(kTotal, error);
  int cuda_devices = 0;
  if (cudaGetDeviceCount(&cuda_devices) == cudaSuccess && cuda_devices > 0) {
    // Whether NVIDIA's OpenCL reads memory that CUDA pinned as fast as its own pinned memory.
    const Pages whole = pages_within(source, kTotal);
    const Pages pinned = whole_pieces(whole, 64 * kMiB);
    for (const bool pin : {false, true}) {
      if (pin && pin_pieces(pinned, 64 * kMiB, 8, true) < 0) break;
      const double ms = best_ms(3, [&] {
        for (std::size_t i = 0; i < whole.bytes / (16 * kMiB); ++i) {
          cl.EnqueueWriteBuffer(st->upload, device.get(), CL_FALSE, i * 16 * kMiB, 16 * kMiB,
                                whole.first + i * 16 * kMiB, 0, nullptr, nullptr);
        }
        cl.Finish(st->upload);
      });
      std::printf("  %s -> device, 16 MiB pieces  %8.1f GB/s\n",
                  pin ? "pageable pinned by CUDA" : "pageable               ",
                  double(whole_pieces(whole, 16 * kMiB).bytes) / ms / 1e6);
      if (pin) pin_pieces(pinned, 64 * kMiB, 8, false);
    }
  }
  for (const std::size_t piece : {4 * kMiB, 16 * kMiB}) {
    const double ms = best_ms(3, [&] {
      for (std::size_t i = 0; i < kTotal / piece; ++i) {
        cl.EnqueueWriteBuffer(st->upload, device.get(), CL_FALSE, i * piece, piece,
                              ring[i % ring.size()], 0, nullptr, nullptr);
      }
      cl.Finish(st->upload);
    });
    std::printf("  mapped -> device, %2zu MiB pieces               %8.1f GB/s\n", piece / kMiB,
                double(kTotal) / ms / 1e6);
  }
  device = opencl::Buffer();

  gemm::Kernels* kernels =
      gemm::kernels_for(*rt, gemm::select(rt->device(), gemm::Precision::f64).entry.params, error);
  if (!kernels) {
    std::printf("  no kernels: %s\n", error.c_str());
    return;
  }
  const int k = int(kTotal / sizeof(double) / 64);
  const double* a = reinterpret_cast<const double*>(source);
  std::vector<double> c(64 * 64);
  std::vector<gemm::CBlock> unwritten;
  for (const std::size_t piece : {4 * kMiB, 16 * kMiB}) {
    gemm::StreamPlan plan = gemm::default_plan(kernels->params, 64);
    plan.piece_bytes = piece;
    bool ok = true;
    const double ms = best_ms(3, [&] {
      ok = ok && gemm::gemm_streamed<double>(*rt, *kernels, 'T', 'N', 64, 64, k, 1.0, a, k, a, k,
                                             0.0, c.data(), 64, plan, unwritten, error);
    });
    std::printf("  gemm route, Gram 64 x 64 x 2^22, %2zu MiB pieces %8.1f ms  (%.1f GB/s)%s\n",
                piece / kMiB, ms, double(kTotal) / ms / 1e6, ok ? "" : "  FAILED");
  }
}

// With two or more devices (SWITCHYARD_DEVICES): the slots that a split call copies an operand
// into once and sends to every device (opencl_shared_staging.hpp). Device 1 takes 2 GiB from them
// and from its own slots, and then both devices take them at once.
void shared_staging() {
  std::string why, error;
  const std::vector<opencl::Runtime*> rts = opencl::split_runtimes(why);
  if (rts.size() < 2) {
    std::printf("\nShared staging: not measured (%s)\n", why.c_str());
    return;
  }
  std::printf("\nShared staging, devices %d and %d\n", rts[0]->device().index,
              rts[1]->device().index);
  opencl::Staging* st0 = opencl::staging(*rts[0], error);
  opencl::Staging* st1 = st0 ? opencl::staging(*rts[1], error) : nullptr;
  if (!st1) {
    std::printf("  no staging: %s\n", error.c_str());
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  opencl::SharedStaging* shared = opencl::shared_staging(rts, error);
  if (!shared) {
    std::printf("  no shared staging: %s\n", error.c_str());
    return;
  }
  const std::lock_guard<std::mutex> owned(shared->busy);
  std::printf("  %d x %zu MiB shared slots, pinned in %zu contexts    %6.1f ms\n",
              opencl::SharedStaging::kSlots, opencl::SharedStaging::kSlotBytes / kMiB, rts.size(),
              1e3 * seconds_since(start));
  opencl::Buffer d0 = rts[0]->acquire(kTotal, error), d1 = rts[1]->acquire(kTotal, error);
  if (!d0.get() || !d1.get()) {
    std::printf("  no device memory: %s\n", error.c_str());
    return;
  }
  const opencl::Api& cl = rts[1]->cl();
  std::vector<void*> own;
  for (const opencl::PinnedSlot& slot : st1->up) own.push_back(slot.host);
  const auto send = [&](cl_command_queue q, cl_mem to, const std::vector<void*>& slots,
                        std::size_t piece) {
    for (std::size_t i = 0; i < kTotal / piece; ++i) {
      cl.EnqueueWriteBuffer(q, to, CL_FALSE, i * piece, piece, slots[i % slots.size()], 0,
                            nullptr, nullptr);
    }
    cl.Flush(q);
  };
  const double from_own = best_ms(3, [&] {
    send(st1->upload, d1.get(), own, opencl::Staging::kSlotBytes);
    cl.Finish(st1->upload);
  });
  std::printf("  device 1 from its own slots, 2 GiB                 %8.1f GB/s\n",
              double(kTotal) / from_own / 1e6);
  const double from_shared = best_ms(3, [&] {
    send(st1->upload, d1.get(), shared->slots, opencl::SharedStaging::kSlotBytes);
    cl.Finish(st1->upload);
  });
  std::printf("  device 1 from the shared slots, 2 GiB              %8.1f GB/s\n",
              double(kTotal) / from_shared / 1e6);
  const double both = best_ms(3, [&] {
    send(st0->upload, d0.get(), shared->slots, opencl::SharedStaging::kSlotBytes);
    send(st1->upload, d1.get(), shared->slots, opencl::SharedStaging::kSlotBytes);
    cl.Finish(st0->upload);
    cl.Finish(st1->upload);
  });
  std::printf("  both devices from the shared slots at once, 2 x 2 GiB %6.1f GB/s in all\n",
              double(2 * kTotal) / both / 1e6);
}

}  // namespace

int transfers_main(int argc, char** argv) {
  if (argc > 0) {
    std::fprintf(stderr, "usage: switchyard bench transfers\n");
    return 2;
  }
  int devices = 0;
  const bool cuda = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  if (cuda) {
    cuda_pinning();
  } else {
    std::printf("\nCUDA: no device\n");
  }
  std::printf("\n2 GiB of pageable host memory, best of 3\n");
  std::vector<double> host(kTotal / sizeof(double));
  parallel_fill(host.data(), host.size(), 1);
  const char* source = reinterpret_cast<const char*>(host.data());
  if (cuda) cuda_rates(source);
  if (cuda) cuda_in_place(source);
  opencl_part(source);
  shared_staging();
  return 0;
}

}  // namespace switchyard::bench
