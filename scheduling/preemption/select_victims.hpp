#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "scheduling/api/extender_types.hpp"
#include "scheduling/cache/snapshot.hpp"
#include "scheduling/framework/cycle_state.hpp"
#include "scheduling/framework/runtime/framework.hpp"
#include "scheduling/preemption/outcome.hpp"

namespace scheduling::preemption {

// One victim kube-scheduler's dry run chose: its UID, and the pod itself when it was sent
// whole (NodeNameToVictims; null for NodeNameToMetaVictims).
struct GivenVictim {
  std::string_view uid;
  const api::Pod* sent = nullptr;
};

// A candidate node of ExtenderPreemptionArgs, as kube-scheduler sent it.
struct Candidate {
  std::string_view node;
  std::vector<GivenVictim> victims;
  std::int64_t numPDBViolations = 0;
};

struct NodeVictims {
  Outcome outcome = Outcome::Rejected;
  api::MetaVictims victims;  // when not Rejected
};

// SelectVictimsOnNode (plugins/defaultpreemption/default_preemption.go) for a candidate that
// kube-scheduler found with filters of its own, which may not include this extender's: its
// victims were chosen for reasons the extender cannot judge (resources, say), so they all go
// and none is reprieved. When the pod then passes the filter plugins (nominated pods
// included) the candidate is kept as sent. Otherwise every other pod of the node that the
// cache holds there with a priority below the pod's goes too; if the pod still does not pass,
// the node is dropped. Else those pods are reprieved one by one, as upstream reprieves its
// victims: the ones whose eviction would exceed a PodDisruptionBudget first, then the others,
// each group from the most important down (moreImportantPod); a pod whose return makes the
// pod fail again stays a victim. The answer lists the victims sent followed by those added,
// ordered from the most important down as upstream's are (kube-scheduler reads the first as
// the highest priority), and counts those of them whose eviction exceeds a budget.
//
// Thread-safe: candidates are tried concurrently, each on copies of its node and state.
class VictimSelector {
 public:
  // `state` is the cycle's, after PreFilter for `preemptor`, on `snapshot`; all must outlive
  // the selector. `now` (seconds since the Unix epoch) stands for the start of pods without a
  // status.startTime.
  VictimSelector(const framework::runtime::Framework& framework, const framework::CycleState& state,
                 const framework::PodInfo& preemptor, const cache::Snapshot& snapshot,
                 std::int64_t now);

  NodeVictims select(const Candidate& candidate) const;

 private:
  const framework::runtime::Framework& framework_;
  const framework::CycleState& state_;
  const framework::PodInfo& preemptor_;
  const cache::Snapshot& snapshot_;
  std::int64_t now_;
};

}  // namespace scheduling::preemption
