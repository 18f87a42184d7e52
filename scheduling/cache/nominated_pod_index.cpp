#include "scheduling/cache/nominated_pod_index.hpp"

#include <unordered_map>
#include <utility>

namespace scheduling::cache {

NominatedPodIndex::NominatedPodIndex(
    const NominatedPodsByNode& byNode,
    std::vector<std::shared_ptr<const NamespacePodIndex>> byNamespace)
    : byNamespace_(std::move(byNamespace)) {
  std::size_t total = 0;
  for (const auto& [node, queue] : byNode) total += queue.size();
  pods_.reserve(total);
  rangeByNode_.reserve(byNode.size());
  std::unordered_map<const framework::AffinityTerm*, std::uint32_t> termPositions;
  for (const auto& [node, queue] : byNode) {
    const auto begin = static_cast<std::uint32_t>(pods_.size());
    for (const framework::PodInfoPtr& pod : queue) {
      pods_.emplace_back(pod);
      // Replicas of one workload share their parsed terms (AffinityTermPool), so the
      // address identifies a term for them all.
      for (const framework::AffinityTerm& term : pod->requiredAntiAffinityTerms()) {
        auto [it, added] =
            termPositions.try_emplace(&term, static_cast<std::uint32_t>(antiAffinityTerms_.size()));
        if (added) {
          antiAffinityTerms_.push_back(&term);
          podsByAntiAffinityTerm_.emplace_back();
        }
        podsByAntiAffinityTerm_[it->second].push_back(pod.get());
      }
    }
    nodeNames_.intern(node);
    rangeByNode_.push_back({begin, static_cast<std::uint32_t>(pods_.size())});
  }
  antiAffinityBySelector_.emplace(antiAffinityTerms_);
}

std::span<const framework::NominatedPod> NominatedPodIndex::forNode(std::string_view node) const {
  const std::uint32_t id = nodeNames_.find(node);
  return id == framework::StringTable::kNotFound ? std::span<const framework::NominatedPod>()
                                                 : pods(rangeByNode_[id]);
}

void NominatedPodIndex::forEachMatching(
    const framework::AffinityTerm& term,
    const std::function<void(const framework::PodInfo& pod)>& fn) const {
  forEachNamespaceSelectedBy(
      term, std::span(byNamespace_),
      [](const std::shared_ptr<const NamespacePodIndex>& index) -> const std::string& {
        return index->ns();
      },
      [&](const std::shared_ptr<const NamespacePodIndex>& index) {
        // The namespace is selected: the label selector is what is left of term.matches.
        index->forEachMatching(term.selector,
                               [&](const NamespacePodIndex::Entry& e) { fn(*e.pod); });
      });
}

void NominatedPodIndex::forEachWithRequiredAntiAffinitySelecting(
    std::string_view podNamespace, const api::Labels& podLabels,
    const std::function<void(const framework::AffinityTerm& term, const framework::PodInfo& pod)>&
        fn) const {
  antiAffinityBySelector_->forEachCandidate(podNamespace, podLabels, [&](std::uint32_t position) {
    for (const framework::PodInfo* pod : podsByAntiAffinityTerm_[position]) {
      fn(*antiAffinityTerms_[position], *pod);
    }
  });
}

}  // namespace scheduling::cache
