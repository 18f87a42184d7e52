#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/node.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/labels/selector.hpp"

// Scheduling-side views of pods and nodes, after pkg/scheduler/framework/types.go.
namespace scheduling::framework {

// A processed pod (anti-)affinity term (framework.AffinityTerm).
struct AffinityTerm {
  labels::Selector selector = labels::Selector::nothing();
  std::vector<std::string> namespaces;  // sorted, unique
  labels::Selector namespaceSelector = labels::Selector::nothing();
  std::string topologyKey;

  // True iff (pod's namespace is listed OR namespaceSelector matches nsLabels) AND the
  // selector matches the pod's labels. Pass empty labels where upstream passes nil.
  bool matches(const api::Pod& pod, const api::Labels& nsLabels) const;
  bool hasNamespace(std::string_view ns) const;
  bool operator==(const AffinityTerm&) const = default;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  std::int32_t weight = 0;
  bool operator==(const WeightedAffinityTerm&) const = default;
};

// framework.PodInfo: the pod with its affinity terms parsed once.
class PodInfo {
 public:
  // framework.NewPodInfo. A term that fails to parse leaves its whole list empty and
  // records the error (aggregated as utilerrors.NewAggregate formats it); the pod is
  // still usable, as upstream's cache keeps such pods with the lists that did parse.
  explicit PodInfo(std::shared_ptr<const api::Pod> pod);

  const api::Pod& pod() const { return *pod_; }
  const std::shared_ptr<const api::Pod>& podPtr() const { return pod_; }
  const std::string& parseError() const { return parseError_; }

  const std::vector<AffinityTerm>& requiredAffinityTerms() const { return requiredAffinity_; }
  const std::vector<AffinityTerm>& requiredAntiAffinityTerms() const {
    return requiredAntiAffinity_;
  }
  const std::vector<WeightedAffinityTerm>& preferredAffinityTerms() const {
    return preferredAffinity_;
  }
  const std::vector<WeightedAffinityTerm>& preferredAntiAffinityTerms() const {
    return preferredAntiAffinity_;
  }
  // Mutable access for the plugins that rewrite the incoming pod's namespaces
  // (mergeAffinityTermNamespacesIfNotEmpty) on their own copy.
  std::vector<AffinityTerm>& mutableRequiredAffinityTerms() { return requiredAffinity_; }
  std::vector<AffinityTerm>& mutableRequiredAntiAffinityTerms() { return requiredAntiAffinity_; }
  std::vector<WeightedAffinityTerm>& mutablePreferredAffinityTerms() { return preferredAffinity_; }
  std::vector<WeightedAffinityTerm>& mutablePreferredAntiAffinityTerms() {
    return preferredAntiAffinity_;
  }

  // spec.affinity.podAffinity or .podAntiAffinity is set (NodeInfo.PodsWithAffinity).
  bool hasPodAffinityOrAntiAffinity() const;

 private:
  std::shared_ptr<const api::Pod> pod_;
  std::vector<AffinityTerm> requiredAffinity_;
  std::vector<AffinityTerm> requiredAntiAffinity_;
  std::vector<WeightedAffinityTerm> preferredAffinity_;
  std::vector<WeightedAffinityTerm> preferredAntiAffinity_;
  std::string parseError_;
};

using PodInfoPtr = std::shared_ptr<const PodInfo>;

// framework.NodeInfo, reduced to what the plugins here read: the node, its pods, and the
// sub-lists of pods with affinity and with required anti-affinity.
//
// The lists hold plain pointers, as upstream's slices do, and ownership is kept apart, so
// that borrowingCopy() (the filter pass with nominated pods, /preempt's candidate node) is
// a copy of pointers rather than of reference counts: at 5,000 nodes those counts, touched
// from every worker thread, were a third of /filter's time.
class NodeInfo {
 public:
  NodeInfo() = default;
  explicit NodeInfo(std::shared_ptr<const api::Node> node) : node_(std::move(node)) {}

  // A copy whose pods stay owned by this NodeInfo: valid while this one is alive and
  // unchanged, as the NodeInfos of a snapshot are for a whole cycle. Pods added to the
  // copy are owned by the copy.
  NodeInfo borrowingCopy() const;
  // The NodeInfo a borrowing copy was made from (itself when it is no such copy).
  const NodeInfo& origin() const { return origin_ != nullptr ? *origin_ : *this; }

  // Null for a "ghost" node known only through its pods (cache.go keeps those).
  const api::Node* node() const { return node_.get(); }
  const std::shared_ptr<const api::Node>& nodePtr() const { return node_; }
  const std::string& name() const;
  const api::Labels& labels() const;

  const std::vector<const PodInfo*>& pods() const { return pods_; }
  const std::vector<const PodInfo*>& podsWithAffinity() const { return podsWithAffinity_; }
  const std::vector<const PodInfo*>& podsWithRequiredAntiAffinity() const {
    return podsWithRequiredAntiAffinity_;
  }
  std::int64_t generation() const { return generation_; }
  // Pods with a deletionTimestamp, counted as pods come and go so that PodState's Score
  // reads one number instead of walking the pods of every node it scores.
  std::int64_t numTerminatingPods() const { return numTerminatingPods_; }

  void setNode(std::shared_ptr<const api::Node> node);
  void removeNode();
  void addPod(PodInfoPtr pod);
  // Removes by UID, swapping the last element into the hole as upstream does (order is
  // not stable). Returns false when no pod has that UID.
  bool removePod(std::string_view uid);

 private:
  void bumpGeneration();

  std::shared_ptr<const api::Node> node_;
  const NodeInfo* origin_ = nullptr;  // set in borrowing copies
  std::vector<const PodInfo*> pods_;
  std::vector<const PodInfo*> podsWithAffinity_;
  std::vector<const PodInfo*> podsWithRequiredAntiAffinity_;
  // Keeps the pods above alive; in a borrowing copy, only the pods added to it.
  std::vector<PodInfoPtr> owned_;
  std::int64_t numTerminatingPods_ = 0;
  std::int64_t generation_ = 0;
};

// The process-wide generation counter of NodeInfo changes (nextGeneration upstream).
std::int64_t nextGeneration();

}  // namespace scheduling::framework
