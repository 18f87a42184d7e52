#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "scheduling/cache/cache.hpp"
#include "scheduling/scheduler/scheduler.hpp"
#include "server/metrics.hpp"
#include "server/router.hpp"

namespace testing {

// What the binary wires together, over examples/cluster-state.json with
// examples/config.yaml: the fixture of the server and router tests.
struct ExampleCluster {
  ExampleCluster();

  // The router's view of this cluster; `synced` and `draining` can be flipped to test 503s.
  server::RouterContext routerContext();

  server::Metrics metrics;  // the plugins report to it: built first
  std::shared_ptr<scheduling::cache::Cache> cache;
  scheduling::Scheduler scheduler;
  std::atomic<bool> synced{true};
  std::string unsyncedReason;  // what /readyz says while not synced
  std::atomic<bool> draining{false};
};

}  // namespace testing
