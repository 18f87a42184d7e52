#include "scheduling/sources/file_source.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "scheduling/api/json/list_reader.hpp"
#include "scheduling/sources/yaml_to_json.hpp"

namespace scheduling::sources {

namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

bool isYaml(const std::string& path) { return path.ends_with(".yaml") || path.ends_with(".yml"); }

// The file itself for JSON; for YAML, its JSON translation held in `json`.
File openAsJson(const std::string& path, std::string& json) {
  File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    throw std::runtime_error("cannot open cluster state file " + path + ": " +
                             std::strerror(errno));
  }
  if (!isYaml(path)) return file;
  std::string yaml;
  char chunk[1 << 16];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, file.get())) > 0;) {
    yaml.append(chunk, n);
  }
  json = yamlToJson(yaml);
  File memory(fmemopen(json.data(), json.size(), "rb"), &std::fclose);
  if (!memory) throw std::runtime_error("cannot buffer " + path + ": " + std::strerror(errno));
  return memory;
}

}  // namespace

ClusterStateCounts loadClusterState(const std::string& path, cache::Cache& cache) {
  std::string json;
  File file = openAsJson(path, json);

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
