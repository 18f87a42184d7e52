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

// Nodes per request: counted in node buckets, summed as whole nodes, and durations still in
// seconds beside them.
BOOST_AUTO_TEST_CASE(request_nodes_counts_candidates_per_endpoint) {
  server::Metrics metrics;
  metrics.observeRequestNodes("filter", 2500);
  metrics.observeRequestNodes("filter", 3);
  metrics.observeRequestNodes("prioritize", 50000);
  metrics.observeRequest("filter", 200, 0.5);
  const std::string text = metrics.render({});
  for (const char* line : {
           "# TYPE scheduler_extender_request_nodes histogram\n",
           "scheduler_extender_request_nodes_bucket{endpoint=\"filter\",le=\"1\"} 0\n",
           "scheduler_extender_request_nodes_bucket{endpoint=\"filter\",le=\"10\"} 1\n",
           "scheduler_extender_request_nodes_bucket{endpoint=\"filter\",le=\"1000\"} 1\n",
           "scheduler_extender_request_nodes_bucket{endpoint=\"filter\",le=\"2500\"} 2\n",
           "scheduler_extender_request_nodes_bucket{endpoint=\"filter\",le=\"+Inf\"} 2\n",
           "scheduler_extender_request_nodes_sum{endpoint=\"filter\"} 2503\n",
           "scheduler_extender_request_nodes_count{endpoint=\"filter\"} 2\n",
           "scheduler_extender_request_nodes_bucket{endpoint=\"prioritize\",le=\"25000\"} 0\n",
           "scheduler_extender_request_nodes_bucket{endpoint=\"prioritize\",le=\"50000\"} 1\n",
           "scheduler_extender_request_duration_seconds_sum{endpoint=\"filter\"} 0.5\n",
       }) {
    BOOST_TEST(text.find(line) != std::string::npos, line << " missing from\n" << text);
  }
}

BOOST_AUTO_TEST_SUITE_END()
