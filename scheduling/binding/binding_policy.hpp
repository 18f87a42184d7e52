#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/extender_types.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/cache/cache.hpp"
#include "scheduling/scheduler/scheduler.hpp"

namespace scheduling::binding {

// Why /bind refused to place a pod, before any API call: the `reason` label of
// scheduler_extender_bind_refusals_total.
enum class RefusalReason {
  SchedulerName,     // the pod is another scheduler's
  UnknownNode,       // the node is not in the cache
  AlreadyAssigned,   // the cache (or the API server's copy) has the pod on a node already
  NodeNoLongerFits,  // the filter plugins, run again now, reject the node
};
std::string_view reasonName(RefusalReason reason);

struct Refusal {
  RefusalReason reason;
  std::string message;  // what /bind answers, after "binding pod P to node N: "
};

// What /bind may do, whoever calls it: only what kube-scheduler's own binding cycle would ask.
// The extender binds with rights (pods/binding) that no caller has to show, so it refuses, before
// writing anything, a pod of a scheduler it does not serve, a node it does not know, a pod
// already placed, and a placement it would itself have filtered out: the filter plugins run
// again for the pod on that node against the current snapshot, assumed pods included. That last
// check is what lets kube-scheduler's binding-error path repair a placement made on a stale
// answer (a /filter not held for the pod before it, with --in-flight-wait=0s): the binding is
// refused, kube-scheduler forgets the pod and schedules it again on a snapshot that has the
// earlier placement.
//
// The pod checked is the one kube-scheduler sent to /filter, or the API server's copy when none
// is in flight: these checks stop misrouted or stale requests, not a caller able to forge
// /filter, which the listeners keep out (loopback, mutual TLS, allowed client names).
class BindingPolicy {
 public:
  // `schedulerNames`: the profiles this extender serves (--scheduler-names).
  BindingPolicy(std::vector<std::string> schedulerNames, const cache::Cache& cache,
                const Scheduler& scheduler);

  // Before the pod is read: the node is one the cache holds, and the pod, when the call names
  // its UID, is not one the cache already counts on a node.
  std::optional<Refusal> checkTarget(const api::ExtenderBindingArgs& args) const;
  // With the pod in hand: one of our schedulers', not placed, and fitting on `node` now.
  std::optional<Refusal> checkPod(const api::Pod& pod, const std::string& node) const;

  // The scheduler names, as --scheduler-names takes them: "a,b".
  std::string schedulerNames() const;

 private:
  std::optional<Refusal> checkNotAssigned(std::string_view uid) const;

  std::vector<std::string> schedulerNames_;
  const cache::Cache& cache_;
  const Scheduler& scheduler_;
};

}  // namespace scheduling::binding
