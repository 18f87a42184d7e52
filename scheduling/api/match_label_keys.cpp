#include "scheduling/api/match_label_keys.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace scheduling::api {

namespace {

void applyLabelKeys(LabelSelector& selector, const std::vector<std::string>& keys, const char* op,
                    const Labels& podLabels) {
  for (const auto& key : keys) {
    const auto value = podLabels.get(key);
    if (!value) continue;
    LabelSelectorRequirement requirement{key, op, {std::string(*value)}};
    auto& expressions = selector.matchExpressions;
    if (std::find(expressions.begin(), expressions.end(), requirement) == expressions.end()) {
      expressions.push_back(std::move(requirement));
    }
  }
}

void applyToTerm(PodAffinityTerm& term, const Labels& podLabels) {
  // A nil selector matches nothing, with or without the keys.
  if (!term.labelSelector) return;
  applyLabelKeys(*term.labelSelector, term.matchLabelKeys, "In", podLabels);
  applyLabelKeys(*term.labelSelector, term.mismatchLabelKeys, "NotIn", podLabels);
}

void applyToAffinity(std::optional<PodAffinity>& affinity, const Labels& podLabels) {
  if (!affinity) return;
  for (auto& weighted : affinity->preferredDuringSchedulingIgnoredDuringExecution) {
    applyToTerm(weighted.podAffinityTerm, podLabels);
  }
  for (auto& term : affinity->requiredDuringSchedulingIgnoredDuringExecution) {
    applyToTerm(term, podLabels);
  }
}

}  // namespace

void applyMatchLabelKeysAndMismatchLabelKeys(Pod& pod) {
  if (!pod.spec.affinity) return;
  applyToAffinity(pod.spec.affinity->podAffinity, pod.metadata.labels);
  applyToAffinity(pod.spec.affinity->podAntiAffinity, pod.metadata.labels);
}

void mergeLabelKeysUnlessStored(Pod& pod) {
  if (!pod.metadata.storedByApiServer) applyMatchLabelKeysAndMismatchLabelKeys(pod);
}

}  // namespace scheduling::api
