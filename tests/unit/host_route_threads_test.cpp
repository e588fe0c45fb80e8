// The calls on the host's cores that run at once share the fallback's threads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "host_route_threads.hpp"

namespace switchyard {
namespace {

TEST(HostRouteThreads, CallsRunningAtOnceShareTheFallbacksThreads) {
  ASSERT_EQ(setenv("OPENBLAS_NUM_THREADS", "8", 1), 0);
  {
    const HostRouteThreads first;
    EXPECT_EQ(first.count(), 8);
    {
      const HostRouteThreads second;
      EXPECT_EQ(second.count(), 4);
      const HostRouteThreads third;
      EXPECT_EQ(third.count(), 2);
      std::optional<HostRouteThreads> more[6];
      for (auto& call : more) call.emplace();
      EXPECT_EQ(more[5]->count(), 2) << "never fewer than two";
    }
    EXPECT_EQ(first.count(), 8) << "a call keeps the share it began with";
    const HostRouteThreads after;
    EXPECT_EQ(after.count(), 4) << "the calls that ended no longer count";
  }
  EXPECT_EQ(HostRouteThreads().count(), 8);
  // A fallback limited to one thread keeps the calls on the host's cores to one.
  ASSERT_EQ(setenv("OPENBLAS_NUM_THREADS", "1", 1), 0);
  EXPECT_EQ(HostRouteThreads().count(), 1);
  ASSERT_EQ(unsetenv("OPENBLAS_NUM_THREADS"), 0);
}

}  // namespace
}  // namespace switchyard
