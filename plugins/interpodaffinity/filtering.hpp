#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/framework/cycle_state.hpp"
#include "scheduling/framework/listers.hpp"
#include "scheduling/framework/topology_index.hpp"
#include "scheduling/framework/types.hpp"

// PreFilter / Filter state of InterPodAffinity (filtering.go upstream).
namespace plugins::interpodaffinity {

inline constexpr std::string_view kPreFilterStateKey = "PreFilterInterPodAffinity";

inline constexpr std::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view kErrReasonAffinityRulesNotMatch =
    "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kErrReasonAntiAffinityRulesNotMatch =
    "node(s) didn't match pod anti-affinity rules";

// topologyToMatchedTermCount: how many (pod, term) matches each topology domain holds.
//
// PreFilter counts into one array per topology key, indexed by the key's value ids in the
// snapshot's TopologyIndex, so that Filter finds a node's count with two array reads.
//
// The runtime clones the CycleState for every node that has nominated pods (and for every
// preemption candidate) and calls AddPod/RemovePod on the clone. Upstream deep-copies the
// maps each time; here the counts PreFilter made are an immutable base that every clone
// reads, and AddPod/RemovePod write a short per-clone list of deltas. A count is base +
// delta. A delta names its domain by key and value id, or by the value's text when the
// snapshot has no such value (a node whose labels the request overrides).
//
// Upstream deletes an entry when it reaches exactly 0 and tests "map is empty": a domain is
// in the upstream map iff its count is non-zero, so emptiness is tracked as the number of
// domains whose count is non-zero.
class TopologyToMatchedTermCount {
 public:
  using TopologyKey = scheduling::framework::TopologyKey;
  using TopologyValue = scheduling::framework::TopologyValue;

  TopologyToMatchedTermCount() = default;
  TopologyToMatchedTermCount(TopologyToMatchedTermCount&&) = default;
  TopologyToMatchedTermCount& operator=(TopologyToMatchedTermCount&&) = default;

  // PreFilter's counting: + n at the domain (nothing when the node lacks the key). Only on
  // the counts PreFilter owns, before any copy is made.
  void addToBase(const TopologyKey& key, const TopologyValue& value, std::int64_t n);
  // addToBase(key, key.valueAt(slot), n) for the nodes of one term, the key found once: n
  // per node, or 1 per slot listed (a node as often as it holds a pod the term matches).
  void addToBaseAtNodes(const TopologyKey& key,
                        std::span<const scheduling::framework::NodeTermCount> nodes);
  void addToBaseAtNodes(const TopologyKey& key,
                        std::span<const scheduling::framework::NodeSlot> slots);

  // The same counts, reading this one's base: valid while this one lives. The runtime clones
  // a cycle's state only within the cycle (a node's nominated pods, a preemption candidate),
  // and sharing the base by reference count made every clone two atomic operations on a
  // cache line that all worker threads touch.
  TopologyToMatchedTermCount borrowingCopy() const;

  std::int64_t count(const TopologyKey& key, const TopologyValue& value) const;
  // len(map) upstream: domains with a non-zero count.
  std::size_t size() const { return nonZero_; }
  bool empty() const { return nonZero_ == 0; }

  // m[domain] += delta, forgetting the domain when it reaches 0 (updateWith*Terms upstream).
  void add(const TopologyKey& key, const TopologyValue& value, std::int64_t delta);

  // True iff the node lies in some domain with a positive count. Visits the keys counted
  // (one or two per cycle) and the deltas, not the node's labels.
  bool anyPositiveOn(const scheduling::framework::NodeInfo& node) const;

  // The non-zero counts by (key, value), ordered: for tests and debugging.
  std::map<std::pair<std::string, std::string>, std::int64_t> toMap() const;

 private:
  struct KeyCounts {
    TopologyKey key;
    std::vector<std::int64_t> byValue;  // by value id of key's column
  };
  struct Base {
    std::vector<KeyCounts> keys;
  };
  struct Delta {
    TopologyKey key;
    TopologyValue value;
    std::int64_t delta;
  };

  // The base counts under `key`, created empty (with the base itself). Valid until counts
  // under another key are made.
  KeyCounts& baseCountsOf(const TopologyKey& key);
  // addToBase of a known value and a non-zero n; `k` points at the key's counts once found.
  void addKnownToBase(KeyCounts*& k, const TopologyKey& key, const TopologyValue& value,
                      std::int64_t n);

  std::int64_t baseCount(const TopologyKey& key, const TopologyValue& value) const;
  std::int64_t deltaCount(const TopologyKey& key, const TopologyValue& value) const;

  std::shared_ptr<Base> ownedBase_;  // null in a borrowing copy
  const Base* base_ = nullptr;
  std::vector<Delta> deltas_;
  std::size_t nonZero_ = 0;
};

// preFilterState.
class PreFilterState final : public scheduling::framework::StateData {
 public:
  // A map of topology pairs to the number of existing pods that have anti-affinity terms
  // that match the incoming pod.
  TopologyToMatchedTermCount existingAntiAffinityCounts;
  // A map of topology pairs to the number of existing pods that match the affinity terms of
  // the incoming pod.
  TopologyToMatchedTermCount affinityCounts;
  // A map of topology pairs to the number of existing pods that match the anti-affinity
  // terms of the incoming pod.
  TopologyToMatchedTermCount antiAffinityCounts;
  // What PreFilter derived from the incoming pod, for this cycle.
  struct Incoming {
    // The pod with its required terms' namespaceSelectors merged into namespaces.
    scheduling::framework::PodInfo podInfo;
    // Labels of the pod's namespace (GetNamespaceLabelsSnapshot).
    scheduling::api::Labels namespaceLabels;
    // The snapshot's topology, and the topology keys of podInfo's required affinity and
    // anti-affinity terms in it, term by term.
    const scheduling::framework::TopologyIndex* topology = nullptr;
    std::vector<scheduling::framework::TopologyKey> affinityKeys;
    std::vector<scheduling::framework::TopologyKey> antiAffinityKeys;
    // The snapshot's nominated pods whose AddPod would change a count on a node carrying the
    // terms' topology keys, in address order: found once per cycle through the lister's
    // indexes, so that the filter pass with nominated pods reads none of the others.
    std::vector<const scheduling::framework::PodInfo*> nominatedPodsChangingCounts;
  };
  // Owned by the state PreFilter wrote; its clones borrow it, as they do the counts' bases.
  std::shared_ptr<const Incoming> ownedIncoming;
  const Incoming* incoming = nullptr;
  // podMatchesAllAffinityTerms(the incoming required affinity terms, the incoming pod),
  // computed once for the "first pod of a group" rule.
  bool podMatchesAllOwnAffinityTerms = false;

  // Valid while this state lives: see TopologyToMatchedTermCount::borrowingCopy().
  std::unique_ptr<scheduling::framework::StateData> clone() const override;

  // updateWithPod: the pod is added (+1) or removed (-1) on `node`.
  void updateWithPod(const scheduling::framework::PodInfo& updated,
                     const scheduling::framework::NodeInfo& node, std::int64_t multiplier);
  // Whether updateWithPod(updated, node, ±1) would change some count on a node carrying every
  // topology key: whether some term matches.
  bool updateChangesCounts(const scheduling::framework::PodInfo& updated) const;
  // Whether updateWithPod(nominated, node, +1) would change no count, for a pod nominated in
  // the cycle's snapshot: it is not one of nominatedPodsChangingCounts, or the node lacks the
  // topology key of every term that matches it.
  bool nominatedPodLeavesCountsUnchanged(const scheduling::framework::PodInfo& nominated,
                                         const scheduling::framework::NodeInfo& node) const;

 private:
  // The counts updateWithPod changes for `updated`, in its order: fn(counts, key) for each
  // (pointer to member, term's topology key), until fn returns false.
  template <typename Fn>
  void forEachCountOf(const scheduling::framework::PodInfo& updated, Fn fn) const;
};

// The value of Incoming::nominatedPodsChangingCounts for `state`, whose `incoming` is set.
std::vector<const scheduling::framework::PodInfo*> nominatedPodsChangingCounts(
    const PreFilterState& state, const scheduling::framework::SharedLister& lister);

// podMatchesAllAffinityTerms: false for no terms, else every term matches with nil
// namespace labels.
bool podMatchesAllAffinityTerms(const std::vector<scheduling::framework::AffinityTerm>& terms,
                                const scheduling::api::Pod& pod);

// The PreFilter maps, computed through the lister's indexes. Equal to upstream's loops over
// HavePodsWithRequiredAntiAffinityList (existing) and every pod of every node (incoming).
TopologyToMatchedTermCount existingAntiAffinityCounts(
    const scheduling::api::Pod& pod, const scheduling::api::Labels& nsLabels,
    const scheduling::framework::SharedLister& lister);
// `podInfo` must have its namespaceSelectors merged already.
std::pair<TopologyToMatchedTermCount, TopologyToMatchedTermCount>
incomingAffinityAntiAffinityCounts(const scheduling::framework::PodInfo& podInfo,
                                   const scheduling::framework::SharedLister& lister);

}  // namespace plugins::interpodaffinity
