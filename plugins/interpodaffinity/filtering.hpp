#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugins/interpodaffinity/topology.hpp"
#include "scheduling/framework/cycle_state.hpp"
#include "scheduling/framework/listers.hpp"
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

// A plain topology → count map, as PreFilter builds it. Keys view snapshot-owned strings.
using TopologyCountMap = std::unordered_map<TopologyPair, std::int64_t, TopologyPairHash>;

// topologyToMatchedTermCount, built so that cloning is cheap.
//
// The runtime clones the CycleState for every node that has nominated pods (and for every
// preemption candidate) and then calls AddPod/RemovePod on the clone. Upstream deep-copies
// the three maps each time; at 5k nodes a map can hold thousands of pairs. Here the map
// PreFilter computed is an immutable base shared by all clones, and AddPod/RemovePod write
// into a small per-clone overlay of deltas (owning its strings: the pods and nodes handed to
// AddPod need not outlive the cycle). A lookup sums base and overlay.
//
// Upstream deletes an entry when it reaches exactly 0 and tests "map is empty"; a pair is in
// the upstream map iff its value is non-zero, so emptiness is tracked as the number of pairs
// whose (base + delta) is non-zero.
class TopologyToMatchedTermCount {
 public:
  TopologyToMatchedTermCount() = default;
  // Takes PreFilter's map as the shared base.
  explicit TopologyToMatchedTermCount(TopologyCountMap base);
  TopologyToMatchedTermCount(TopologyToMatchedTermCount&&) = default;
  TopologyToMatchedTermCount& operator=(TopologyToMatchedTermCount&&) = default;

  // The same counts, reading this one's base: valid while this one lives. The runtime
  // clones a cycle's state only within the cycle (a node's nominated pods, a preemption
  // candidate), and sharing the base by reference count made every clone two atomic
  // operations on a cache line that all worker threads touch.
  TopologyToMatchedTermCount borrowingCopy() const;

  std::int64_t count(std::string_view key, std::string_view value) const;
  // len(map) upstream: pairs with a non-zero count.
  std::size_t size() const { return nonZero_; }
  bool empty() const { return nonZero_ == 0; }

  // m[pair] += delta, forgetting the pair when it reaches 0 (updateWith*Terms upstream).
  void add(std::string_view key, std::string_view value, std::int64_t delta);

  // True iff some label (k, v) of the node has count(k, v) > 0. Visits only the pairs that
  // can be positive (the base's topology keys and the overlay) instead of every label.
  bool anyPositiveOn(const scheduling::api::Labels& nodeLabels) const;

  // The non-zero pairs, ordered: for tests and debugging.
  std::map<std::pair<std::string, std::string>, std::int64_t> toMap() const;

 private:
  // PreFilter's counts by topology key, then value. A cycle has one or two distinct keys,
  // so Filter finds the key with a comparison or two and hashes only the node's value,
  // where a map of pairs hashed both strings for every lookup of every node.
  using ValueCounts = std::unordered_map<std::string_view, std::int64_t>;
  struct Base {
    std::vector<std::pair<std::string_view, ValueCounts>> keys;
    const ValueCounts* find(std::string_view key) const {
      for (const auto& [k, values] : keys) {
        if (k == key) return &values;
      }
      return nullptr;
    }
  };
  struct OwnedPair {
    std::string key;
    std::string value;
  };
  struct OwnedPairHash {
    using is_transparent = void;
    std::size_t operator()(const OwnedPair& p) const noexcept {
      return hashTopologyPair(p.key, p.value);
    }
    std::size_t operator()(const TopologyPair& p) const noexcept {
      return hashTopologyPair(p.key, p.value);
    }
  };
  struct OwnedPairEq {
    using is_transparent = void;
    static TopologyPair view(const OwnedPair& p) { return {p.key, p.value}; }
    static TopologyPair view(const TopologyPair& p) { return p; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const noexcept {
      return view(a) == view(b);
    }
  };

  std::int64_t baseCount(TopologyPair pair) const;
  std::int64_t deltaCount(TopologyPair pair) const;

  using Delta = std::unordered_map<OwnedPair, std::int64_t, OwnedPairHash, OwnedPairEq>;

  std::shared_ptr<const Base> ownedBase_;  // null in a borrowing copy
  const Base* base_ = nullptr;
  Delta delta_;
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
  };
  // Owned by the state PreFilter wrote; its clones borrow it, as they do the counts' bases.
  std::shared_ptr<const Incoming> ownedIncoming;
  const scheduling::framework::PodInfo* podInfo = nullptr;
  const scheduling::api::Labels* namespaceLabels = nullptr;
  // podMatchesAllAffinityTerms(podInfo's required affinity terms, podInfo's pod), computed
  // once for the "first pod of a group" rule.
  bool podMatchesAllOwnAffinityTerms = false;

  // Valid while this state lives: see TopologyToMatchedTermCount::borrowingCopy().
  std::unique_ptr<scheduling::framework::StateData> clone() const override;

  // updateWithPod: the pod is added (+1) or removed (-1) on `node`.
  void updateWithPod(const scheduling::framework::PodInfo& updated,
                     const scheduling::framework::NodeInfo& node, std::int64_t multiplier);
};

// podMatchesAllAffinityTerms: false for no terms, else every term matches with nil
// namespace labels.
bool podMatchesAllAffinityTerms(const std::vector<scheduling::framework::AffinityTerm>& terms,
                                const scheduling::api::Pod& pod);

// The PreFilter maps, computed through the lister's indexes. Equal to upstream's loops over
// HavePodsWithRequiredAntiAffinityList (existing) and every pod of every node (incoming).
TopologyCountMap existingAntiAffinityCounts(const scheduling::api::Pod& pod,
                                            const scheduling::api::Labels& nsLabels,
                                            const scheduling::framework::SharedLister& lister);
// `podInfo` must have its namespaceSelectors merged already.
std::pair<TopologyCountMap, TopologyCountMap> incomingAffinityAntiAffinityCounts(
    const scheduling::framework::PodInfo& podInfo,
    const scheduling::framework::SharedLister& lister);

}  // namespace plugins::interpodaffinity
