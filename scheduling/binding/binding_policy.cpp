#include "scheduling/binding/binding_policy.hpp"

#include <algorithm>

namespace scheduling::binding {

namespace {

// What the API server puts in spec.schedulerName when a pod leaves it empty.
constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

}  // namespace

std::string_view reasonName(RefusalReason reason) {
  switch (reason) {
    case RefusalReason::SchedulerName:
      return "scheduler_name";
    case RefusalReason::UnknownNode:
      return "unknown_node";
    case RefusalReason::AlreadyAssigned:
      return "already_assigned";
    case RefusalReason::NodeNoLongerFits:
      return "node_no_longer_fits";
  }
  return "node_no_longer_fits";
}

BindingPolicy::BindingPolicy(std::vector<std::string> schedulerNames, const cache::Cache& cache,
                             const Scheduler& scheduler)
    : schedulerNames_(std::move(schedulerNames)), cache_(cache), scheduler_(scheduler) {}

std::optional<Refusal> BindingPolicy::checkTarget(const api::ExtenderBindingArgs& args) const {
  const auto snapshot = cache_.snapshot();
  if (snapshot == nullptr || snapshot->getNodeInfo(args.node) == nullptr) {
    return Refusal{RefusalReason::UnknownNode,
                   "node \"" + args.node + "\" is not in the extender's cache"};
  }
  if (args.podUID.empty()) return std::nullopt;  // checkPod looks once the pod is known
  return checkNotAssigned(args.podUID);
}

std::optional<Refusal> BindingPolicy::checkPod(const api::Pod& pod, const std::string& node) const {
  const std::string_view scheduler =
      pod.spec.schedulerName.empty() ? kDefaultSchedulerName : pod.spec.schedulerName;
  if (std::find(schedulerNames_.begin(), schedulerNames_.end(), scheduler) ==
      schedulerNames_.end()) {
    return Refusal{RefusalReason::SchedulerName,
                   "the pod's spec.schedulerName is \"" + std::string(scheduler) +
                       "\", not one this extender binds for (--scheduler-names " +
                       schedulerNames() + ")"};
  }
  // Again, although checkTarget looked when the call named the UID: reading the pod may have
  // waited for the API server, and the watch may have placed it meanwhile.
  if (auto refusal = checkNotAssigned(pod.metadata.uid)) return refusal;
  if (!pod.spec.nodeName.empty()) {
    return Refusal{RefusalReason::AlreadyAssigned,
                   "the API server has the pod on node \"" + pod.spec.nodeName + "\" already"};
  }
  const framework::Status fits = scheduler_.filterNode(pod, node);
  if (!fits.isSuccess()) {
    return Refusal{RefusalReason::NodeNoLongerFits, "node " + node + " no longer fits pod " +
                                                        pod.metadata.ns + "/" + pod.metadata.name +
                                                        ": " + fits.message()};
  }
  return std::nullopt;
}

std::string BindingPolicy::schedulerNames() const {
  std::string text;
  for (const auto& name : schedulerNames_) text += (text.empty() ? "" : ",") + name;
  return text;
}

std::optional<Refusal> BindingPolicy::checkNotAssigned(std::string_view uid) const {
  if (const auto node = cache_.assignedNode(uid)) {
    return Refusal{RefusalReason::AlreadyAssigned,
                   "the extender's cache has the pod on node \"" + *node + "\" already"};
  }
  return std::nullopt;
}

}  // namespace scheduling::binding
