#include "scheduling/framework/runtime/parallelizer.hpp"

#include <boost/test/unit_test.hpp>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace scheduling::framework::runtime {
namespace {

BOOST_AUTO_TEST_SUITE(parallelizer)

BOOST_AUTO_TEST_CASE(ChunkSizeFollowsUpstream) {
  // max(1, min(floor(sqrt(n)), n/parallelism + 1))
  BOOST_TEST(Parallelizer::chunkSizeFor(0, 16) == 1);
  BOOST_TEST(Parallelizer::chunkSizeFor(1, 16) == 1);
  BOOST_TEST(Parallelizer::chunkSizeFor(100, 16) == 7);
  BOOST_TEST(Parallelizer::chunkSizeFor(5000, 16) == 70);
  BOOST_TEST(Parallelizer::chunkSizeFor(5000, 1) == 70);
  BOOST_TEST(Parallelizer::chunkSizeFor(20, 16) == 2);
}

BOOST_AUTO_TEST_CASE(RunsEveryPieceExactlyOnce) {
  for (int parallelism : {1, 2, 4, 16}) {
    Parallelizer p(parallelism);
    for (int pieces : {0, 1, 7, 100, 5000}) {
      std::vector<std::atomic<int>> seen(static_cast<std::size_t>(pieces));
      p.until(pieces, [&](int i) { seen[static_cast<std::size_t>(i)].fetch_add(1); });
      for (const auto& s : seen) BOOST_TEST(s.load() == 1);
    }
  }
}

// Threads are capped at the CPUs; the configured parallelism still shapes the chunks.
BOOST_AUTO_TEST_CASE(WorkersAreCappedAtTheCpus) {
  Parallelizer capped(16, 2);
  BOOST_TEST(capped.parallelism() == 16);
  BOOST_TEST(capped.workers() == 2);
  BOOST_TEST(Parallelizer(3, 8).workers() == 3);
  std::vector<std::atomic<int>> seen(5000);
  capped.until(5000, [&](int i) { seen[static_cast<std::size_t>(i)].fetch_add(1); });
  for (const auto& s : seen) BOOST_TEST(s.load() == 1);
}

// Long work is shared: the first chunk alone shows the rest to be far past kWorthWaking, so
// the helper is woken and runs some of it. (Short work may or may not wake it, depending on
// how the first chunk's timing goes on a busy machine; every piece runs once either way.)
BOOST_AUTO_TEST_CASE(LongWorkWakesTheHelpers) {
  Parallelizer parallelizer(16, 2);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::vector<std::atomic<int>> seen(200);
  parallelizer.until(200, [&](int i) {
    std::this_thread::sleep_for(Parallelizer::kWorthWaking / 4);
    seen[static_cast<std::size_t>(i)].fetch_add(1);
    std::lock_guard lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  BOOST_TEST(threads.size() == 2u);
  for (const auto& s : seen) BOOST_TEST(s.load() == 1);
}

BOOST_AUTO_TEST_CASE(OneWorkerRunsInIndexOrder) {
  Parallelizer p(1);
  std::vector<int> order;
  p.until(50, [&](int i) { order.push_back(i); });
  BOOST_TEST_REQUIRE(order.size() == 50u);
  for (int i = 0; i < 50; ++i) BOOST_TEST(order[static_cast<std::size_t>(i)] == i);
}

BOOST_AUTO_TEST_CASE(StopSkipsPiecesNotYetStarted) {
  Parallelizer p(1);
  std::atomic<bool> stop{false};
  int ran = 0;
  p.until(
      100,
      [&](int i) {
        ++ran;
        if (i == 9) stop.store(true);
      },
      &stop);
  BOOST_TEST(ran == 10);
}

BOOST_AUTO_TEST_CASE(NestedCallsFromConcurrentCallersComplete) {
  // Several callers share one pool, as concurrent requests do; each caller works on its own
  // job, so none can wait forever on the others.
  Parallelizer p(4);
  std::vector<std::thread> callers;
  std::atomic<int> total{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 20; ++round) p.until(200, [&](int) { total.fetch_add(1); });
    });
  }
  for (auto& t : callers) t.join();
  BOOST_TEST(total.load() == 4 * 20 * 200);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::framework::runtime
