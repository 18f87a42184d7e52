#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/api/pod.hpp"
#include "scheduling/api/labels.hpp"

namespace scheduling::api {

// Wire types of k8s.io/kube-scheduler/extender/v1. They carry no JSON tags upstream, so
// kube-scheduler writes the Go field names (PascalCase) and reads keys case-insensitively.

inline constexpr std::int64_t kMinExtenderPriority = 0;
inline constexpr std::int64_t kMaxExtenderPriority = 10;

// One item of ExtenderArgs.Nodes: what the framework reads (metadata.name and .labels),
// plus the exact bytes that were sent so /filter can echo the object back unmodified without
// re-serialising it. `raw` points into the request body, which must outlive it.
struct SentNode {
  std::string name;
  Labels labels;
  std::string_view raw;
};

// Ordered map as it appeared on the wire (Go maps are unordered; we keep input order).
template <typename V>
using WireMap = std::vector<std::pair<std::string, V>>;

struct ExtenderArgs {
  Pod pod;
  std::optional<std::vector<SentNode>> nodes;         // nodeCacheCapable: false
  std::optional<std::vector<std::string>> nodeNames;  // nodeCacheCapable: true
};

struct Victims {
  std::vector<Pod> pods;
  std::int64_t numPDBViolations = 0;
};

struct MetaVictims {
  std::vector<std::string> podUIDs;  // MetaPod.UID
  std::int64_t numPDBViolations = 0;
};

struct ExtenderPreemptionArgs {
  Pod pod;
  std::optional<WireMap<Victims>> nodeNameToVictims;          // nodeCacheCapable: false
  std::optional<WireMap<MetaVictims>> nodeNameToMetaVictims;  // nodeCacheCapable: true
};

struct ExtenderPreemptionResult {
  WireMap<MetaVictims> nodeNameToMetaVictims;
};

// ExtenderFilterResult. Exactly one of nodes / nodeNames is set, mirroring the request.
// The feasible nodes view the request's bytes and names, which outlive the answer's encoding.
struct ExtenderFilterResult {
  std::optional<std::vector<std::string_view>> nodes;  // raw Node objects to echo
  std::optional<std::vector<std::string_view>> nodeNames;
  WireMap<std::string> failedNodes;
  WireMap<std::string> failedAndUnresolvableNodes;
  std::string error;
};

// ExtenderBindingArgs: what kube-scheduler's bindVerb call names; the pod itself is not sent.
struct ExtenderBindingArgs {
  std::string podName;
  std::string podNamespace;
  std::string podUID;  // empty: no UID precondition
  std::string node;
};

// ExtenderBindingResult: an empty error means the pod is bound.
struct ExtenderBindingResult {
  std::string error;
};

// The host views the node name of the request it answers, which outlives its encoding: a
// string per node sent was a tenth of /prioritize's time at 5,000 nodes.
struct HostPriority {
  std::string_view host;
  std::int64_t score = 0;
};

using HostPriorityList = std::vector<HostPriority>;

}  // namespace scheduling::api
