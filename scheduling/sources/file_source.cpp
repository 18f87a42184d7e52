#include "scheduling/sources/file_source.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "scheduling/api/json/list_reader.hpp"

namespace scheduling::sources {

ClusterStateCounts loadClusterState(const std::string& path, cache::Cache& cache) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) {
    throw std::runtime_error("cannot open cluster state file " + path + ": " +
                             std::strerror(errno));
  }

  ClusterStateCounts counts;
  api::json::ListVisitor visitor;
  visitor.node = [&](api::Node&& node) {
    ++counts.nodes;
    cache.upsertNode(std::move(node));
  };
  visitor.pod = [&](api::Pod&& pod) {
    ++counts.pods;
    if (pod.isTerminal()) {
      // The cache would drop it anyway; skip the work.
      ++counts.terminal;
      return;
    }
    if (pod.isTerminating()) ++counts.terminating;
    if (!pod.spec.nodeName.empty()) {
      ++counts.assigned;
    } else if (!pod.status.nominatedNodeName.empty()) {
      ++counts.nominated;
    }
    // The cache keys pods by UID, which the API server always sets; a hand-written file
    // may omit it, and namespace/name is unique within one file.
    if (pod.metadata.uid.empty()) pod.metadata.uid = pod.metadata.ns + "/" + pod.metadata.name;
    cache.upsertPod(std::move(pod));
  };
  visitor.ns = [&](api::Namespace&& ns) {
    ++counts.namespaces;
    cache.upsertNamespace(std::move(ns));
  };
  api::json::readList(file.get(), path, visitor);
  cache.publish();
  return counts;
}

}  // namespace scheduling::sources
