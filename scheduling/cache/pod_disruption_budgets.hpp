#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/pod_disruption_budget.hpp"
#include "scheduling/labels/selector.hpp"

namespace scheduling::cache {

// A PodDisruptionBudget as preemption reads it (FilterVictimsWithPDBViolation), made once when
// the cache receives the object rather than on every /preempt.
struct PodDisruptionBudgetInfo {
  explicit PodDisruptionBudgetInfo(const api::PodDisruptionBudget& pdb);

  // Whether the budget covers `labels`. A nil or empty spec.selector, and one that does not
  // parse, cover no pod: upstream skips such budgets.
  bool selects(const api::Labels& labels) const { return selector.matches(labels); }
  // Whether the pod named so is in status.disruptedPods: its eviction is already counted.
  bool disrupted(std::string_view podName) const;

  std::string name;
  labels::Selector selector = labels::Selector::nothing();
  std::int32_t disruptionsAllowed = 0;
  std::vector<std::string> disruptedPods;  // sorted, unique
};

// The cluster's PodDisruptionBudgets by namespace, for snapshots (upstream reads them from its
// informer's lister when it preempts). Immutable once built: the Cache builds one at a publish
// after a budget changed, sharing with the previous one the lists of the namespaces whose
// budgets did not change, since the disruption controller updates a budget's status whenever
// one of its pods comes or goes.
class PodDisruptionBudgets {
 public:
  using Namespace = std::vector<PodDisruptionBudgetInfo>;  // by name
  using ByNamespace = std::map<std::string, std::shared_ptr<const Namespace>, std::less<>>;

  PodDisruptionBudgets() = default;
  explicit PodDisruptionBudgets(ByNamespace byNamespace) : byNamespace_(std::move(byNamespace)) {}

  // The budgets of namespace `ns`, by name; none for a namespace without any.
  std::span<const PodDisruptionBudgetInfo> inNamespace(std::string_view ns) const;
  const ByNamespace& byNamespace() const { return byNamespace_; }

 private:
  ByNamespace byNamespace_;
};

}  // namespace scheduling::cache
