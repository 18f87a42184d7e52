#include "scheduling/cache/nominated_pod_index.hpp"

namespace scheduling::cache {

std::span<const framework::NominatedPod> NominatedPodIndex::forNode(std::string_view node) const {
  return forNode(parts_.names->find(node), [node] { return node; });
}

std::span<const framework::NominatedPod> NominatedPodIndex::forUnknownNode(
    std::string_view node) const {
  auto it = parts_.byUnknownName->find(node);
  return it == parts_.byUnknownName->end() ? std::span<const framework::NominatedPod>()
                                           : std::span<const framework::NominatedPod>(*it->second);
}

void NominatedPodIndex::forEachMatching(
    const framework::AffinityTerm& term,
    const std::function<void(const framework::PodInfo& pod)>& fn) const {
  forEachNamespaceSelectedBy(
      term, std::span(parts_.byNamespace),
      [](const NamespacePodIndex* index) -> const std::string& { return index->ns(); },
      [&](const NamespacePodIndex* index) {
        // The namespace is selected: the label selector is what is left of term.matches.
        index->forEachMatching(term.selector,
                               [&](const NamespacePodIndex::Entry& e) { fn(*e.pod); });
      });
}

void NominatedPodIndex::forEachWithRequiredAntiAffinitySelecting(
    std::string_view podNamespace, const api::Labels& podLabels,
    const std::function<void(const framework::AffinityTerm& term, const framework::PodInfo& pod)>&
        fn) const {
  // A term is in the any-namespace shard or in those of the namespaces it lists: each pair
  // comes once.
  const auto visit = [&](const std::shared_ptr<const TermShard>& shard) {
    if (!shard) return;
    shard->bySelector.forEachCandidate(podNamespace, podLabels, [&](std::uint32_t local) {
      const AntiAffinityTerm& entry = parts_.antiAffinityTerms[shard->positions[local]];
      for (const framework::PodInfoPtr& pod : *entry.pods) fn(*entry.term, *pod);
    });
  };
  visit(parts_.termShards[kAnyNamespaceShard]);
  visit(parts_.termShards[shardOf(podNamespace)]);
}

}  // namespace scheduling::cache
