#include "scheduling/informers/publish_throttle.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

namespace publish_throttle_test {

scheduling::api::Node node(const std::string& name) {
  scheduling::api::Node object;
  object.name = name;
  return object;
}

struct ThrottleFixture {
  boost::asio::io_context io;
  scheduling::cache::Cache cache;
  scheduling::informers::PublishThrottle throttle{io.get_executor(), cache,
                                                  std::chrono::milliseconds(10)};
};

}  // namespace publish_throttle_test

using namespace publish_throttle_test;

BOOST_FIXTURE_TEST_SUITE(publish_throttle, ThrottleFixture)

// Changes are published from the executor, never within the call that reports them, and a
// burst of them costs one snapshot.
BOOST_AUTO_TEST_CASE(a_burst_of_changes_is_published_once) {
  const auto before = cache.snapshot();
  cache.upsertNode(node("n1"));
  throttle.changed();
  cache.upsertNode(node("n2"));
  throttle.changed();
  BOOST_TEST(cache.snapshot() == before);
  BOOST_TEST(io.run() == 1u);  // one timer handler: one publish
  BOOST_TEST(cache.snapshot() != before);
  BOOST_TEST(cache.snapshot()->nodeInfoList().size() == 2u);
}

BOOST_AUTO_TEST_CASE(publish_now_publishes_at_once_and_drops_the_pending_publish) {
  cache.upsertNode(node("n1"));
  throttle.changed();
  throttle.publishNow();
  const auto published = cache.snapshot();
  BOOST_TEST(published->nodeInfoList().size() == 1u);
  io.run();  // the cancelled wait completes without publishing again
  BOOST_TEST(cache.snapshot() == published);
}

BOOST_AUTO_TEST_CASE(a_change_after_a_publish_is_published_too) {
  cache.upsertNode(node("n1"));
  throttle.changed();
  io.run();
  cache.upsertNode(node("n2"));
  throttle.changed();
  io.restart();
  BOOST_TEST(io.run() == 1u);
  BOOST_TEST(cache.snapshot()->nodeInfoList().size() == 2u);
}

// The throttling itself: a change soon after a publish is not published before the interval
// has passed (here far longer than the test).
BOOST_AUTO_TEST_CASE(a_change_soon_after_a_publish_waits_for_the_interval) {
  scheduling::informers::PublishThrottle slow{io.get_executor(), cache, std::chrono::hours(1)};
  cache.upsertNode(node("n1"));
  slow.publishNow();
  const auto published = cache.snapshot();
  cache.upsertNode(node("n2"));
  slow.changed();
  BOOST_TEST(io.poll() == 0u);  // the publish waits
  BOOST_TEST(cache.snapshot() == published);
  slow.publishNow();
  BOOST_TEST(cache.snapshot()->nodeInfoList().size() == 2u);
  io.run();  // the cancelled wait
}

BOOST_AUTO_TEST_SUITE_END()
