#include "scheduling/preemption/pdb_violation.hpp"

#include <cstdint>
#include <unordered_map>

namespace scheduling::preemption {

std::vector<bool> filterPodsWithPDBViolation(std::span<const api::Pod* const> pods,
                                             const cache::Snapshot& snapshot) {
  // What each budget met so far still allows, in a wider type than the status's, as a pod
  // that finds its budget spent still takes one.
  std::unordered_map<const cache::PodDisruptionBudgetInfo*, std::int64_t> allowed;
  const auto violates = [&](const api::Pod& pod) {
    if (pod.metadata.labels.empty()) return false;
    for (const cache::PodDisruptionBudgetInfo& pdb :
         snapshot.podDisruptionBudgets(pod.metadata.ns)) {
      if (!pdb.selects(pod.metadata.labels) || pdb.disrupted(pod.metadata.name)) continue;
      const auto left = allowed.try_emplace(&pdb, pdb.disruptionsAllowed).first;
      // The first budget the pod exceeds decides; the ones after it are not charged.
      if (--left->second < 0) return true;
    }
    return false;
  };
  std::vector<bool> violating;
  violating.reserve(pods.size());
  for (const api::Pod* pod : pods) violating.push_back(violates(*pod));
  return violating;
}

}  // namespace scheduling::preemption
