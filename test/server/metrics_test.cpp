#include "server/metrics.hpp"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(metrics)

// The informers' idle ages are rendered as they were measured at the scrape, one series per
// resource, in the order given.
BOOST_AUTO_TEST_CASE(watch_idle_seconds_has_a_series_per_resource) {
  server::Metrics metrics;
  server::CacheSizes sizes;
  sizes.watchIdleSeconds = {{"namespaces", 0.25}, {"nodes", 12}, {"pods", 0}};
  const std::string text = metrics.render(sizes);
  const std::string want =
      "# TYPE scheduler_extender_watch_idle_seconds gauge\n"
      "scheduler_extender_watch_idle_seconds{resource=\"namespaces\"} 0.25\n"
      "scheduler_extender_watch_idle_seconds{resource=\"nodes\"} 12\n"
      "scheduler_extender_watch_idle_seconds{resource=\"pods\"} 0\n";
  BOOST_TEST(text.find(want) != std::string::npos, text);
}

BOOST_AUTO_TEST_SUITE_END()
