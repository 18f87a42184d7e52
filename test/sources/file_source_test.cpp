#include "scheduling/sources/file_source.hpp"

#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "scheduling/api/decode_error.hpp"

namespace scheduling::sources {
namespace {

// A file in the temp directory, named after the test process, removed when done.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& content)
      : path_(std::filesystem::temp_directory_path() /
              ("sx_" + std::to_string(::getpid()) + "_" + name)) {
    std::ofstream(path_) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// What `kubectl get nodes,pods,namespaces,poddisruptionbudgets -A -o json` prints, trimmed to
// the fields read.
constexpr const char* kClusterState = R"({
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "n1", "labels": {"topology.kubernetes.io/zone": "z1"}}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}},
    {"apiVersion": "v1", "kind": "Namespace",
     "metadata": {"name": "ns1", "labels": {"team": "a"}}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "p1", "namespace": "ns1", "uid": "u1", "labels": {"app": "web"}},
     "spec": {"nodeName": "n1"},
     "status": {"phase": "Running", "startTime": "2024-05-01T09:58:30Z"}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "p2", "namespace": "ns1", "uid": "u2",
                  "deletionTimestamp": "2024-05-01T08:00:00Z"},
     "spec": {"nodeName": "n2"}, "status": {"phase": "Running"}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "p3", "namespace": "ns1", "uid": "u3"},
     "spec": {}, "status": {"phase": "Pending", "nominatedNodeName": "n1"}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "p4", "namespace": "ns1", "uid": "u4"},
     "spec": {"nodeName": "n1"}, "status": {"phase": "Succeeded"}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "p5", "namespace": "ns1", "uid": "u5"},
     "spec": {}, "status": {"phase": "Pending"}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "p6", "namespace": "ns2"},
     "spec": {"nodeName": "n2"}, "status": {"phase": "Running"}},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
     "metadata": {"name": "web", "namespace": "ns1"},
     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
     "status": {"disruptionsAllowed": 0, "disruptedPods": {"p9": "2024-05-01T08:00:00Z"}}}
  ]
})";

std::vector<std::string> podNames(const framework::NodeInfo* node) {
  std::vector<std::string> names;
  for (const auto& pod : node->pods()) names.push_back(pod->pod().metadata.name);
  return names;
}

BOOST_AUTO_TEST_SUITE(file_source)

BOOST_AUTO_TEST_CASE(loads_and_publishes_cluster_state) {
  TempFile file("cluster.json", kClusterState);
  cache::Cache cache;
  const ClusterStateCounts counts = loadClusterState(file.path(), cache);

  BOOST_TEST(counts.nodes == 2u);
  BOOST_TEST(counts.pods == 6u);
  BOOST_TEST(counts.assigned == 3u);
  BOOST_TEST(counts.nominated == 1u);
  BOOST_TEST(counts.terminating == 1u);
  BOOST_TEST(counts.terminal == 1u);
  BOOST_TEST(counts.namespaces == 1u);
  BOOST_TEST(counts.podDisruptionBudgets == 1u);

  auto snapshot = cache.snapshot();
  BOOST_TEST(snapshot->nodeInfoList().size() == 2u);
  BOOST_TEST((podNames(snapshot->getNodeInfo("n1")) == std::vector<std::string>{"p1"}));
  BOOST_TEST(snapshot->getNodeInfo("n1")->pods()[0]->pod().status.startTime.unixSeconds() ==
             1714557510);
  const auto budgets = snapshot->podDisruptionBudgets("ns1");
  BOOST_TEST_REQUIRE(budgets.size() == 1u);
  BOOST_TEST(budgets[0].name == "web");
  BOOST_TEST(budgets[0].selects(api::Labels{{"app", "web"}}));
  BOOST_TEST(budgets[0].disrupted("p9"));
  // p6 has no uid: it is keyed by namespace/name.
  BOOST_TEST((podNames(snapshot->getNodeInfo("n2")) == std::vector<std::string>{"p2", "p6"}));
  BOOST_TEST(snapshot->nominatedPodsForNode("n1").size() == 1u);
  BOOST_TEST((snapshot->namespaceLabels("ns1") == api::Labels{{"team", "a"}}));
  BOOST_TEST(cache.numAssignedPods() == 3u);
}

// What `kubectl get nodes,pods,namespaces -A -o yaml` prints, for the same objects.
constexpr const char* kClusterStateYaml = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels:
      topology.kubernetes.io/zone: z1
- {apiVersion: v1, kind: Node, metadata: {name: n2}}
- apiVersion: v1
  kind: Namespace
  metadata: {name: ns1, labels: {team: a}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p1, namespace: ns1, uid: u1, labels: {app: web}}
  spec: {nodeName: n1, priority: 100}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: p2, namespace: ns1, uid: u2, deletionTimestamp: "2024-05-01T08:00:00Z"}
  spec: {nodeName: n2}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: p3, namespace: ns1, uid: u3}
  spec: {}
  status: {phase: Pending, nominatedNodeName: n1}
)";

BOOST_AUTO_TEST_CASE(loads_yaml_files_like_json_ones) {
  TempFile file("cluster.yaml", kClusterStateYaml);
  cache::Cache cache;
  const ClusterStateCounts counts = loadClusterState(file.path(), cache);
  BOOST_TEST(counts.nodes == 2u);
  BOOST_TEST(counts.pods == 3u);
  BOOST_TEST(counts.assigned == 2u);
  BOOST_TEST(counts.nominated == 1u);
  BOOST_TEST(counts.terminating == 1u);
  auto snapshot = cache.snapshot();
  BOOST_TEST((podNames(snapshot->getNodeInfo("n1")) == std::vector<std::string>{"p1"}));
  BOOST_TEST(snapshot->getNodeInfo("n1")->pods()[0]->pod().priority() == 100);
  BOOST_TEST((snapshot->namespaceLabels("ns1") == api::Labels{{"team", "a"}}));
}

BOOST_AUTO_TEST_CASE(yaml_syntax_errors_name_the_line) {
  TempFile file("broken.yaml", "items:\n  - kind: Node\n   bad: [\n");
  cache::Cache cache;
  try {
    loadClusterState(file.path(), cache);
    BOOST_FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(std::string(e.what()).find("not valid YAML") != std::string::npos, e.what());
    BOOST_TEST(std::string(e.what()).find("line ") != std::string::npos, e.what());
  }
}

// A List of `pods` pods named p0, p1, ... on node n1, each in its own object; item
// `brokenItem` (when below `pods`) has a number for its name.
std::string manyPods(int pods, int brokenItem = -1) {
  std::string json = R"({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n1"}})";
  for (int i = 0; i < pods; ++i) {
    const std::string name = i == brokenItem ? "7" : "\"p" + std::to_string(i) + "\"";
    json += R"(, {"kind": "Pod", "metadata": {"name": )" + name +
            R"(, "namespace": "ns1", "uid": "u)" + std::to_string(i % (pods - 1)) +
            R"("}, "spec": {"nodeName": "n1"}})";
  }
  return json + "]}";
}

// Far more objects than the decoding thread may run ahead by, so it waits on the cache's
// side many times. The last pod reuses the first one's UID: file order decides which stays.
BOOST_AUTO_TEST_CASE(loads_files_of_many_batches_in_file_order) {
  constexpr int kPods = 20000;
  TempFile file("many.json", manyPods(kPods));
  cache::Cache cache;
  const ClusterStateCounts counts = loadClusterState(file.path(), cache);
  BOOST_TEST(counts.nodes == 1u);
  BOOST_TEST(counts.pods == std::size_t{kPods});
  auto snapshot = cache.snapshot();
  const auto names = podNames(snapshot->getNodeInfo("n1"));
  BOOST_TEST(names.size() == std::size_t{kPods - 1});
  BOOST_TEST((std::find(names.begin(), names.end(), "p0") == names.end()));
  BOOST_TEST(
      (std::find(names.begin(), names.end(), "p" + std::to_string(kPods - 1)) != names.end()));
}

// An error deep in the file reaches the caller, naming the item, with nothing published.
BOOST_AUTO_TEST_CASE(errors_after_many_batches_name_the_item) {
  TempFile file("broken-late.json", manyPods(20000, 15000));
  cache::Cache cache;
  try {
    loadClusterState(file.path(), cache);
    BOOST_FAIL("expected an error");
  } catch (const api::DecodeError& e) {
    BOOST_TEST(std::string(e.what()).find("items[15001].metadata.name") != std::string::npos,
               e.what());
  }
  BOOST_TEST(cache.snapshot()->getNodeInfo("n1") == nullptr);
}

// A budget that does not decode stops the load as a bad pod does, naming the item.
BOOST_AUTO_TEST_CASE(a_bad_pod_disruption_budget_names_its_item) {
  TempFile file("broken-pdb.json",
                R"({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n1"}},)"
                R"( {"kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "x"},)"
                R"( "status": {"disruptionsAllowed": "one"}}]})");
  cache::Cache cache;
  try {
    loadClusterState(file.path(), cache);
    BOOST_FAIL("expected an error");
  } catch (const api::DecodeError& e) {
    BOOST_TEST(
        std::string(e.what()).find("items[1].status.disruptionsAllowed") != std::string::npos,
        e.what());
  }
  BOOST_TEST(cache.snapshot()->podDisruptionBudgets("x").empty());
}

BOOST_AUTO_TEST_CASE(missing_file_names_the_file) {
  cache::Cache cache;
  const std::string path = "/nonexistent/sx-cluster-state.json";
  try {
    loadClusterState(path, cache);
    BOOST_FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(std::string(e.what()).find(path) != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::sources
