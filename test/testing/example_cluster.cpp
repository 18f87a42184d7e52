#include "test/testing/example_cluster.hpp"

#include <string>

#include "plugins/registry.hpp"
#include "scheduling/config/configuration.hpp"
#include "scheduling/sources/file_source.hpp"

namespace testing {
namespace {

std::shared_ptr<scheduling::cache::Cache> loadExampleCache() {
  auto cache = std::make_shared<scheduling::cache::Cache>();
  scheduling::sources::loadClusterState(std::string(SX_SOURCE_DIR) + "/examples/cluster-state.json",
                                        *cache);
  return cache;
}

std::shared_ptr<scheduling::framework::runtime::Framework> exampleFramework(
    server::Metrics& metrics) {
  auto framework = std::make_shared<scheduling::framework::runtime::Framework>(
      scheduling::config::loadConfiguration(std::string(SX_SOURCE_DIR) + "/examples/config.yaml"),
      plugins::inTreeRegistry());
  framework->setMetricsRecorder(metrics);
  return framework;
}

}  // namespace

ExampleCluster::ExampleCluster()
    : cache(loadExampleCache()), scheduler(exampleFramework(metrics), cache) {}

server::RouterContext ExampleCluster::routerContext() {
  return {scheduler,
          *cache,
          metrics,
          [this] { return synced.load(); },
          [this] { return unsyncedReason; },
          [this] { return draining.load(); }};
}

}  // namespace testing
