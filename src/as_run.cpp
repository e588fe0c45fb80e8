#include "as_run.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>

namespace switchyard::as_run {
namespace {

// Enough for the classes of any program seen: one that makes more keeps what it has and counts
// no new ones.
constexpr int kSlots = 512;
constexpr int kKept = 3;

struct Slot {
  std::uint64_t key = 0;  // 0: free
  int calls = 0;          // counted and not
  double ratios[kKept] = {};
};

struct Table {
  std::mutex mutex;
  std::array<Slot, kSlots> slots;
};

Table& table() {
  static Table* t = new Table;  // never destroyed: calls may come during exit
  return *t;
}

int order(std::int64_t x) { return x > 0 ? 64 - __builtin_clzll(std::uint64_t(x)) : 0; }

// The class: the route, the routine, each dimension's binary order, and what else sets its
// speed (the transposes, a Gram product's one operand, whether C is read).
std::uint64_t key_of(Routine routine, int route, const Shape& s) {
  return 1 | std::uint64_t(route) << 1 | std::uint64_t(routine) << 3 |
         std::uint64_t(order(s.m)) << 11 | std::uint64_t(order(s.n)) << 18 |
         std::uint64_t(order(s.k)) << 25 | std::uint64_t(std::uint8_t(s.transa)) << 32 |
         std::uint64_t(std::uint8_t(s.transb)) << 40 | std::uint64_t(s.same_operand) << 48 |
         std::uint64_t(s.reads_c) << 49;
}

// The class's slot, claimed when `claim`; null where it has none (or the table is full).
Slot* find(Table& t, std::uint64_t key, bool claim) {
  const std::size_t start = (key * 0x9E3779B97F4A7C15ull) >> 55;  // 9 bits: 512 slots
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = t.slots[(start + std::size_t(i)) % kSlots];
    if (slot.key == key) return &slot;
    if (slot.key == 0) {
      if (!claim) return nullptr;
      slot.key = key;
      return &slot;
    }
  }
  return nullptr;
}

// How many calls the slot's ratios rest on: its calls but the first, at most kKept.
int counted_in(const Slot* slot) { return slot ? std::min(slot->calls - 1, kKept) : 0; }

}  // namespace

void record(Routine routine, int route, const Shape& s, double modelled_s, double ran_s) {
  if (!(modelled_s > 0.0) || !(ran_s > 0.0) || !std::isfinite(modelled_s)) return;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  Slot* slot = find(t, key_of(routine, route, s), true);
  if (!slot) return;
  if (slot->calls++ == 0) return;  // the first: not counted
  slot->ratios[(slot->calls - 2) % kKept] = ran_s / modelled_s;
}

int counted(Routine routine, int route, const Shape& s) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return counted_in(find(t, key_of(routine, route, s), false));
}

double ratio(Routine routine, int route, const Shape& s) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  const Slot* slot = find(t, key_of(routine, route, s), false);
  const int counted = counted_in(slot);
  if (counted < 2) return 1.0;
  double kept[kKept];
  std::copy(slot->ratios, slot->ratios + counted, kept);
  std::sort(kept, kept + counted);
  const double median = counted == kKept ? kept[1] : (kept[0] + kept[1]) / 2;
  return std::clamp(median, 0.25, 4.0);
}

}  // namespace switchyard::as_run
