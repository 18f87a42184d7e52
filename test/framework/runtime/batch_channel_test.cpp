#include "scheduling/framework/runtime/batch_channel.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace scheduling::framework::runtime {
namespace {

using Channel = BatchChannel<int>;

BOOST_AUTO_TEST_SUITE(batch_channel)

BOOST_AUTO_TEST_CASE(batches_arrive_in_order_through_a_full_channel) {
  Channel channel(2);
  std::jthread producer([&] {
    for (int i = 0; i < 100; ++i) BOOST_TEST(channel.push({i, i + 1}));
    channel.close();
  });
  std::vector<int> seen;
  while (auto batch = channel.pop()) seen.insert(seen.end(), batch->begin(), batch->end());
  BOOST_REQUIRE(seen.size() == 200u);
  for (int i = 0; i < 100; ++i) {
    BOOST_TEST(seen[2 * i] == i);
    BOOST_TEST(seen[2 * i + 1] == i + 1);
  }
}

BOOST_AUTO_TEST_CASE(an_error_comes_after_the_batches_before_it) {
  Channel channel(4);
  BOOST_TEST(channel.push({1}));
  channel.close(std::make_exception_ptr(std::runtime_error("items[3]: bad")));
  BOOST_TEST((channel.pop() == std::vector<int>{1}));
  BOOST_CHECK_THROW(channel.pop(), std::runtime_error);
}

// A consumer that fails must not leave the producer blocked on a full channel.
BOOST_AUTO_TEST_CASE(abandoning_releases_a_waiting_producer) {
  Channel channel(1);
  BOOST_TEST(channel.push({1}));
  bool secondPush = true;
  std::jthread producer([&] { secondPush = channel.push({2}); });
  // Give the producer time to block on the full channel, so that abandon() has to wake it
  // (were it not woken, join() would never return).
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  channel.abandon();
  producer.join();
  BOOST_TEST(!secondPush);
  BOOST_TEST(!channel.push({3}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::framework::runtime
