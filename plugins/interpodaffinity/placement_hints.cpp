#include <algorithm>

#include "plugins/interpodaffinity/plugin.hpp"

namespace plugins::interpodaffinity {

namespace {

using scheduling::framework::AffinityTerm;
using scheduling::framework::PodInfo;
using scheduling::framework::SharedLister;
using scheduling::framework::WeightedAffinityTerm;

// Whether one of `terms`, carried by a pod, selects `other`. Topology keys are not looked at:
// where `other` will land is exactly what is not known yet.
bool anySelects(const std::vector<AffinityTerm>& terms, const PodInfo& other,
                const SharedLister& lister) {
  const auto& labels = lister.namespaceLabels(other.pod().metadata.ns);
  return std::any_of(terms.begin(), terms.end(),
                     [&](const AffinityTerm& t) { return t.matches(other.pod(), labels); });
}

bool anySelects(const std::vector<WeightedAffinityTerm>& terms, const PodInfo& other,
                const SharedLister& lister) {
  const auto& labels = lister.namespaceLabels(other.pod().metadata.ns);
  return std::any_of(terms.begin(), terms.end(), [&](const WeightedAffinityTerm& t) {
    return t.term.matches(other.pod(), labels);
  });
}

}  // namespace

// Filter counts the placed pod when the incoming pod's required terms select it (PreFilter's
// affinity and anti-affinity counts) or when its own required anti-affinity selects the
// incoming pod (the existing pods' anti-affinity count).
bool InterPodAffinity::placementChangesFilter(const PodInfo& pod, const PodInfo& placed,
                                              const SharedLister& lister) const {
  return anySelects(pod.requiredAffinityTerms(), placed, lister) ||
         anySelects(pod.requiredAntiAffinityTerms(), placed, lister) ||
         anySelects(placed.requiredAntiAffinityTerms(), pod, lister);
}

// PreScore's contributions a–e (scoring.cpp): the incoming pod's preferred terms selecting the
// placed pod; the placed pod's required affinity (× hardPodAffinityWeight) and preferred terms
// selecting the incoming pod. Nothing when PreScore skips.
bool InterPodAffinity::placementChangesScore(const PodInfo& pod, const PodInfo& placed,
                                             const SharedLister& lister) const {
  const bool hasPreferred =
      !pod.preferredAffinityTerms().empty() || !pod.preferredAntiAffinityTerms().empty();
  if (args_.ignorePreferredTermsOfExistingPods && !hasPreferred) return false;
  return anySelects(pod.preferredAffinityTerms(), placed, lister) ||
         anySelects(pod.preferredAntiAffinityTerms(), placed, lister) ||
         (args_.hardPodAffinityWeight > 0 &&
          anySelects(placed.requiredAffinityTerms(), pod, lister)) ||
         anySelects(placed.preferredAffinityTerms(), pod, lister) ||
         anySelects(placed.preferredAntiAffinityTerms(), pod, lister);
}

}  // namespace plugins::interpodaffinity
