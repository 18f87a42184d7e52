// The built binary following the API-server double while kube-scheduler preempts: it answers
// /preempt, kube-scheduler deletes the victim, and the preemptor's /filter comes before the
// extender's watch has shown the deletion. The watch is stalled to make that order certain,
// not left to timing.
#include <boost/test/unit_test.hpp>
#include <string>

#include "test/testing/burst_cluster.hpp"
#include "test/testing/http_client.hpp"

namespace preemption_test {

using testing::eventually;
constexpr auto metric = &testing::metricValue;

std::string filterArgs(const testing::LoopPod& pod, const std::string& node) {
  return R"({"Pod":)" + testing::renderPendingPod(pod, "default-scheduler") + R"(,"NodeNames":[")" +
         node + R"("]})";
}

std::string preemptArgs(const testing::LoopPod& pod, const std::string& node,
                        const std::string& victimUid) {
  return R"({"Pod":)" + testing::renderPendingPod(pod, "default-scheduler") +
         R"(,"NodeNameToMetaVictims":{")" + node + R"(":{"Pods":[{"UID":")" + victimUid +
         R"("}],"NumPDBViolations":0}}})";
}

BOOST_AUTO_TEST_SUITE(preemption_binary)

BOOST_AUTO_TEST_CASE(a_preemptors_filter_waits_for_the_watch_to_show_its_victim_gone) {
  testing::BurstCluster cluster({}, {"--in-flight-wait=20s"});
  testing::ApiObject victim;
  victim.name = "victim";
  victim.ns = "shop";
  victim.labels = {{"app", "web"}};
  victim.nodeName = "node-a0";
  cluster.server.put("pods", victim);
  const std::string victimUid = cluster.server.uid("pods", "shop/victim");
  // One web pod per node: the victim keeps the preemptor off node-a0.
  const auto preemptor = cluster.pending("web-", 1, "web", testing::kWebAntiAffinity).front();
  const auto other = cluster.pending("db-", 1, "db", "").front();
  BOOST_TEST(
      eventually([&] { return metric(cluster.metrics(), "scheduler_extender_cache_pods") == 1; }));

  testing::HttpClient client(cluster.process->port());
  const auto preempted = client.post("/preempt", preemptArgs(preemptor, "node-a0", victimUid));
  BOOST_TEST(preempted.body.find(victimUid) != std::string::npos, preempted.body);
  BOOST_TEST(metric(cluster.metrics(), "scheduler_extender_preemptions_in_progress") == 1);

  // kube-scheduler deletes the victim and its own cache has the deletion; the extender's watch
  // does not deliver it yet.
  cluster.server.stallWatches(true);
  cluster.server.remove("pods", "shop/victim");
  testing::HttpClient preemptorClient(cluster.process->port());
  preemptorClient.writePost("/filter", filterArgs(preemptor, "node-a0"));
  BOOST_TEST(eventually([&] {
    return metric(cluster.metrics(), "scheduler_extender_in_flight_waiting_requests") == 1;
  }));

  // Another pod's /filter does not wait for the preemptor's victims.
  const auto unrelated = client.post("/filter", filterArgs(other, "node-a0"));
  BOOST_TEST(unrelated.body.find(R"("NodeNames":["node-a0"])") != std::string::npos,
             unrelated.body);
  BOOST_TEST(metric(cluster.metrics(), "scheduler_extender_in_flight_waiting_requests") == 1);

  cluster.server.stallWatches(false);
  const auto filtered = preemptorClient.readReply();
  BOOST_TEST(filtered.body.find(R"("NodeNames":["node-a0"])") != std::string::npos, filtered.body);
  const std::string text = cluster.metrics();
  BOOST_TEST(metric(text, R"(scheduler_extender_preemption_waits_total{outcome="evicted"})") == 1);
  BOOST_TEST(
      metric(text,
             R"(scheduler_extender_in_flight_waits_total{endpoint="filter",outcome="settled"})") ==
      1);
  BOOST_TEST(metric(text, "scheduler_extender_in_flight_waiting_requests") == 0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace preemption_test
