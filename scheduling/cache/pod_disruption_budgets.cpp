#include "scheduling/cache/pod_disruption_budgets.hpp"

#include <algorithm>

namespace scheduling::cache {

PodDisruptionBudgetInfo::PodDisruptionBudgetInfo(const api::PodDisruptionBudget& pdb)
    : name(pdb.metadata.name),
      disruptionsAllowed(pdb.status.disruptionsAllowed),
      disruptedPods(pdb.status.disruptedPods) {
  // LabelSelectorAsSelector gives Nothing for nil and Everything for {}; the budget is then
  // skipped when its selector is Empty(), that is, Everything.
  std::vector<std::string> errors;
  auto parsed = labels::fromLabelSelector(pdb.spec.selector, errors);
  if (parsed && !parsed->isEverything()) selector = std::move(*parsed);
  std::sort(disruptedPods.begin(), disruptedPods.end());
  disruptedPods.erase(std::unique(disruptedPods.begin(), disruptedPods.end()), disruptedPods.end());
}

bool PodDisruptionBudgetInfo::disrupted(std::string_view podName) const {
  return std::binary_search(disruptedPods.begin(), disruptedPods.end(), podName);
}

std::span<const PodDisruptionBudgetInfo> PodDisruptionBudgets::inNamespace(
    std::string_view ns) const {
  const auto it = byNamespace_.find(ns);
  if (it == byNamespace_.end()) return {};
  return *it->second;
}

}  // namespace scheduling::cache
