#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/labels.hpp"
#include "scheduling/cache/existing_term_index.hpp"
#include "scheduling/cache/namespace_directory.hpp"
#include "scheduling/cache/namespace_pod_index.hpp"
#include "scheduling/cache/node_infos_by_slot.hpp"
#include "scheduling/cache/node_name_index.hpp"
#include "scheduling/cache/nominated_pod_index.hpp"
#include "scheduling/cache/pod_disruption_budgets.hpp"
#include "scheduling/cache/spanning_selector_memo.hpp"
#include "scheduling/framework/listers.hpp"
#include "scheduling/framework/slot_set.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::cache {

class Cache;

// One consistent, immutable view of the cluster for scheduling cycles
// (backend/cache/snapshot.go, plus the nominator and namespace lister it stands in for).
// Only the Cache builds one, in publish(); after that nothing changes it, so any number of
// requests read it concurrently without locks.
//
// The parts that did not change since the previous snapshot are shared with it rather than
// copied: NodeInfos (copy-on-write in the Cache) and the table of them by slot (in chunks),
// per-namespace pod indexes, the node lists of existing terms (in chunks), the node order,
// the namespace labels and the nominations. Building one costs what changed, not the
// cluster: the node lists a plugin may ask for are made on first use.
class Snapshot final : public framework::SharedLister {
 public:
  using NamespaceLabels = NamespaceDirectory::Labels;

  std::span<const framework::NodeInfo* const> nodeInfoList() const override { return lists().all; }
  std::span<const framework::NodeInfo* const> havePodsWithAffinityList() const override {
    return lists().withAffinity;
  }
  std::span<const framework::NodeInfo* const> havePodsWithRequiredAntiAffinityList()
      const override {
    return lists().withRequiredAntiAffinity;
  }
  const framework::NodeInfo* getNodeInfo(std::string_view name) const override;
  void getNodeInfos(std::span<const std::string_view> names,
                    std::span<const framework::NodeInfo*> out) const override;
  const framework::TopologyIndex& topology() const override { return *topology_; }

  const api::Labels& namespaceLabels(std::string_view ns) const override;
  void forEachNamespace(const std::function<void(const std::string& name,
                                                 const api::Labels& labels)>& fn) const override;
  void forEachNamespaceMatching(
      const labels::Selector& selector,
      const std::function<void(const std::string& name)>& fn) const override;

  std::span<const framework::NominatedPod> nominatedPodsForNode(
      std::string_view node) const override;
  std::span<const framework::NominatedPod> nominatedPodsFor(
      const framework::NodeInfo& node) const override;
  void forEachNominatedPodMatching(
      const framework::AffinityTerm& term,
      const std::function<void(const framework::PodInfo& pod)>& fn) const override;
  void forEachNominatedPodWithRequiredAntiAffinitySelecting(
      std::string_view podNamespace, const api::Labels& podLabels,
      const std::function<void(const framework::AffinityTerm& term, const framework::PodInfo& pod)>&
          fn) const override;

  void forEachPodMatching(const framework::AffinityTerm& term,
                          const std::function<void(const framework::PodInfo& pod,
                                                   framework::NodeSlot node)>& fn) const override;
  void forEachNodeOfPodMatching(
      const framework::AffinityTerm& term,
      const std::function<void(std::span<const framework::NodeSlot> slots)>& fn) const override;
  // From how many listed namespaces a term's pods are found through the memo of planned
  // namespaces (as a term spanning every namespace is): below, finding each by name and
  // planning there costs less than the memo's pass over every namespace's serial.
  static constexpr std::size_t kListedNamespacesForMemo = 16;

  // The PodDisruptionBudgets of namespace `ns`, by name (what upstream's preemption lists
  // from its informer): for /preempt, which no plugin here serves.
  std::span<const PodDisruptionBudgetInfo> podDisruptionBudgets(std::string_view ns) const {
    return podDisruptionBudgets_->inNamespace(ns);
  }

  // The NodeInfo at a node slot (NodeInfo::slot(), NodeTermCount::slot), null for a ghost,
  // a free slot or one this snapshot does not know.
  const framework::NodeInfo* nodeInfoAt(framework::NodeSlot slot) const {
    return cache::nodeInfoAt(nodes_, slot);
  }

  // Every distinct (term, weight) of the kind with the nodes holding it, unfiltered: what
  // forEachExistingTermSelecting narrows down (tests check the one against the other).
  void forEachExistingTerm(
      framework::TermKind kind,
      const std::function<void(const framework::AffinityTerm& term, std::int32_t weight,
                               std::span<const framework::NodeTermCount> nodes)>& fn) const;

  void forEachExistingTermSelecting(
      framework::TermKind kind, std::string_view podNamespace, const api::Labels& podLabels,
      const std::function<void(const framework::AffinityTerm& term, std::int32_t weight,
                               std::span<const framework::NodeTermCount> nodes)>& fn)
      const override;

 private:
  friend class Cache;

  // A namespace's assigned pods: its index plus, when small changes are pending, the
  // overlay of those changes (null when there are none).
  struct NamespacePods {
    std::shared_ptr<const NamespacePodIndex> index;
    std::shared_ptr<const NamespacePodDelta> delta;
    std::uint64_t serial = 0;  // index->serial()
  };
  // Side by side with the namespaces' pods, by position (namespace name order): their
  // indexes and serials, and their overlays' indexes of added pods and serials (an empty
  // index where there is no overlay), as SpanningSelectorMemo reads them in one pass. Plain
  // numbers, copied per snapshot.
  struct NamespaceColumns {
    std::vector<const NamespacePodIndex*> indexes;
    std::vector<std::uint64_t> serials;
    std::vector<const NamespacePodIndex*> addedIndexes;
    std::vector<std::uint64_t> addedSerials;
  };
  // An overlay-less namespace's column in addedIndexes: no pods.
  static const NamespacePodIndex& noAddedPods();

  // What terms spanning many namespaces may match where, remembered across snapshots: in
  // the namespaces' indexes, and in their overlays' added pods.
  struct SpanningMemos {
    SpanningSelectorMemo indexes;
    SpanningSelectorMemo added;
  };

  // What the Cache hands over; the lists and lookups are derived from it.
  struct Parts {
    // The Cache's node slots → this snapshot's NodeInfo, null for ghosts and free slots.
    NodeInfosBySlot nodes;
    // The slots of the nodes with a Node object, in node-tree order.
    std::shared_ptr<const std::vector<framework::NodeSlot>> order;
    // The same slots as a set: where nodes is not null.
    std::shared_ptr<const framework::SlotSet> realSlots;
    // The nodes' names and labels by slot; shared while no node comes, goes or relabels.
    std::shared_ptr<const NodeNameIndex> names;
    std::shared_ptr<const framework::TopologyIndex> topology;
    // Sorted by namespace name; chunks shared with the previous snapshot.
    ChunkedArray<NamespacePods> namespacePods;
    NamespaceColumns namespaceColumns;
    ExistingTerms existingTerms;
    std::shared_ptr<const NamespaceDirectory> namespaces;
    std::shared_ptr<const PodDisruptionBudgets> podDisruptionBudgets;
    // Its slots are this snapshot's.
    std::shared_ptr<const NominatedPodIndex> nominated;
    // Shared by the Cache's snapshots; null: terms spanning every namespace ask each one.
    std::shared_ptr<SpanningMemos> spanningSelectors;
  };

  explicit Snapshot(Parts parts);

  // updateNodeInfoSnapshotList's lists, sub-sequences of the node order. Only preemption
  // and tests ask for them: made on the first call, not at every publish.
  struct NodeLists {
    std::vector<const framework::NodeInfo*> all;
    std::vector<const framework::NodeInfo*> withAffinity;
    std::vector<const framework::NodeInfo*> withRequiredAntiAffinity;
  };
  const NodeLists& lists() const;

  NodeInfosBySlot nodes_;
  std::shared_ptr<const std::vector<framework::NodeSlot>> order_;
  std::shared_ptr<const framework::SlotSet> realSlots_;
  mutable std::once_flag listsMade_;
  mutable NodeLists lists_;
  std::shared_ptr<const NodeNameIndex> names_;
  std::shared_ptr<const framework::TopologyIndex> topology_;

  // The walks behind forEachPodMatching and forEachNodeOfPodMatching: emit(entry) for every
  // index entry (or overlay entry) whose pod `term` matches, ghosts' included. An emit that
  // also takes a NodeSlot asks only where the pods run: where the memo kept a namespace's
  // slots, it gets emit(slot) for each instead.
  template <typename Emit>
  void forEachEntryMatching(const framework::AffinityTerm& term, Emit&& emit) const;
  // The index's part of one namespace the term selects, along `plan` (nullptr: the index
  // holds no match), made for term.selector: its matches less the pods an overlay removed.
  template <typename Emit>
  void forEachIndexedEntryMatching(const NamespacePods& pods, const framework::AffinityTerm& term,
                                   const NamespacePodIndex::Plan* plan,
                                   std::span<const NamespacePodIndex::Range> ranges,
                                   Emit&& emit) const;
  // In every namespace, for a term that spans them all, or in every one of `namespaces`
  // (sorted): through the memos, which skip the namespaces whose index (and overlay) cannot
  // match and keep the others' plans.
  template <typename Emit>
  void forEachEntryMatchingThroughMemo(const framework::AffinityTerm& term,
                                       const std::vector<std::string>* namespaces,
                                       Emit&& emit) const;

  ChunkedArray<NamespacePods> namespacePods_;
  NamespaceColumns namespaceColumns_;
  std::shared_ptr<SpanningMemos> spanningSelectors_;
  ExistingTerms existingTerms_;
  std::shared_ptr<const NamespaceDirectory> namespaces_;
  std::shared_ptr<const PodDisruptionBudgets> podDisruptionBudgets_;
  std::shared_ptr<const NominatedPodIndex> nominated_;
};

}  // namespace scheduling::cache
