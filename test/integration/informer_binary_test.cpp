// The built binary following the API-server double through --kubeconfig: readiness waits
// for the first lists, answers follow the cluster as it changes, watch metrics count.
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "test/testing/api_server_double.hpp"
#include "test/testing/http_client.hpp"
#include "test/testing/server_process.hpp"

namespace informer_binary_test {

using namespace std::chrono_literals;

template <typename Predicate>
bool eventually(Predicate predicate) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

testing::ApiObject node(const std::string& name) {
  testing::ApiObject object;
  object.name = name;
  object.labels = {{"kubernetes.io/hostname", name}};
  return object;
}

testing::ApiObject pod(const std::string& name, const std::string& nodeName) {
  testing::ApiObject object;
  object.name = name;
  object.ns = "default";
  object.labels = {{"app", "db"}};
  object.nodeName = nodeName;
  return object;
}

BOOST_AUTO_TEST_SUITE(informer_binary)

BOOST_AUTO_TEST_CASE(follows_the_api_server_named_by_the_kubeconfig) {
  testing::ApiServerDouble::Options options;
  options.token = "t0ken";
  testing::ApiServerDouble server(options);
  server.put("namespaces", [] {
    testing::ApiObject ns;
    ns.name = "default";
    return ns;
  }());
  server.put("nodes", node("n1"));
  server.put("nodes", node("n2"));
  server.put("pods", pod("db-0", "n1"));
  // Nothing succeeds until the test lets it: readiness must wait for the lists.
  server.failNextRequests(1 << 20, 503);

  const auto kubeconfig = std::filesystem::temp_directory_path() /
                          ("sx-informer-kubeconfig-" + std::to_string(::getpid()));
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                               "contexts: [{name: test, context: {cluster: double, user: me}}]\n"
                               "clusters: [{name: double, cluster: {server: \""
                            << server.url()
                            << "\"}}]\n"
                               "users: [{name: me, user: {token: t0ken}}]\n";
  testing::ServerProcess process({"--kubeconfig", kubeconfig.string()}, "serving on");
  testing::HttpClient client(process.port());
  BOOST_TEST(client.get("/readyz").status == 503u);
  server.failNextRequests(0, 503);
  BOOST_TEST(eventually([&] { return client.get("/readyz").status == 200u; }));

  // A pod that refuses nodes running app=db: n1 fails while db-0 is there, not after.
  const std::string args =
      R"({"Pod":{"metadata":{"name":"p","namespace":"default"},"spec":{"affinity":{
          "podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{
          "labelSelector":{"matchLabels":{"app":"db"}},
          "topologyKey":"kubernetes.io/hostname"}]}}}},"NodeNames":["n1","n2"]})";
  const auto before = client.post("/filter", args);
  BOOST_TEST(before.status == 200u);
  BOOST_TEST(before.body.find(R"("NodeNames":["n2"])") != std::string::npos, before.body);

  server.put("pods", pod("db-0", "n2"));  // the pod moves
  BOOST_TEST(eventually([&] {
    return client.post("/filter", args).body.find(R"("NodeNames":["n1"])") != std::string::npos;
  }));
  server.dropWatches();
  server.remove("pods", "default/db-0");
  BOOST_TEST(eventually([&] {
    return client.post("/filter", args).body.find(R"("NodeNames":["n1","n2"])") !=
           std::string::npos;
  }));

  const auto metrics = client.get("/metrics").body;
  BOOST_TEST(
      metrics.find(R"(scheduler_extender_watch_events_total{resource="pods",type="MODIFIED"} 1)") !=
          std::string::npos,
      metrics);
  BOOST_TEST(
      metrics.find(
          R"(scheduler_extender_watch_restarts_total{resource="pods",reason="connection"})") !=
      std::string::npos);
  BOOST_TEST(metrics.find("scheduler_extender_cache_nodes 2") != std::string::npos);

  BOOST_TEST(process.stop(SIGTERM) == 0);
  BOOST_TEST(process.log().find("listed 2 nodes in 1 page") != std::string::npos);
  BOOST_TEST(
      process.log().find("] ready: namespaces, nodes, pods and PodDisruptionBudgets listed") !=
          std::string::npos,
      process.log());
  BOOST_TEST(process.log().find("pods watch reconnecting (reason connection)") !=
             std::string::npos);
  std::filesystem::remove(kubeconfig);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace informer_binary_test
