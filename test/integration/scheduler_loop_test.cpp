// The tests' stand-in for kube-scheduler (testing::SchedulerLoop): its choice of host, its
// outcome counts, and one run against the built binary following the API-server double.
#include "test/testing/scheduler_loop.hpp"

#include <rapidjson/document.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "test/testing/api_server_double.hpp"
#include "test/testing/http_client.hpp"
#include "test/testing/server_process.hpp"

namespace scheduler_loop_test {

using namespace std::chrono_literals;
using testing::ApiObject;

ApiObject pod(const std::string& name, const std::string& app, const std::string& nodeName) {
  ApiObject object;
  object.name = name;
  object.ns = "default";
  object.labels = {{"app", app}};
  object.nodeName = nodeName;
  return object;
}

ApiObject node(const std::string& name, const std::string& zone) {
  ApiObject object;
  object.name = name;
  object.labels = {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}};
  return object;
}

const std::string kAvoidDb =
    R"({"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{)"
    R"("labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"kubernetes.io/hostname"}]}})";

}  // namespace scheduler_loop_test

using namespace scheduler_loop_test;

BOOST_AUTO_TEST_SUITE(scheduler_loop)

BOOST_AUTO_TEST_CASE(select_host_takes_the_highest_score_and_the_first_of_ties) {
  const std::vector<std::string> feasible = {"n1", "n2", "n3"};
  BOOST_TEST(testing::selectHost(feasible, {{"n2", 5}, {"n3", 5}}) == "n2");
  BOOST_TEST(testing::selectHost(feasible, {{"n3", 1}}) == "n3");
  BOOST_TEST(testing::selectHost(feasible, {}) == "n1");  // none scored: all 0
  BOOST_TEST(testing::selectHost(feasible, {{"n1", 0}, {"elsewhere", 10}}) == "n1");
  BOOST_CHECK_THROW(testing::selectHost({}, {}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(outcomes_count_pairs_per_topology_value_and_zone_skew) {
  const testing::NodeLabels nodes = {
      {"n1", node("n1", "z1").labels},
      {"n2", node("n2", "z1").labels},
      {"n3", node("n3", "z2").labels},
      {"n4", node("n4", "z3").labels},
      {"bare", {}},  // no topology labels: left out
  };
  ApiObject done = pod("a5", "db", "n3");
  done.phase = "Succeeded";
  const std::map<std::string, ApiObject> pods = {
      {"default/a1", pod("a1", "db", "n1")},
      {"default/a2", pod("a2", "db", "n2")},
      {"default/a3", pod("a3", "db", "n3")},
      {"default/a4", pod("a4", "db", "")},
      {"default/a5", done},
      {"default/b1", pod("b1", "web", "n1")},
      {"default/a6", pod("a6", "db", "bare")},
  };
  const std::map<std::string, std::string> db = {{"app", "db"}};
  const std::string zone = "topology.kubernetes.io/zone";
  const std::string host = "kubernetes.io/hostname";
  BOOST_TEST((testing::podsPerTopologyValue(pods, nodes, db, zone) ==
              std::map<std::string, std::size_t>{{"z1", 2}, {"z2", 1}, {"z3", 0}}));
  BOOST_TEST(testing::antiAffinityViolations(pods, nodes, db, host) == 0u);
  BOOST_TEST(testing::antiAffinityViolations(pods, nodes, db, zone) == 1u);
  BOOST_TEST(testing::topologySkew(pods, nodes, db, zone) == 2u);
  const std::map<std::string, ApiObject> crowded = {{"default/a1", pod("a1", "db", "n1")},
                                                    {"default/a2", pod("a2", "db", "n1")},
                                                    {"default/a3", pod("a3", "db", "n1")}};
  BOOST_TEST(testing::antiAffinityViolations(crowded, nodes, db, host) == 3u);
  BOOST_TEST(testing::topologySkew({}, {}, db, zone) == 0u);
}

BOOST_AUTO_TEST_CASE(a_pending_pod_renders_as_kube_scheduler_sends_it) {
  testing::LoopPod loopPod{pod("p", "web", ""), "uid-1"};
  loopPod.object.affinityJson = kAvoidDb;
  rapidjson::Document document;
  document.Parse(testing::renderPendingPod(loopPod, "my-scheduler").c_str());
  BOOST_REQUIRE(document.IsObject());
  BOOST_TEST(document["metadata"]["name"].GetString() == std::string("p"));
  BOOST_TEST(document["metadata"]["namespace"].GetString() == std::string("default"));
  BOOST_TEST(document["metadata"]["uid"].GetString() == std::string("uid-1"));
  BOOST_TEST(document["metadata"]["labels"]["app"].GetString() == std::string("web"));
  BOOST_TEST(document["spec"]["schedulerName"].GetString() == std::string("my-scheduler"));
  BOOST_TEST(document["spec"]["affinity"].HasMember("podAntiAffinity"));
  BOOST_TEST(!document["spec"].HasMember("nodeName"));
  BOOST_TEST(document["status"]["phase"].GetString() == std::string("Pending"));
}

// Scheduling against the binary: pods avoiding db-0's node get the other two, both bind
// orders end with every /bind answered.
BOOST_AUTO_TEST_CASE(runs_against_the_binary_in_both_bind_orders) {
  testing::ApiServerDouble server({});
  server.put("namespaces", [] {
    ApiObject ns;
    ns.name = "default";
    return ns;
  }());
  for (const auto& name : {"n1", "n2", "n3"}) server.put("nodes", node(name, "z1"));
  server.put("pods", pod("db-0", "db", "n1"));
  std::vector<testing::LoopPod> pods;
  for (const auto& name : {"web-0", "web-1", "web-2"}) {
    ApiObject web = pod(name, "web", "");
    web.affinityJson = kAvoidDb;
    web.phase = "Pending";
    server.put("pods", web);
    pods.push_back({web, server.uid("pods", "default/" + std::string(name))});
  }

  const auto kubeconfig =
      std::filesystem::temp_directory_path() / ("sx-loop-kubeconfig-" + std::to_string(::getpid()));
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                               "contexts: [{name: test, context: {cluster: double, user: me}}]\n"
                               "clusters: [{name: double, cluster: {server: \""
                            << server.url() << "\"}}]\nusers: [{name: me, user: {token: t}}]\n";
  testing::ServerProcess process({"--kubeconfig", kubeconfig.string()});

  for (const auto order : {testing::BindOrder::BeforeNextFilter,
                           testing::BindOrder::AfterNextFilter, testing::BindOrder::Alternate}) {
    BOOST_TEST_CONTEXT("order " << static_cast<int>(order)) {
      testing::SchedulerLoop loop({process.port(), {"n1", "n2", "n3"}, order});
      const auto outcomes = loop.run(pods);
      BOOST_REQUIRE(outcomes.size() == pods.size());
      for (std::size_t i = 0; i < outcomes.size(); ++i) {
        BOOST_TEST(outcomes[i].name == "default/" + pods[i].object.name);
        BOOST_TEST(outcomes[i].scheduleError == "");
        BOOST_TEST(outcomes[i].feasible == 2u);
        BOOST_TEST((outcomes[i].node == "n2" || outcomes[i].node == "n3"), outcomes[i].node);
        BOOST_TEST(outcomes[i].bindStatus != 0u);  // every /bind was sent and answered
      }
    }
  }
  std::filesystem::remove(kubeconfig);
}

BOOST_AUTO_TEST_SUITE_END()
