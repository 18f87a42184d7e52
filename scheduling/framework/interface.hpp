#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "scheduling/framework/cycle_state.hpp"
#include "scheduling/framework/listers.hpp"
#include "scheduling/framework/status.hpp"
#include "scheduling/framework/types.hpp"

// Extension-point interfaces, after pkg/scheduler/framework/interface.go. The incoming pod
// arrives as a PodInfo parsed once per request; a plugin that needs the parse error reads
// PodInfo::parseError().
namespace scheduling::framework {

inline constexpr std::int64_t kMaxNodeScore = 100;
inline constexpr std::int64_t kMinNodeScore = 0;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view name() const = 0;
};

// Lets the runtime evaluate "what if this pod were also / no longer on the node" (nominated
// pods, preemption victims) by updating PreFilter state incrementally.
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status addPod(CycleState& state, const PodInfo& podToSchedule, const PodInfo& podToAdd,
                        const NodeInfo& node) const = 0;
  virtual Status removePod(CycleState& state, const PodInfo& podToSchedule,
                           const PodInfo& podToRemove, const NodeInfo& node) const = 0;
  // Whether addPod(nominated) would leave `state` exactly as it is, for a pod nominated in the
  // snapshot of the state's cycle (a plugin may answer from what its PreFilter learnt about
  // those pods through the lister, without reading the others). Most nominated pods select
  // nothing the incoming pod is concerned with: the runtime then filters the node once
  // instead of copying the state for them (runFilterPluginsWithNominatedPods). False is
  // always right.
  virtual bool nominatedPodLeavesStateUnchanged(const CycleState& /*state*/,
                                                const PodInfo& /*podToSchedule*/,
                                                const PodInfo& /*nominated*/,
                                                const NodeInfo& /*node*/) const {
    return false;
  }
};

class PreFilterPlugin : public virtual Plugin {
 public:
  virtual Status preFilter(CycleState& state, const PodInfo& pod,
                           std::span<const NodeInfo* const> nodes) const = 0;
  // nullptr when the plugin has none.
  virtual const PreFilterExtensions* preFilterExtensions() const = 0;
};

class FilterPlugin : public virtual Plugin {
 public:
  virtual Status filter(const CycleState& state, const PodInfo& pod,
                        const NodeInfo& node) const = 0;
  // Whether the verdict may depend on the pods of the NodeInfo given (upstream's
  // NodeResourcesFit, say), rather than on the CycleState and the Node object alone, as
  // InterPodAffinity's does. True is always right.
  virtual bool filterReadsNodePods() const { return true; }
};

class PreScorePlugin : public virtual Plugin {
 public:
  virtual Status preScore(CycleState& state, const PodInfo& pod,
                          std::span<const NodeInfo* const> nodes) const = 0;
};

struct NodeScore {
  const NodeInfo* node;
  std::int64_t score;
};

class ScoreExtensions {
 public:
  virtual ~ScoreExtensions() = default;
  virtual Status normalizeScore(const CycleState& state, const PodInfo& pod,
                                std::span<NodeScore> scores) const = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  virtual Status score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                       std::int64_t& score) const = 0;
  // nullptr when the plugin does not normalise.
  virtual const ScoreExtensions* scoreExtensions() const = 0;
};

// Whether another pod's placement, once the extender learns of it, can change the plugin's
// Filter verdict or Score for `pod`. kube-scheduler starts the next pod before the previous
// one is bound, and the extender learns of a placement only at /bind or from the watch: it
// holds a request on the pods in flight that its plugins say matter (scheduler::InFlightPods),
// and no other. The question is upstream's queueing hint (isSchedulableAfterPodChange) asked
// the other way round: not "may this event make a rejected pod schedulable" but "may this
// pending placement change an answer about to be given". A false "true" costs a wait; a false
// "false" a stale answer, so when in doubt a plugin answers true. Plugins that do not
// implement it depend on no placement.
class PlacementHints {
 public:
  virtual ~PlacementHints() = default;
  // `placed` may be put on any node; `lister` gives namespace labels for namespaceSelectors.
  virtual bool placementChangesFilter(const PodInfo& pod, const PodInfo& placed,
                                      const SharedLister& lister) const = 0;
  virtual bool placementChangesScore(const PodInfo& pod, const PodInfo& placed,
                                     const SharedLister& lister) const = 0;
};

}  // namespace scheduling::framework
