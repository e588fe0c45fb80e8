#include "device/staging_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <future>
#include <mutex>
#include <system_error>
#include <utility>

namespace switchyard::device {
namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;

struct Prepared {
  std::mutex mutex;
  bool begun[family_count] = {};
  std::future<StagingMemory> memory[family_count];
};

Prepared& prepared() {
  static auto* p = new Prepared;  // never destroyed: a helper may still run at exit
  return *p;
}

}  // namespace

StagingMemory::StagingMemory(std::size_t bytes) {
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  const std::size_t length = (bytes + page - 1) / page * page;
  void* p = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  mapping_ = p;
  mapped_ = length + kHugePage;
  const std::uintptr_t aligned =
      (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) / kHugePage * kHugePage;
  memory_ = reinterpret_cast<void*>(aligned);
  bytes_ = length;
  // Advice only: without transparent huge pages the memory works the same, faulted in slower.
  madvise(memory_, bytes_, MADV_HUGEPAGE);
  volatile char* touch = static_cast<char*>(memory_);
  for (std::size_t at = 0; at < bytes_; at += page) touch[at] = 0;
}

StagingMemory::~StagingMemory() {
  if (mapping_) munmap(mapping_, mapped_);
}

StagingMemory::StagingMemory(StagingMemory&& o) noexcept { *this = std::move(o); }

StagingMemory& StagingMemory::operator=(StagingMemory&& o) noexcept {
  if (this != &o) {
    if (mapping_) munmap(mapping_, mapped_);
    mapping_ = std::exchange(o.mapping_, nullptr);
    mapped_ = std::exchange(o.mapped_, 0);
    memory_ = std::exchange(o.memory_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void* StagingMemory::release() {
  mapping_ = nullptr;
  return memory_;
}

void prepare_staging(Family f, std::size_t bytes) {
  Prepared& p = prepared();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.begun[int(f)]) return;
  p.begun[int(f)] = true;
  try {
    p.memory[int(f)] = std::async(std::launch::async, [bytes] { return StagingMemory(bytes); });
  } catch (const std::system_error&) {
    // No helper thread: take_staging makes the memory when it is needed.
  }
}

StagingMemory take_staging(Family f, std::size_t bytes) {
  Prepared& p = prepared();
  std::future<StagingMemory> ahead;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    ahead = std::move(p.memory[int(f)]);
  }
  if (ahead.valid()) {
    StagingMemory memory = ahead.get();
    if (memory.get() && memory.bytes() >= bytes) return memory;
  }
  return StagingMemory(bytes);
}

}  // namespace switchyard::device
