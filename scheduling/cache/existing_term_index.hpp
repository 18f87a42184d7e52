#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "scheduling/cache/chunked_array.hpp"
#include "scheduling/cache/node_infos_by_slot.hpp"
#include "scheduling/cache/term_selector_index.hpp"
#include "scheduling/framework/listers.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::cache {

inline constexpr std::size_t kNumTermKinds = 4;

// One distinct (term, weight) of one kind as a snapshot hands it out: the slots of the
// snapshot's nodes whose pods carry it, in node-list order, with how many times (none when
// all those pods are on ghost nodes). Shared between snapshots while neither its counts nor
// the node order change: slots, unlike NodeInfos, stay the same as the nodes' pods change.
struct ExistingTermGroup {
  std::shared_ptr<const framework::AffinityTerm> term;
  std::int32_t weight = 0;
  std::shared_ptr<const std::vector<framework::NodeTermCount>> nodes;
};

// The groups of one kind, and their terms filed by selector (positions into `groups`).
// The groups are shared between snapshots while none of the kind changes its counts, and
// in chunks when some do; the index for as long as the set of groups does not change: a
// new workload's terms, or the last pod of one going, rebuilds both, not pod churn.
using ExistingTermGroups = ChunkedArray<ExistingTermGroup>;
struct ExistingTermsOfKind {
  std::shared_ptr<const ExistingTermGroups> groups;
  std::shared_ptr<const TermSelectorIndex> bySelector;
};

using ExistingTerms = std::array<ExistingTermsOfKind, kNumTermKinds>;

// The affinity terms carried by assigned pods, deduplicated, with per-node counts. Kept
// incrementally by the Cache as pods come and go, so that publishing a snapshot only walks
// the (few) distinct terms instead of hashing every term of every pod again. Pods of one
// workload share their terms, so there are far fewer groups than pods.
//
// Nodes are identified by the Cache's slot numbers, which a snapshot's NodeInfos carry too.
// Publishing costs what changed since the previous publish: the groups whose counts
// changed and their kinds' chunks that hold them; everything when the node order changed,
// or a kind's set of groups.
class ExistingTermIndex {
 public:
  // Counts (or uncounts) every term of the pod, once per occurrence, on the node `slot`.
  void addPod(const framework::PodInfo& pod, std::uint32_t slot);
  void removePod(const framework::PodInfo& pod, std::uint32_t slot);

  // The groups as seen by a snapshot, each kind's in group-id order: only slots with a
  // NodeInfo in `nodes` count (a group may be left without nodes; readers skip it).
  // `positionBySlot` orders the nodes of a group. `nodeOrderChanged`: a node was added,
  // removed or moved since the previous call (which is also what turns a slot into a ghost
  // or back), so every group's list is made again, not only those whose counts changed.
  ExistingTerms materialize(const NodeInfosBySlot& nodes,
                            std::span<const std::uint32_t> positionBySlot, bool nodeOrderChanged);

 private:
  struct Group {
    framework::TermKind kind;
    std::int32_t weight;
    std::shared_ptr<const framework::AffinityTerm> term;
    std::unordered_map<std::uint32_t, std::int64_t> countBySlot;
    // The last materialized node list; stale while countsChanged.
    bool countsChanged = true;
    std::shared_ptr<const std::vector<framework::NodeTermCount>> nodes;
    // Where the group is in its kind's groupsOfKind_, once that lists it.
    std::size_t position = 0;
  };

  // Makes the group's node list again; false when it came out as it was (a pod updated in
  // place leaves the counts as they were), which keeps the previous list.
  static bool listNodes(Group& group, const NodeInfosBySlot& nodes,
                        std::span<const std::uint32_t> positionBySlot);

  void update(framework::TermKind kind, const framework::AffinityTerm& term, std::int32_t weight,
              std::uint32_t slot, std::int64_t delta);

  // Groups by id; a freed id is null until reused.
  std::vector<std::unique_ptr<Group>> groups_;
  std::vector<std::uint32_t> freeIds_;
  std::unordered_multimap<std::size_t, std::uint32_t> byHash_;
  // Ids of the groups whose counts were touched since materialize() (a freed id may be there).
  std::vector<std::uint32_t> changed_;
  // Per kind, what the last materialize() handed out; null once a group of the kind is
  // created or freed.
  std::array<std::shared_ptr<const ExistingTermGroups>, kNumTermKinds> groupsOfKind_;
  std::array<std::shared_ptr<const TermSelectorIndex>, kNumTermKinds> bySelector_;
};

}  // namespace scheduling::cache
