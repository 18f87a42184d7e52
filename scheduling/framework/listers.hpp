#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/framework/topology_index.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::framework {

// How many of a node's pods carry one affinity term (counted per term, so a pod listing
// the same term twice counts 2). The node is named by its slot (NodeInfo::slot()): what a
// topology key reads, and what stays the same while the node's pods change.
struct NodeTermCount {
  NodeSlot slot;
  std::int64_t count;
};

enum class TermKind {
  RequiredAffinity,
  RequiredAntiAffinity,
  PreferredAffinity,
  PreferredAntiAffinity
};

// The read-only cluster view of one scheduling cycle (SharedLister + the nominator +
// the namespace lister upstream). Implemented by cache::Snapshot.
//
// Beyond upstream's listers it answers the two questions InterPodAffinity asks of every
// pod in the cluster through indexes, so their cost follows what matches:
//  - forEachPodMatching: which assigned pods a term of the incoming pod selects;
//  - forEachExistingTermSelecting: the distinct terms that assigned pods carry and that may
//    select the incoming pod, with where.
class SharedLister {
 public:
  virtual ~SharedLister() = default;

  // Nodes in node-tree order (zones round-robin), and the upstream "have ..." sub-lists.
  virtual std::span<const NodeInfo* const> nodeInfoList() const = 0;
  virtual std::span<const NodeInfo* const> havePodsWithAffinityList() const = 0;
  virtual std::span<const NodeInfo* const> havePodsWithRequiredAntiAffinityList() const = 0;
  // nullptr for an unknown name.
  virtual const NodeInfo* getNodeInfo(std::string_view name) const = 0;
  // getNodeInfo of every name, into `out` (as long as `names`): the nodes a request sends,
  // which a lister may find faster together than one by one.
  virtual void getNodeInfos(std::span<const std::string_view> names,
                            std::span<const NodeInfo*> out) const {
    for (std::size_t i = 0; i < names.size(); ++i) out[i] = getNodeInfo(names[i]);
  }
  // The labels of the nodes above as topology values, by the nodes' slots.
  virtual const TopologyIndex& topology() const = 0;

  // A namespace's labels; empty labels for an unknown namespace
  // (GetNamespaceLabelsSnapshot).
  virtual const api::Labels& namespaceLabels(std::string_view ns) const = 0;
  // fn(name, labels) for every namespace, in name order.
  virtual void forEachNamespace(
      const std::function<void(const std::string& name, const api::Labels& labels)>& fn) const = 0;
  // fn(name) for every namespace whose labels `selector` matches, in name order: how a
  // namespaceSelector is resolved. A lister may answer it from an index; this one tests
  // every namespace.
  virtual void forEachNamespaceMatching(
      const labels::Selector& selector,
      const std::function<void(const std::string& name)>& fn) const {
    forEachNamespace([&](const std::string& name, const api::Labels& labels) {
      if (selector.matches(labels)) fn(name);
    });
  }

  // Pods nominated to the node (unbound, status.nominatedNodeName == node), in order.
  virtual std::span<const NominatedPod> nominatedPodsForNode(std::string_view node) const = 0;
  // The same for a NodeInfo of this lister (or a borrowing copy of one): what Filter and
  // Score ask for every node they see, so a lister may answer it without the name.
  virtual std::span<const NominatedPod> nominatedPodsFor(const NodeInfo& node) const {
    return nominatedPodsForNode(node.name());
  }
  // The two questions below about the nominated pods of every node, through indexes, so that
  // a plugin learns once per cycle which nominated pods concern the incoming pod and reads no
  // other (InterPodAffinity's AddPod):
  //  - fn(pod) for every nominated pod `term` matches with empty namespace labels, as
  //    forEachPodMatching for assigned pods;
  virtual void forEachNominatedPodMatching(
      const AffinityTerm& term, const std::function<void(const PodInfo& pod)>& fn) const = 0;
  //  - fn(term, pod) for every required anti-affinity term of a nominated pod that may
  //    select a pod of `podNamespace` with `podLabels`: a superset, each (term, pod) at most
  //    once; the caller still checks term.matches.
  virtual void forEachNominatedPodWithRequiredAntiAffinitySelecting(
      std::string_view podNamespace, const api::Labels& podLabels,
      const std::function<void(const AffinityTerm& term, const PodInfo& pod)>& fn) const = 0;

  // Calls fn for every pod assigned to a node of this snapshot that `term` matches with
  // empty namespace labels (term.matches(pod, {})): the incoming pod's terms, whose
  // namespaceSelector has been resolved into namespaces (Nothing) or is Everything. The
  // node is named by its slot, which is all a topology key reads: at a million pods the
  // matching ones sit on nodes spread over the whole heap, and reading each NodeInfo was
  // most of the walk.
  virtual void forEachPodMatching(
      const AffinityTerm& term,
      const std::function<void(const PodInfo& pod, NodeSlot node)>& fn) const = 0;

  // forEachPodMatching's nodes alone, in batches: fn(slots) with the slot of every pod
  // `term` matches (a node holding n of them n times), each batch a part of the whole. What
  // a plugin asks that counts pods per topology domain and reads nothing of the pods. Called
  // per pod, the walk was a chain of dependent cache misses (the index's entry, the node's
  // slot, the slot's topology value, the domain's count) broken by an indirect call; in
  // batches, the lister's loop and the plugin's each keep many misses in flight.
  virtual void forEachNodeOfPodMatching(
      const AffinityTerm& term,
      const std::function<void(std::span<const NodeSlot> slots)>& fn) const {
    std::vector<NodeSlot> slots;
    forEachPodMatching(term, [&](const PodInfo& /*pod*/, NodeSlot node) { slots.push_back(node); });
    if (!slots.empty()) fn(slots);
  }

  // Calls fn once per distinct (term, weight) of the given kind carried by pods assigned to
  // nodes of this snapshot, with the nodes holding them (weight 0 for required terms), for
  // a superset of the terms that may select a pod of `podNamespace` with `podLabels` (the
  // caller still checks term.matches), each at most once, in no particular order: what
  // InterPodAffinity asks about the incoming pod, at a cost that follows the terms that may
  // select it rather than every workload of the cluster.
  virtual void forEachExistingTermSelecting(
      TermKind kind, std::string_view podNamespace, const api::Labels& podLabels,
      const std::function<void(const AffinityTerm& term, std::int32_t weight,
                               std::span<const NodeTermCount> nodes)>& fn) const = 0;
};

}  // namespace scheduling::framework
