#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "plugins/interpodaffinity/args.hpp"
#include "scheduling/framework/interface.hpp"

namespace plugins::interpodaffinity {

// The InterPodAffinity plugin (pkg/scheduler/framework/plugins/interpodaffinity): required
// pod affinity and anti-affinity at PreFilter/Filter (filtering.cpp), preferred ones plus
// the existing pods' symmetric terms at PreScore/Score (scoring.cpp). Behaviour follows the
// newest upstream default path: PreFilter and PreScore may Skip, one reason per failure,
// min–max normalisation from the observed minimum; feature gates that default off (hostname
// fast path, resize-deferred skip) are not modelled.
//
// Unlike upstream, the cluster-wide passes go through the snapshot's two index queries
// (SharedLister::forEachPodMatching / forEachExistingTermSelecting), so their cost follows the pods
// and terms that match rather than the size of the cluster; the results are identical.
class InterPodAffinity final : public scheduling::framework::PreFilterPlugin,
                               public scheduling::framework::FilterPlugin,
                               public scheduling::framework::PreScorePlugin,
                               public scheduling::framework::ScorePlugin,
                               public scheduling::framework::PreFilterExtensions,
                               public scheduling::framework::ScoreExtensions,
                               public scheduling::framework::PlacementHints {
 public:
  explicit InterPodAffinity(InterPodAffinityArgs args = {}) : args_(args) {}

  std::string_view name() const override;
  const InterPodAffinityArgs& args() const { return args_; }

  // PreFilter / Filter (filtering.cpp).
  scheduling::framework::Status preFilter(
      scheduling::framework::CycleState& state, const scheduling::framework::PodInfo& pod,
      std::span<const scheduling::framework::NodeInfo* const> nodes) const override;
  const scheduling::framework::PreFilterExtensions* preFilterExtensions() const override {
    return this;
  }
  scheduling::framework::Status addPod(scheduling::framework::CycleState& state,
                                       const scheduling::framework::PodInfo& podToSchedule,
                                       const scheduling::framework::PodInfo& podToAdd,
                                       const scheduling::framework::NodeInfo& node) const override;
  bool nominatedPodLeavesStateUnchanged(const scheduling::framework::CycleState& state,
                                        const scheduling::framework::PodInfo& podToSchedule,
                                        const scheduling::framework::PodInfo& nominated,
                                        const scheduling::framework::NodeInfo& node) const override;
  scheduling::framework::Status removePod(
      scheduling::framework::CycleState& state, const scheduling::framework::PodInfo& podToSchedule,
      const scheduling::framework::PodInfo& podToRemove,
      const scheduling::framework::NodeInfo& node) const override;
  scheduling::framework::Status filter(const scheduling::framework::CycleState& state,
                                       const scheduling::framework::PodInfo& pod,
                                       const scheduling::framework::NodeInfo& node) const override;
  // Filter reads the node's labels and the PreFilter state only.
  bool filterReadsNodePods() const override { return false; }

  // PreScore / Score / NormalizeScore (scoring.cpp).
  scheduling::framework::Status preScore(
      scheduling::framework::CycleState& state, const scheduling::framework::PodInfo& pod,
      std::span<const scheduling::framework::NodeInfo* const> nodes) const override;
  scheduling::framework::Status score(const scheduling::framework::CycleState& state,
                                      const scheduling::framework::PodInfo& pod,
                                      const scheduling::framework::NodeInfo& node,
                                      std::int64_t& score) const override;
  const scheduling::framework::ScoreExtensions* scoreExtensions() const override { return this; }
  scheduling::framework::Status normalizeScore(
      const scheduling::framework::CycleState& state, const scheduling::framework::PodInfo& pod,
      std::span<scheduling::framework::NodeScore> scores) const override;

  // PlacementHints (placement_hints.cpp): which placements the terms above can see.
  bool placementChangesFilter(const scheduling::framework::PodInfo& pod,
                              const scheduling::framework::PodInfo& placed,
                              const scheduling::framework::SharedLister& lister) const override;
  bool placementChangesScore(const scheduling::framework::PodInfo& pod,
                             const scheduling::framework::PodInfo& placed,
                             const scheduling::framework::SharedLister& lister) const override;

 private:
  InterPodAffinityArgs args_;
};

// mergeAffinityTermNamespacesIfNotEmpty (plugin.go): unless the term's namespaceSelector is
// Everything, add the names of every namespace it selects to the term's namespaces and make
// the selector Nothing. Afterwards the term is matched with empty namespace labels.
void mergeAffinityTermNamespacesIfNotEmpty(scheduling::framework::AffinityTerm& term,
                                           const scheduling::framework::SharedLister& lister);

}  // namespace plugins::interpodaffinity
