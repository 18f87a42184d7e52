#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/extender_types.hpp"
#include "scheduling/cache/cache.hpp"
#include "scheduling/framework/runtime/framework.hpp"
#include "scheduling/framework/types.hpp"

// The inputs of the micro-benchmarks: the scenarios that the benchmark kit's gen_cluster.py
// writes (cluster.json, config.json, args-names.json, args-nodes.json), read from
// <data>/<name>/. Nothing is generated here and nothing is committed: see
// docs/benchmarks.md for the commands.
namespace bench {

// The standard scenario names, smallest first.
inline constexpr std::string_view kScenarioNames[] = {"s1", "s2", "s3", "s4", "s5"};

// Where the scenarios are: set once by main from --data DIR, else $SX_BENCH_DATA, else
// /tmp/bench.
void setDataDirectory(std::string directory);
const std::string& dataDirectory();

// The scenarios present under the data directory, smallest first.
std::vector<std::string> availableScenarios();

// One scenario, loaded on first use and kept for the whole run: the cluster state in a
// Cache, the framework its config.json describes, and both request bodies.
class Scenario {
 public:
  static Scenario& get(std::string_view name);

  const std::string& name() const { return name_; }
  std::string path(std::string_view file) const { return directory_ + "/" + std::string(file); }

  // args-names.json / args-nodes.json as sent.
  const std::string& namesBody();
  const std::string& nodesBody();
  // args-names.json with `count` of its names, a seeded random choice kept in node order, as
  // kube-scheduler sends a sample: the request whose cost should not grow with the cluster.
  const std::string& sampledNamesBody(std::size_t count);
  // sampledNamesBody(count) with the pod's terms matching as many pods in every scenario
  // (bench/equal_matches.hpp); which pods, on stderr when first made.
  const std::string& equalMatchesBody(std::size_t count);

  // The cluster state file loaded into a Cache (published).
  const std::shared_ptr<scheduling::cache::Cache>& cache();
  std::shared_ptr<const scheduling::cache::Snapshot> snapshot() { return cache()->snapshot(); }
  const std::shared_ptr<scheduling::framework::runtime::Framework>& framework();

  // The incoming pod of the scenario's requests, and the NodeInfos its NodeNames resolve to.
  const scheduling::api::ExtenderArgs& namesArgs();
  const scheduling::framework::PodInfo& incomingPod();
  const std::vector<const scheduling::framework::NodeInfo*>& sentNodes();

 private:
  explicit Scenario(std::string name);

  std::string name_;
  std::string directory_;
  std::string namesBody_;
  std::string nodesBody_;
  std::map<std::size_t, std::string> sampledBodies_;
  std::map<std::size_t, std::string> equalMatchesBodies_;
  std::shared_ptr<scheduling::cache::Cache> cache_;
  std::shared_ptr<scheduling::framework::runtime::Framework> framework_;
  std::unique_ptr<scheduling::api::ExtenderArgs> namesArgs_;
  std::unique_ptr<scheduling::framework::PodInfo> incomingPod_;
  std::vector<const scheduling::framework::NodeInfo*> sentNodes_;
};

}  // namespace bench
