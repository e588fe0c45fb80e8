// The feed of a split call (shared_feed.hpp) without a device: devices are threads that take
// each piece from the feed's slot, check that it holds the piece's host rectangle, and send it
// (no transfer, so no event). Few slots and many pieces, so that every slot is filled again
// many times; devices that run at different speeds; a device that stops early; a device whose
// pieces differ from the feed's.
#include "gemm/shared_feed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace switchyard::gemm {
namespace {

// A 40 x 30 host matrix (ld 41) in pieces of 3 columns, except the last column in parts of 7.
struct HostOperand {
  std::vector<double> host;
  std::vector<Piece<double>> pieces;
  HostOperand() : host(41 * 30) {
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = double(i) + 0.25;
    split<double>(host.data(), 41, 40, 29, nullptr, 40, 0, 0, 3 * 40, pieces);
    split<double>(host.data() + 29 * 41, 41, 40, 1, nullptr, 40, 0, 29, 7, pieces);
    for (std::size_t i = 0; i < pieces.size(); ++i) pieces[i].feed = int(i);
  }
  std::vector<const Piece<double>*> list() const {
    std::vector<const Piece<double>*> l;
    for (const Piece<double>& p : pieces) l.push_back(&p);
    return l;
  }
};

struct Slots {
  static constexpr std::size_t kBytes = sizeof(double) * 3 * 40;  // the largest piece
  std::vector<std::vector<double>> memory;
  std::vector<void*> slots;
  explicit Slots(int count) : memory(std::size_t(count), std::vector<double>(3 * 40)) {
    for (std::vector<double>& m : memory) slots.push_back(m.data());
  }
};

// Takes and sends every piece (the first `stop_after` of them when not negative, then leaves),
// pausing `pause` between pieces; counts the pieces whose slot did not hold the piece.
void device(Feed<double>& feed, const HostOperand& op, int d, std::chrono::microseconds pause,
            int stop_after, int& wrong) {
  ASSERT_TRUE(feed.offer(d, op.list()));
  for (const Piece<double>& p : op.pieces) {
    if (p.feed == stop_after) {
      feed.leave(d);
      return;
    }
    const double* slot = static_cast<const double*>(feed.take(p.feed));
    std::vector<double> expected(std::size_t(p.rows * p.cols));
    pack_part(p, expected.data(), 0, elements(p));
    if (std::memcmp(slot, expected.data(), expected.size() * sizeof(double)) != 0) ++wrong;
    std::this_thread::sleep_for(pause);
    feed.sent(d, p.feed, nullptr);
  }
  feed.leave(d);
}

TEST(SharedFeed, EveryDeviceGetsEveryPieceThroughFewSlots) {
  const HostOperand op;
  ASSERT_GT(op.pieces.size(), 15u);
  for (const int slots : {1, 2, 4}) {
    Slots s(slots);
    Feed<double> feed(nullptr, s.slots, Slots::kBytes, 3);
    int wrong[3] = {0, 0, 0};
    std::vector<std::thread> devices;
    for (int d = 0; d < 3; ++d) {
      devices.emplace_back(device, std::ref(feed), std::cref(op), d,
                           std::chrono::microseconds(50 * d), -1, std::ref(wrong[d]));
    }
    for (std::thread& t : devices) t.join();
    for (int d = 0; d < 3; ++d) EXPECT_EQ(wrong[d], 0) << "device " << d << ", slots " << slots;
  }
}

TEST(SharedFeed, ADeviceThatStopsHoldsNoOtherBack) {
  const HostOperand op;
  Slots s(2);
  Feed<double> feed(nullptr, s.slots, Slots::kBytes, 3);
  int wrong[3] = {0, 0, 0};
  std::thread stops(device, std::ref(feed), std::cref(op), 0, std::chrono::microseconds(0), 3,
                    std::ref(wrong[0]));
  std::thread slow(device, std::ref(feed), std::cref(op), 1, std::chrono::microseconds(100), -1,
                   std::ref(wrong[1]));
  device(feed, op, 2, std::chrono::microseconds(0), -1, wrong[2]);
  stops.join();
  slow.join();
  EXPECT_EQ(wrong[1] + wrong[2], 0);
}

TEST(SharedFeed, PiecesUnlikeTheFeedsAreRefusedAndTheDeviceLeaves) {
  const HostOperand op, other;
  Slots s(2);
  Feed<double> feed(nullptr, s.slots, Slots::kBytes, 2);
  ASSERT_TRUE(feed.offer(0, op.list()));
  EXPECT_FALSE(feed.offer(1, other.list()));  // another host matrix
  // Device 0 runs alone: device 1 left when refused.
  for (const Piece<double>& p : op.pieces) {
    feed.take(p.feed);
    feed.sent(0, p.feed, nullptr);
  }
  feed.leave(0);
}

// Every device leaves before taking a piece: the feed copies no piece past the first R it
// started with the first offer, so each slot ends holding its first piece (two pieces written
// into one slot at once would be a race, and a later piece would be left in it).
TEST(SharedFeed, EveryDeviceLeavingStopsTheCopies) {
  const HostOperand op;
  Slots s(2);
  {
    Feed<double> feed(nullptr, s.slots, Slots::kBytes, 2);
    ASSERT_TRUE(feed.offer(0, op.list()));
    feed.leave(0);
    feed.leave(1);
  }
  for (int i = 0; i < 2; ++i) {
    const Piece<double>& p = op.pieces[std::size_t(i)];
    std::vector<double> expected(std::size_t(p.rows * p.cols));
    pack_part(p, expected.data(), 0, elements(p));
    EXPECT_EQ(std::memcmp(s.slots[std::size_t(i)], expected.data(),
                          expected.size() * sizeof(double)),
              0)
        << "slot " << i;
  }
}

// Slots one element too small for the largest piece: every device is refused, the first too, and
// the feed copies nothing.
TEST(SharedFeed, PiecesLargerThanASlotAreRefused) {
  const HostOperand op;
  Slots s(2);
  for (std::vector<double>& m : s.memory) std::fill(m.begin(), m.end(), -1.0);
  {
    Feed<double> feed(nullptr, s.slots, Slots::kBytes - sizeof(double), 2);
    EXPECT_FALSE(feed.offer(0, op.list()));
    EXPECT_FALSE(feed.offer(1, op.list()));
  }
  for (const std::vector<double>& m : s.memory) {
    EXPECT_TRUE(std::all_of(m.begin(), m.end(), [](double x) { return x == -1.0; }));
  }
}

}  // namespace
}  // namespace switchyard::gemm
