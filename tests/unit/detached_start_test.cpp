// Starts on helper threads and the process's exit: an exit waits for a start under way, which
// stops between its phases; a thread that ends and a fork() child do not wait.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "device/startup.hpp"

// LeakSanitizer's check at exit stops every thread it finds, and in the fork() child of a
// process with threads it hangs now and then (1 run in 6 under tools/sanitize.sh); the child
// below turns it off through LeakSanitizer's own hook, as it leaks nothing of its own.
namespace {
std::atomic<bool> in_forked_child{false};
}  // namespace
#if defined(__SANITIZE_ADDRESS__)
extern "C" int __lsan_is_turned_off() { return in_forked_child.load() ? 1 : 0; }
#endif

namespace {

namespace device = switchyard::device;
using std::chrono::milliseconds;

// The drivers fault when they are torn down under a thread inside them: the exit must wait.
TEST(DetachedStart, ExitWaitsForAStartUnderWay) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        device::start_detached([] {
          std::this_thread::sleep_for(milliseconds(300));
          std::fputs("the start returned\n", stderr);
        });
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "the start returned");
}

TEST(DetachedStart, AStartStopsBetweenItsPhasesOnceTheProcessExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        device::start_detached([] {
          std::this_thread::sleep_for(milliseconds(300));
          if (device::exiting()) {
            std::fputs("stopped after the first phase\n", stderr);
            return;
          }
          std::this_thread::sleep_for(std::chrono::seconds(20));
        });
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "stopped after the first phase");
}

// A thread that asked for a start and then ends is not the process exiting: it neither waits for
// the start nor stops it between its phases.
std::atomic<bool> second_phase_ran{false};

TEST(DetachedStart, AThreadThatEndsNeitherWaitsNorStopsItsStart) {
  const auto began = std::chrono::steady_clock::now();
  std::thread([] {
    device::start_detached([] {
      std::this_thread::sleep_for(milliseconds(300));
      if (!device::exiting()) second_phase_ran = true;
    });
  }).join();
  EXPECT_LT(std::chrono::steady_clock::now() - began, milliseconds(200));
  std::this_thread::sleep_for(milliseconds(600));
  EXPECT_TRUE(second_phase_ran);
  EXPECT_FALSE(device::exiting());
}

// A fork() child has no helper threads of its parent's to wait for.
TEST(DetachedStart, AForkChildExitsWithoutWaitingForItsParentsStart) {
  ASSERT_TRUE(device::start_detached([] { std::this_thread::sleep_for(std::chrono::seconds(3)); }));
  const auto forked = std::chrono::steady_clock::now();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    in_forked_child = true;
    std::exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_LT(std::chrono::steady_clock::now() - forked, milliseconds(1500));
}

}  // namespace
