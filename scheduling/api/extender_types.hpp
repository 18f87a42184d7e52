#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/api/labels.hpp"
#include "scheduling/api/pod.hpp"

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

// Strings that views in an answer or in arguments point into when no body holds their bytes.
// A deque, so that keeping one moves none of the others (a view of a short string's inline
// bytes would dangle once the string moved), behind a pointer, so that moving the holder moves
// no string either, and shared, so that a copy of the holder views strings that live as long
// as it does.
class KeptStrings {
 public:
  std::string_view keep(std::string text) {
    if (!strings_) strings_ = std::make_shared<std::deque<std::string>>();
    return strings_->emplace_back(std::move(text));
  }
  bool empty() const { return !strings_ || strings_->empty(); }

 private:
  std::shared_ptr<std::deque<std::string>> strings_;
};

struct ExtenderArgs {
  Pod pod;
  std::optional<std::vector<SentNode>> nodes;  // nodeCacheCapable: false
  // nodeCacheCapable: true. The names view the request body, which must outlive them as it
  // must outlive SentNode::raw (a string of its own for each of 5,000 names made decoding ten
  // times slower), but for those that copyNodeName added.
  std::optional<std::vector<std::string_view>> nodeNames;

  // Appends a name to nodeNames that the arguments keep themselves: a name that the body does
  // not hold as it reads (it was sent with escapes), or one that came from no body at all.
  void copyNodeName(std::string_view name) {
    if (!nodeNames) nodeNames.emplace();
    nodeNames->push_back(nodeNameCopies.keep(std::string(name)));
  }

  KeptStrings nodeNameCopies;  // the names copyNodeName keeps
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

// A FailedNodesMap in request order: node name → why it failed.
using FailedNodes = std::vector<std::pair<std::string_view, std::string_view>>;

// ExtenderFilterResult. Exactly one of nodes / nodeNames is set, mirroring the request.
// The feasible and failed nodes view the request's bytes and names, which outlive the answer's
// encoding. A failure's reason views a plugin's static text or one in keptReasons: a whole
// cluster's /filter fails thousands of nodes, and allocating a name and a reason for each (with
// its Status) put a fifth of the server's time in malloc.
struct ExtenderFilterResult {
  std::optional<std::vector<std::string_view>> nodes;  // raw Node objects to echo
  std::optional<std::vector<std::string_view>> nodeNames;
  FailedNodes failedNodes;
  FailedNodes failedAndUnresolvableNodes;
  std::string error;
  KeptStrings keptReasons;  // the reasons that are not static text
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
