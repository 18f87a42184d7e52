#pragma once

#include <cstddef>
#include <string>

#include "scheduling/cache/cache.hpp"

namespace scheduling::sources {

// What a cluster-state file held, for the start-up log line.
struct ClusterStateCounts {
  std::size_t nodes = 0;
  std::size_t pods = 0;         // every pod in the file, whatever its state
  std::size_t assigned = 0;     // bound and not terminal: they count on their node
  std::size_t nominated = 0;    // unbound with status.nominatedNodeName
  std::size_t terminating = 0;  // deletionTimestamp set, not terminal
  std::size_t terminal = 0;     // Succeeded / Failed: ignored
  std::size_t namespaces = 0;
  std::size_t podDisruptionBudgets = 0;
};

// Loads the `v1` List that `kubectl get nodes,pods,namespaces,poddisruptionbudgets -A -o json`
// prints into the cache, then publishes one snapshot. JSON is streamed item by item; a `.yaml`
// or `.yml` file (`-o yaml`) is translated to JSON in memory first. Throws std::runtime_error
// naming the file when it cannot be opened, and api::DecodeError (naming file and JSON path)
// when it is malformed.
ClusterStateCounts loadClusterState(const std::string& path, cache::Cache& cache);

}  // namespace scheduling::sources
