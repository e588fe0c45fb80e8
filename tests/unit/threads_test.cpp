// Eight threads calling dgemm_ and dgeqrf_ at once get exactly the results
// of the same calls made one after another.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "abi.hpp"
#include "reference_blas.hpp"

namespace switchyard::test {
namespace {

struct Work {
  std::vector<double> a, b, c, qr, tau;
};

constexpr int n = 48;

Work make_work(unsigned seed) {
  Work w;
  w.a = random_matrix<double>(n * n, seed);
  w.b = random_matrix<double>(n * n, seed + 100);
  w.c.assign(n * n, 0.0);
  w.qr = w.a;
  w.tau.assign(n, 0.0);
  return w;
}

void compute(Work& w) {
  const double one = 1, zero = 0;
  const int lwork = 64 * n;
  std::vector<double> work(lwork);
  int info = 0;
  for (int repeat = 0; repeat < 20; ++repeat) {
    dgemm_("N", "T", &n, &n, &n, &one, w.a.data(), &n, w.b.data(), &n, &zero, w.c.data(), &n, 1,
           1);
    w.qr = w.a;
    dgeqrf_(&n, &n, w.qr.data(), &n, w.tau.data(), work.data(), &lwork, &info);
  }
}

TEST(Threads, EightConcurrentCallersMatchSequentialResults) {
  constexpr int threads = 8;
  std::vector<Work> sequential, concurrent;
  for (int t = 0; t < threads; ++t) {
    sequential.push_back(make_work(t));
    concurrent.push_back(make_work(t));
  }
  for (Work& w : sequential) compute(w);
  std::vector<std::thread> pool;
  for (Work& w : concurrent) pool.emplace_back([&w] { compute(w); });
  for (std::thread& t : pool) t.join();
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(concurrent[t].c, sequential[t].c) << t;
    EXPECT_EQ(concurrent[t].qr, sequential[t].qr) << t;
    EXPECT_EQ(concurrent[t].tau, sequential[t].tau) << t;
  }
}

}  // namespace
}  // namespace switchyard::test
