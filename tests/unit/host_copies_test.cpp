// The helper threads that copy for streamed calls (device/host_copies.hpp): every copy of a
// group has run when its wait returns, groups of several callers at once, copies off the
// caller's thread, a group's end waited for when it goes out of scope, copies into staging
// running while every thread of the other way waits, and a fork() child that copies after its
// parent did.
#include "device/host_copies.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

namespace switchyard::device {
namespace {

// Fills `out` by one copy per element through the team, and waits for them.
bool filled_by_copies(std::vector<int>& out, int salt, CopyWay way = CopyWay::into_staging) {
  CopyGroup group;
  for (std::size_t i = 0; i < out.size(); ++i) {
    run_copy(group, way, [&out, i, salt] { out[i] = int(i) * 7 + salt; });
  }
  group.wait();
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] != int(i) * 7 + salt) return false;
  }
  return true;
}

TEST(HostCopies, EveryCopyHasRunWhenTheGroupsWaitReturns) {
  std::vector<int> out(5000, -1);
  EXPECT_TRUE(filled_by_copies(out, 3));
  EXPECT_TRUE(filled_by_copies(out, 11));  // the same threads serve a second group
  EXPECT_TRUE(filled_by_copies(out, 5, CopyWay::out_of_staging));
}

TEST(HostCopies, GroupsOfSeveralCallersAtOnce) {
  constexpr int kCallers = 8;
  std::atomic<int> right{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&right, t] {
      std::vector<int> out(2000, -1);
      const CopyWay way = t % 2 ? CopyWay::out_of_staging : CopyWay::into_staging;
      for (int round = 0; round < 5; ++round) right += filled_by_copies(out, t * 100 + round, way);
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(right.load(), kCallers * 5);
}

TEST(HostCopies, CopiesRunOffTheCallersThread) {
  ASSERT_GE(copy_threads(), 2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  {
    CopyGroup group;
    for (int i = 0; i < 64; ++i) {
      run_copy(group, CopyWay::into_staging,
               [&] { elsewhere += std::this_thread::get_id() != caller; });
    }
  }
  EXPECT_EQ(elsewhere.load(), 64);
}

TEST(HostCopies, AGroupWaitsForItsCopiesWhenItEnds) {
  std::atomic<int> ran{0};
  {
    CopyGroup group;
    for (int i = 0; i < 32; ++i) {
      run_copy(group, CopyWay::out_of_staging, [&ran] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ++ran;
      });
    }
  }
  EXPECT_EQ(ran.load(), 32);
}

// A download's copies may wait long for the device; an upload's must not queue behind them.
TEST(HostCopies, CopiesIntoStagingRunWhileEveryCopyOutOfItWaits) {
  std::promise<void> release;
  const std::shared_future<void> released = release.get_future().share();
  CopyGroup waiting;
  for (int t = 0; t < copy_threads() + 4; ++t) {
    run_copy(waiting, CopyWay::out_of_staging, [released] { released.wait(); });
  }
  std::vector<int> out(100, -1);
  std::future<bool> filled = std::async(
      std::launch::async, [&out] { return filled_by_copies(out, 9, CopyWay::into_staging); });
  const bool in_time = filled.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  release.set_value();
  waiting.wait();
  EXPECT_TRUE(in_time);
  EXPECT_TRUE(filled.get());
}

TEST(HostCopies, ForkChildCopiesWithThreadsOfItsOwn) {
  std::vector<int> out(1000, -1);
  ASSERT_TRUE(filled_by_copies(out, 1));  // the parent's team exists before the fork
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(filled_by_copies(out, 2) ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(filled_by_copies(out, 3));
}

}  // namespace
}  // namespace switchyard::device
