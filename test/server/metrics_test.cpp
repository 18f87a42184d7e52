#include "server/metrics.hpp"

#include <boost/test/unit_test.hpp>
#include <initializer_list>
#include <string>
#include <vector>

namespace {

// Every one of `lines` appears, whole, in the rendered text.
void expectLines(const std::string& text, std::initializer_list<const char*> lines) {
  for (const char* line : lines) {
    BOOST_TEST(text.find(line) != std::string::npos, line << " missing from\n" << text);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics)

// The informers' idle ages and backlogs are rendered as they were measured at the scrape, one
// series per resource, in the order given.
BOOST_AUTO_TEST_CASE(watch_gauges_have_a_series_per_resource) {
  server::Metrics metrics;
  server::CacheSizes sizes;
  sizes.watches = {{"namespaces", 0.25, 0}, {"nodes", 12, 17}, {"pods", 0, 4194304}};
  const std::string text = metrics.render(sizes);
  for (const char* want : {
           "# TYPE scheduler_extender_watch_idle_seconds gauge\n"
           "scheduler_extender_watch_idle_seconds{resource=\"namespaces\"} 0.25\n"
           "scheduler_extender_watch_idle_seconds{resource=\"nodes\"} 12\n"
           "scheduler_extender_watch_idle_seconds{resource=\"pods\"} 0\n",
           "# TYPE scheduler_extender_watch_backlog_bytes gauge\n"
           "scheduler_extender_watch_backlog_bytes{resource=\"namespaces\"} 0\n"
           "scheduler_extender_watch_backlog_bytes{resource=\"nodes\"} 17\n"
           "scheduler_extender_watch_backlog_bytes{resource=\"pods\"} 4194304\n",
       }) {
    BOOST_TEST(text.find(want) != std::string::npos, want);
  }
}

// /preempt's candidates add up by outcome across requests; an outcome never seen has no
// series, the family is declared all the same.
BOOST_AUTO_TEST_CASE(preemption_candidates_are_counted_by_outcome) {
  using scheduling::preemption::Outcome;
  server::Metrics metrics;
  BOOST_TEST(metrics.render({}).find("# TYPE scheduler_extender_preemption_candidates_total "
                                     "counter\n") != std::string::npos);
  metrics.countPreemptionCandidates(
      std::vector<Outcome>{Outcome::Kept, Outcome::Extended, Outcome::Extended, Outcome::Kept});
  metrics.countPreemptionCandidates(std::vector<Outcome>{Outcome::Extended});
  metrics.countPreemptionCandidates(std::vector<Outcome>{});
  const std::string text = metrics.render({});
  expectLines(text, {
                        "scheduler_extender_preemption_candidates_total{outcome=\"extended\"} 3\n",
                        "scheduler_extender_preemption_candidates_total{outcome=\"kept\"} 2\n",
                    });
  BOOST_TEST(text.find("outcome=\"rejected\"") == std::string::npos);
}

// A preemptor's /filter held for its victims counts among the in-flight waits and, by outcome,
// among the preemption waits; the preemptions remembered are a gauge.
BOOST_AUTO_TEST_CASE(preemption_waits_are_counted_beside_in_flight_waits) {
  server::Metrics metrics;
  const std::string empty = metrics.render({});
  BOOST_TEST(empty.find("# TYPE scheduler_extender_preemption_waits_total counter\n") !=
             std::string::npos);
  BOOST_TEST(empty.find("scheduler_extender_preemption_waits_total{") == std::string::npos);
  metrics.observeInFlightWait("filter", "settled", 0.004);
  metrics.countPreemptionWait("evicted");
  metrics.observeInFlightWait("filter", "timeout", 1);
  metrics.countPreemptionWait("timeout");
  metrics.countPreemptionWait("evicted");
  server::CacheSizes sizes;
  sizes.preemptionsInProgress = 3;
  expectLines(
      metrics.render(sizes),
      {
          "scheduler_extender_preemption_waits_total{outcome=\"evicted\"} 2\n",
          "scheduler_extender_preemption_waits_total{outcome=\"timeout\"} 1\n",
          "scheduler_extender_in_flight_waits_total{endpoint=\"filter\",outcome=\"settled\"} "
          "1\n",
          "# TYPE scheduler_extender_preemptions_in_progress gauge\n"
          "scheduler_extender_preemptions_in_progress 3\n",
      });
}

// A histogram without labels renders its series without braces' leading comma.
BOOST_AUTO_TEST_CASE(publish_duration_is_a_histogram_without_labels) {
  server::Metrics metrics;
  metrics.publishDuration().observe(0.0004);
  metrics.publishDuration().observe(0.003);
  const std::string text = metrics.render({});
  expectLines(text,
              {
                  "# TYPE scheduler_extender_cache_publish_duration_seconds histogram\n",
                  "scheduler_extender_cache_publish_duration_seconds_bucket{le=\"0.00025\"} 0\n",
                  "scheduler_extender_cache_publish_duration_seconds_bucket{le=\"0.0005\"} 1\n",
                  "scheduler_extender_cache_publish_duration_seconds_bucket{le=\"0.005\"} 2\n",
                  "scheduler_extender_cache_publish_duration_seconds_bucket{le=\"+Inf\"} 2\n",
                  "scheduler_extender_cache_publish_duration_seconds_sum 0.0034\n",
                  "scheduler_extender_cache_publish_duration_seconds_count 2\n",
              });
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
  expectLines(
      text, {
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
            });
}

BOOST_AUTO_TEST_SUITE_END()
