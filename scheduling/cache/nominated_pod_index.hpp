#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduling/cache/chunked_array.hpp"
#include "scheduling/cache/namespace_pod_index.hpp"
#include "scheduling/cache/node_name_index.hpp"
#include "scheduling/cache/term_selector_index.hpp"
#include "scheduling/framework/slot_set.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::cache {

// Node names hashed for lookups by string_view, as the node name index hashes them.
struct NodeNameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view name) const noexcept {
    return std::hash<std::string_view>{}(name);
  }
};

// The nominated pods as snapshots hand them out: per node, and indexed for the two questions
// InterPodAffinity asks about them once per cycle, so that the filter pass with nominated
// pods can tell which of them change its counts without reading the others at all:
//  - forEachMatching: which nominated pods a term of the incoming pod selects;
//  - forEachWithRequiredAntiAffinitySelecting: which nominated pods carry a required
//    anti-affinity term that may select the incoming pod.
// These are the questions SharedLister's forEachPodMatching and forEachExistingTermSelecting
// answer for assigned pods, over the same kinds of index.
//
// Immutable, and made of parts the Nominator shares between publishes: a nomination replaces
// its node's queue (one chunk of the slot table), its namespace's label index and its
// anti-affinity terms' pod lists, and copies one pointer per other part. What a nomination
// costs is what it changed, not every nominated pod of the cluster.
class NominatedPodIndex {
 public:
  // One node's nominated pods, in nomination order (nominator.go's nominatedPods[node]).
  using Queue = std::vector<framework::NominatedPod>;
  using QueuePtr = std::shared_ptr<const Queue>;
  using QueuesByName = std::unordered_map<std::string, QueuePtr, NodeNameHash, std::equal_to<>>;
  // A node's queue in the slot table, with the span Filter and Score read for every node
  // beside its owner: one read less per node than through the queue.
  struct SlotQueue {
    SlotQueue() = default;
    explicit SlotQueue(QueuePtr owner) : queue(std::move(owner)), pods(*queue) {}
    QueuePtr queue;
    std::span<const framework::NominatedPod> pods;
  };
  // A distinct required anti-affinity term of the nominated pods (pods of one workload share
  // theirs) and the pods carrying it, which keep the term alive. Null at a free position.
  struct AntiAffinityTerm {
    const framework::AffinityTerm* term = nullptr;
    std::shared_ptr<const std::vector<framework::PodInfoPtr>> pods;
  };
  // A share of the terms filed by selector: those listing a namespace of one hash bucket, or
  // (the last shard) those with a namespaceSelector. A term that comes or goes refiles its
  // shards only, a few terms each, where one index over all terms cost 7 ms at S5.
  struct TermShard {
    TermShard(std::vector<std::uint32_t> termPositions,
              std::vector<const framework::AffinityTerm*> shardTerms)
        : positions(std::move(termPositions)), terms(std::move(shardTerms)), bySelector(terms) {}
    std::vector<std::uint32_t> positions;  // in the term table, by position in `terms`
    std::vector<const framework::AffinityTerm*> terms;
    TermSelectorIndex bySelector;
  };
  static constexpr std::size_t kNamespaceShards = 1024;
  static constexpr std::size_t kAnyNamespaceShard = kNamespaceShards;
  static std::size_t shardOf(std::string_view ns) {
    return std::hash<std::string_view>{}(ns) % kNamespaceShards;
  }

  struct Parts {
    // The queues of the nodes `names` has, by slot (null: none nominated there).
    ChunkedArray<SlotQueue> bySlot;
    // The slots of bySlot with a queue: most nodes have none, and this answers for them
    // without reading the table (1.6 MB at 50,000 nodes, 6 KB here).
    std::shared_ptr<const framework::SlotSet> nominatedSlots;
    std::shared_ptr<const NodeNameIndex> names;
    // The queues of nominated node names that `names` does not have.
    std::shared_ptr<const QueuesByName> byUnknownName;
    // The same pods' label indexes, one per namespace, sorted by name (slots are not used):
    // owned by the chunks, read through the column of plain pointers beside them.
    ChunkedArray<std::shared_ptr<const NamespacePodIndex>> namespaceIndexes;
    std::vector<const NamespacePodIndex*> byNamespace;
    // The anti-affinity terms by position (stable for a term's life) and their shards, null
    // where empty (kNamespaceShards + 1 of them).
    ChunkedArray<AntiAffinityTerm> antiAffinityTerms;
    ChunkedArray<std::shared_ptr<const TermShard>> termShards;
  };

  explicit NominatedPodIndex(Parts parts) : parts_(std::move(parts)) {}

  // The pods nominated to `node`, in nomination order.
  std::span<const framework::NominatedPod> forNode(std::string_view node) const;
  // The same for a node of the snapshot published with this index: `slot` is the node's,
  // and `nameOf()` gives its name, called only for a slot the index does not have. Inline and
  // lazy: asked for every node a request filters or scores, where reading the name (in the
  // Node) was one more cache miss per node.
  template <typename NameOf>
  std::span<const framework::NominatedPod> forNode(framework::NodeSlot slot,
                                                    NameOf&& nameOf) const {
    if (slot >= parts_.bySlot.size()) return forUnknownNode(nameOf());
    if (!parts_.nominatedSlots->contains(slot)) return {};
    return parts_.bySlot[slot].pods;
  }

  // Calls fn(const PodInfo&) for every nominated pod `term` matches with empty namespace
  // labels (term.matches(pod, {})), each once.
  void forEachMatching(const framework::AffinityTerm& term,
                       const std::function<void(const framework::PodInfo& pod)>& fn) const;

  // Calls fn(term, pod) for every required anti-affinity term of a nominated pod that may
  // select a pod of `podNamespace` with `podLabels` (a superset: the caller checks the term),
  // each pair once.
  void forEachWithRequiredAntiAffinitySelecting(
      std::string_view podNamespace, const api::Labels& podLabels,
      const std::function<void(const framework::AffinityTerm& term, const framework::PodInfo& pod)>&
          fn) const;

 private:
  std::span<const framework::NominatedPod> forUnknownNode(std::string_view node) const;

  Parts parts_;
};

}  // namespace scheduling::cache
