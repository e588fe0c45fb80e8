#include "tick_clock.hpp"

namespace switchyard::tick_clock {
namespace {

#if defined(__x86_64__)
struct Origin {
  std::chrono::steady_clock::time_point time = std::chrono::steady_clock::now();
  std::uint64_t count = ticks();
};
const Origin origin;  // taken as the library loads: two readings, nothing started
#endif

}  // namespace

double seconds(std::uint64_t count) {
#if defined(__x86_64__)
  const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
  const std::uint64_t elapsed_ticks = ticks() - origin.count;
  const double elapsed_s = std::chrono::duration<double>(now - origin.time).count();
  // Right after the load too few ticks have passed to give a rate; so few seconds either.
  if (elapsed_ticks < 1000 || elapsed_s <= 0.0) return 0.0;
  return double(count) * (elapsed_s / double(elapsed_ticks));
#else
  return double(count) * 1e-9;
#endif
}

}  // namespace switchyard::tick_clock
