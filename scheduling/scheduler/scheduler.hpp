#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scheduling/api/extender_types.hpp"
#include "scheduling/cache/cache.hpp"
#include "scheduling/framework/runtime/framework.hpp"
#include "scheduling/framework/status.hpp"
#include "scheduling/preemption/select_victims.hpp"
#include "scheduling/scheduler/in_flight_pods.hpp"

namespace scheduling {

// What /explain reports for one node.
struct PluginVerdict {
  std::string plugin;
  framework::Status status;
};

struct PluginScore {
  std::string plugin;
  std::int64_t raw = 0;
  std::int64_t normalized = 0;
  std::int64_t weight = 0;
};

struct NodeExplanation {
  std::string name;
  bool feasible = false;
  std::vector<PluginVerdict> filter;  // empty for nodes sampling never examined
  std::vector<PluginScore> scores;    // feasible nodes only
  std::int64_t total = 0;
  std::int64_t score = 0;
};

struct Explanation {
  std::string pod;  // namespace/name
  std::int64_t numAllNodes = 0;
  std::int64_t numFeasibleNodesToFind = 0;
  std::vector<NodeExplanation> nodes;  // in request order
  std::string error;                   // the framework failed (Error status)
};

// What /preempt answers, and what became of each candidate sent (in request order), for the
// metrics.
struct PreemptionResult {
  api::ExtenderPreemptionResult answer;
  std::vector<preemption::Outcome> outcomes;
};

// The extender verbs whose answers a placement in flight can change.
enum class Verb { Filter, Prioritize, Preempt };

// Runs kube-scheduler's scheduling steps for extender requests (schedule_one.go:
// findNodesThatPassFilters, prioritizeNodes; DefaultPreemption's SelectVictimsOnNode) over the
// nodes a request names and the cache's latest snapshot. Thread-safe: requests run concurrently,
// sharing only the rotating start index.
//
// With `inFlight`, a pod that /filter finds a feasible node for, or that /prioritize scores,
// is in flight until its placement is known, and whenInFlightSettled holds the requests its
// placement can change; the victims /preempt answers are remembered, and the preemptor's
// /filter is held while they are still on the nodes it was sent.
class Scheduler {
 public:
  Scheduler(std::shared_ptr<framework::runtime::Framework> framework,
            std::shared_ptr<const cache::Cache> cache, InFlightPods* inFlight = nullptr);

  // Calls `proceed` once no pod in flight can change what `verb` answers for `pod` (see
  // InFlightPods::whenSettled): at once, in this call, when none can.
  void whenInFlightSettled(Verb verb, const api::Pod& pod, InFlightPods::Proceed proceed) const;
  // The same for the /filter of `args` (Verb::Filter), which, when its pod is a preemptor
  // whose victims kube-scheduler is deleting and the snapshot still shows them on every
  // candidate node sent, also waits until those of one node are gone. Only the node the pod
  // is nominated to counts when it is one of the candidates: kube-scheduler deletes the
  // victims of that node alone.
  void whenInFlightSettled(const api::ExtenderArgs& args, InFlightPods::Proceed proceed) const;

  // PreFilter + Filter with sampling; advances the rotating start index.
  api::ExtenderFilterResult filter(const api::ExtenderArgs& args);
  // PreScore + Score + NormalizeScore over exactly the nodes sent. A framework error is
  // returned as a non-success status (the HTTP layer answers 500).
  framework::Status prioritize(const api::ExtenderArgs& args, api::HostPriorityList& out);
  // Keeps the candidates on which the pod fits once their victims are removed, adding victims
  // of lower priority where those sent are not enough (preemption::VictimSelector). The
  // victims answered are remembered as the pod's preemption in progress.
  PreemptionResult preempt(const api::ExtenderPreemptionArgs& args) const;
  // Filter then score the feasible nodes, as a dry run (the start index does not move).
  Explanation explain(const api::ExtenderArgs& args);
  // PreFilter then Filter (nominated pods included) for `pod` on one node of the latest
  // snapshot, with no sampling and nothing tracked: what /filter would say of that node now.
  // Success when the pod fits; an unknown node is UnschedulableAndUnresolvable.
  framework::Status filterNode(const api::Pod& pod, std::string_view node) const;

 private:
  // A scheduling cycle on `snapshot`, sampled for the plugin-duration metric or not.
  framework::CycleState newCycle(std::shared_ptr<const framework::SharedLister> snapshot) const;

  std::shared_ptr<framework::runtime::Framework> framework_;
  // Both whenInFlightSettled; `filterArgs` for a /filter, null otherwise.
  void whenSettled(Verb verb, const api::Pod& pod, const api::ExtenderArgs* filterArgs,
                   InFlightPods::Proceed proceed) const;
  // After an answer that lets kube-scheduler place the pod.
  void track(framework::PodInfoPtr pod) const;
  // preempt() without remembering its answer.
  PreemptionResult selectVictims(const api::ExtenderPreemptionArgs& args) const;

  std::shared_ptr<const cache::Cache> cache_;
  InFlightPods* inFlight_;
  std::atomic<std::int64_t> nextStartNodeIndex_{0};
};

}  // namespace scheduling
