// PreFilter, AddPod/RemovePod and Filter of InterPodAffinity, after upstream's
// pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (default path, hostname fast
// path off).

#include "plugins/interpodaffinity/filtering.hpp"

#include <string>

#include "plugins/interpodaffinity/plugin.hpp"

namespace plugins::interpodaffinity {

namespace fw = scheduling::framework;
namespace api = scheduling::api;

namespace {

const api::Labels kNoLabels;

// getPreFilterState's error for a missing state; framework.ErrNotFound reads "not found".
fw::Status missingPreFilterState() {
  return fw::Status::error("error reading \"" + std::string(kPreFilterStateKey) +
                           "\" from cycleState: not found");
}

}  // namespace

// --- TopologyToMatchedTermCount ------------------------------------------------------------

TopologyToMatchedTermCount::TopologyToMatchedTermCount(TopologyCountMap base) {
  auto shared = std::make_shared<Base>();
  for (const auto& [pair, n] : base) {
    if (n != 0) ++nonZero_;
    const std::string_view key = pair.key;  // Clang 14 cannot capture a structured binding
    auto it = std::find_if(shared->keys.begin(), shared->keys.end(),
                           [key](const auto& entry) { return entry.first == key; });
    if (it == shared->keys.end()) it = shared->keys.insert(it, {pair.key, ValueCounts{}});
    it->second.emplace(pair.value, n);
  }
  base_ = shared.get();
  ownedBase_ = std::move(shared);
}

TopologyToMatchedTermCount TopologyToMatchedTermCount::borrowingCopy() const {
  TopologyToMatchedTermCount copy;
  copy.base_ = base_;
  copy.delta_ = delta_;
  copy.nonZero_ = nonZero_;
  return copy;
}

std::int64_t TopologyToMatchedTermCount::baseCount(TopologyPair pair) const {
  if (base_ == nullptr) return 0;
  const ValueCounts* values = base_->find(pair.key);
  if (values == nullptr) return 0;
  auto it = values->find(pair.value);
  return it == values->end() ? 0 : it->second;
}

std::int64_t TopologyToMatchedTermCount::deltaCount(TopologyPair pair) const {
  if (delta_.empty()) return 0;  // the rule outside the nominated-pods pass: skip the hash
  auto it = delta_.find(pair);
  return it == delta_.end() ? 0 : it->second;
}

std::int64_t TopologyToMatchedTermCount::count(std::string_view key, std::string_view value) const {
  const TopologyPair pair{key, value};
  return baseCount(pair) + deltaCount(pair);
}

void TopologyToMatchedTermCount::add(std::string_view key, std::string_view value,
                                     std::int64_t delta) {
  if (delta == 0) return;
  const TopologyPair pair{key, value};
  const std::int64_t base = baseCount(pair);
  auto it = delta_.find(pair);
  const std::int64_t before = base + (it == delta_.end() ? 0 : it->second);
  const std::int64_t after = before + delta;
  if (before == 0) ++nonZero_;
  if (after == 0) --nonZero_;
  if (it == delta_.end()) {
    delta_.emplace(OwnedPair{std::string(key), std::string(value)}, delta);
  } else if (after == base) {
    delta_.erase(it);  // back to the base value: nothing left to overlay
  } else {
    it->second += delta;
  }
}

bool TopologyToMatchedTermCount::anyPositiveOn(const api::Labels& nodeLabels) const {
  if (nonZero_ == 0) return false;
  if (base_ != nullptr) {
    for (const auto& [key, values] : base_->keys) {
      const auto label = nodeLabels.find(key);
      if (!label) continue;
      auto it = values.find(label->second);
      const std::int64_t base = it == values.end() ? 0 : it->second;
      if (base + deltaCount({label->first, label->second}) > 0) return true;
    }
  }
  for (const auto& [pair, d] : delta_) {
    const auto value = nodeLabels.get(pair.key);
    if (value.has_value() && *value == pair.value && count(pair.key, pair.value) > 0) return true;
  }
  return false;
}

std::map<std::pair<std::string, std::string>, std::int64_t> TopologyToMatchedTermCount::toMap()
    const {
  std::map<std::pair<std::string, std::string>, std::int64_t> out;
  if (base_ != nullptr) {
    for (const auto& [key, values] : base_->keys) {
      for (const auto& [value, n] : values) out[{std::string(key), std::string(value)}] += n;
    }
  }
  for (const auto& [pair, d] : delta_) out[{pair.key, pair.value}] += d;
  std::erase_if(out, [](const auto& entry) { return entry.second == 0; });
  return out;
}

// --- preFilterState ------------------------------------------------------------------------

std::unique_ptr<fw::StateData> PreFilterState::clone() const {
  auto copy = std::make_unique<PreFilterState>();
  copy->existingAntiAffinityCounts = existingAntiAffinityCounts.borrowingCopy();
  copy->affinityCounts = affinityCounts.borrowingCopy();
  copy->antiAffinityCounts = antiAffinityCounts.borrowingCopy();
  copy->podInfo = podInfo;
  copy->namespaceLabels = namespaceLabels;
  copy->podMatchesAllOwnAffinityTerms = podMatchesAllOwnAffinityTerms;
  return copy;
}

bool podMatchesAllAffinityTerms(const std::vector<fw::AffinityTerm>& terms, const api::Pod& pod) {
  if (terms.empty()) return false;
  for (const auto& term : terms) {
    // The incoming pod's namespaceSelectors were merged into its namespaces: no labels.
    if (!term.matches(pod, kNoLabels)) return false;
  }
  return true;
}

void PreFilterState::updateWithPod(const fw::PodInfo& updated, const fw::NodeInfo& node,
                                   std::int64_t multiplier) {
  const api::Labels& nodeLabels = node.labels();
  const api::Pod& incoming = podInfo->pod();
  // The updated pod's anti-affinity terms against the incoming pod (existing-pods check).
  for (const auto& term : updated.requiredAntiAffinityTerms()) {
    if (!term.matches(incoming, *namespaceLabels)) continue;
    if (const auto label = nodeLabels.find(term.topologyKey)) {
      existingAntiAffinityCounts.add(label->first, label->second, multiplier);
    }
  }
  // The incoming pod's terms against the updated pod.
  const auto& affinityTerms = podInfo->requiredAffinityTerms();
  if (podMatchesAllAffinityTerms(affinityTerms, updated.pod())) {
    for (const auto& term : affinityTerms) {
      if (const auto label = nodeLabels.find(term.topologyKey)) {
        affinityCounts.add(label->first, label->second, multiplier);
      }
    }
  }
  for (const auto& term : podInfo->requiredAntiAffinityTerms()) {
    if (!term.matches(updated.pod(), kNoLabels)) continue;
    if (const auto label = nodeLabels.find(term.topologyKey)) {
      antiAffinityCounts.add(label->first, label->second, multiplier);
    }
  }
}

// --- PreFilter maps through the indexes ----------------------------------------------------

// Upstream walks every node in HavePodsWithRequiredAntiAffinityList and, for each pod there
// and each of its required anti-affinity terms matching the incoming pod, adds 1 at the
// node's pair. Pods sharing an identical term are grouped by the index, which hands over the
// per-node number of (pod, term) occurrences: adding that number is the same sum. Only the
// terms whose selector may match the pod's labels are visited (a term that cannot match adds
// nothing), so a pod nothing selects costs no walk over every workload's terms.
TopologyCountMap existingAntiAffinityCounts(const api::Pod& pod, const api::Labels& nsLabels,
                                            const fw::SharedLister& lister) {
  TopologyCountMap counts;
  lister.forEachExistingTermSelecting(
      fw::TermKind::RequiredAntiAffinity, pod.metadata.labels,
      [&](const fw::AffinityTerm& term, std::int32_t /*weight*/,
          std::span<const fw::NodeTermCount> nodes) {
        if (!term.matches(pod, nsLabels)) return;
        for (const auto& [node, n] : nodes) {
          if (n == 0) continue;
          if (const auto label = node->labels().find(term.topologyKey)) {
            counts[TopologyPair{label->first, label->second}] += n;
          }
        }
      });
  return counts;
}

// Upstream walks every pod of every node: a pod matching ALL required affinity terms adds 1
// per term at the node's pair, and each required anti-affinity term it matches adds 1. Only
// pods selected by a term can contribute, so the index hands over exactly those: for
// affinity, the pods the first term selects (then checked against the other terms); for
// anti-affinity, the pods each term selects.
std::pair<TopologyCountMap, TopologyCountMap> incomingAffinityAntiAffinityCounts(
    const fw::PodInfo& podInfo, const fw::SharedLister& lister) {
  TopologyCountMap affinity;
  TopologyCountMap antiAffinity;
  const auto& affinityTerms = podInfo.requiredAffinityTerms();
  if (!affinityTerms.empty()) {
    lister.forEachPodMatching(
        affinityTerms.front(), [&](const fw::PodInfo& existing, const fw::NodeInfo& node) {
          for (std::size_t i = 1; i < affinityTerms.size(); ++i) {
            if (!affinityTerms[i].matches(existing.pod(), kNoLabels)) return;
          }
          for (const auto& term : affinityTerms) {
            if (const auto label = node.labels().find(term.topologyKey)) {
              affinity[TopologyPair{label->first, label->second}] += 1;
            }
          }
        });
  }
  for (const auto& term : podInfo.requiredAntiAffinityTerms()) {
    lister.forEachPodMatching(term, [&](const fw::PodInfo& /*existing*/, const fw::NodeInfo& node) {
      if (const auto label = node.labels().find(term.topologyKey)) {
        antiAffinity[TopologyPair{label->first, label->second}] += 1;
      }
    });
  }
  return {std::move(affinity), std::move(antiAffinity)};
}

// --- extension points ----------------------------------------------------------------------

fw::Status InterPodAffinity::preFilter(fw::CycleState& state, const fw::PodInfo& pod,
                                       std::span<const fw::NodeInfo* const> /*nodes*/) const {
  if (!pod.parseError().empty()) {
    return fw::Status(fw::Code::UnschedulableAndUnresolvable, "parsing pod: " + pod.parseError());
  }
  const fw::SharedLister& lister = state.snapshot();

  // Resolve the namespaceSelectors of the incoming required terms on a copy of the PodInfo.
  auto incoming = std::make_shared<PreFilterState::Incoming>(
      PreFilterState::Incoming{pod, lister.namespaceLabels(pod.pod().metadata.ns)});
  fw::PodInfo& podInfo = incoming->podInfo;
  for (auto& term : podInfo.mutableRequiredAffinityTerms()) {
    mergeAffinityTermNamespacesIfNotEmpty(term, lister);
  }
  for (auto& term : podInfo.mutableRequiredAntiAffinityTerms()) {
    mergeAffinityTermNamespacesIfNotEmpty(term, lister);
  }

  auto out = std::make_unique<PreFilterState>();
  out->existingAntiAffinityCounts = TopologyToMatchedTermCount(
      existingAntiAffinityCounts(podInfo.pod(), incoming->namespaceLabels, lister));
  const bool hasRequiredTerms =
      !podInfo.requiredAffinityTerms().empty() || !podInfo.requiredAntiAffinityTerms().empty();
  if (hasRequiredTerms) {
    auto [affinity, antiAffinity] = incomingAffinityAntiAffinityCounts(podInfo, lister);
    out->affinityCounts = TopologyToMatchedTermCount(std::move(affinity));
    out->antiAffinityCounts = TopologyToMatchedTermCount(std::move(antiAffinity));
  }
  // Nothing can reject the pod on any node (#114889): Filter and AddPod/RemovePod are
  // skipped for this cycle.
  if (out->existingAntiAffinityCounts.empty() && !hasRequiredTerms) {
    return fw::Status(fw::Code::Skip);
  }
  out->podMatchesAllOwnAffinityTerms =
      podMatchesAllAffinityTerms(podInfo.requiredAffinityTerms(), podInfo.pod());
  out->podInfo = &podInfo;
  out->namespaceLabels = &incoming->namespaceLabels;
  out->ownedIncoming = std::move(incoming);
  state.write(kPreFilterStateKey, std::move(out));
  return {};
}

fw::Status InterPodAffinity::addPod(fw::CycleState& state, const fw::PodInfo& /*podToSchedule*/,
                                    const fw::PodInfo& podToAdd, const fw::NodeInfo& node) const {
  auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return missingPreFilterState();
  s->updateWithPod(podToAdd, node, 1);
  return {};
}

fw::Status InterPodAffinity::removePod(fw::CycleState& state, const fw::PodInfo& /*podToSchedule*/,
                                       const fw::PodInfo& podToRemove,
                                       const fw::NodeInfo& node) const {
  auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return missingPreFilterState();
  s->updateWithPod(podToRemove, node, -1);
  return {};
}

namespace {

// satisfyPodAffinity: every term's pair must have a matching pod, and the node must carry
// every term's topology key. Without any matching pod anywhere, a pod that matches its own
// terms may start the group ("first pod of a group", #91168).
bool satisfyPodAffinity(const PreFilterState& s, const api::Labels& nodeLabels) {
  bool podsExist = true;
  for (const auto& term : s.podInfo->requiredAffinityTerms()) {
    const auto value = nodeLabels.get(term.topologyKey);
    if (!value) return false;  // all topology labels must exist on the node
    if (s.affinityCounts.count(term.topologyKey, *value) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  return s.affinityCounts.empty() && s.podMatchesAllOwnAffinityTerms;
}

// satisfyPodAntiAffinity: no pod matching one of the incoming anti-affinity terms in the
// node's topology domain of that term.
bool satisfyPodAntiAffinity(const PreFilterState& s, const api::Labels& nodeLabels) {
  if (s.antiAffinityCounts.empty()) return true;
  for (const auto& term : s.podInfo->requiredAntiAffinityTerms()) {
    const auto value = nodeLabels.get(term.topologyKey);
    if (value.has_value() && s.antiAffinityCounts.count(term.topologyKey, *value) > 0) {
      return false;
    }
  }
  return true;
}

// satisfyExistingPodsAntiAffinity: no existing pod whose anti-affinity term matches the
// incoming pod in a topology domain the node belongs to.
bool satisfyExistingPodsAntiAffinity(const PreFilterState& s, const api::Labels& nodeLabels) {
  return !s.existingAntiAffinityCounts.anyPositiveOn(nodeLabels);
}

}  // namespace

fw::Status InterPodAffinity::filter(const fw::CycleState& state, const fw::PodInfo& /*pod*/,
                                    const fw::NodeInfo& node) const {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return missingPreFilterState();
  const api::Labels& nodeLabels = node.labels();
  if (!satisfyPodAffinity(*s, nodeLabels)) {
    return fw::Status(fw::Code::UnschedulableAndUnresolvable,
                      std::string(kErrReasonAffinityRulesNotMatch));
  }
  if (!satisfyPodAntiAffinity(*s, nodeLabels)) {
    return fw::Status(fw::Code::Unschedulable, std::string(kErrReasonAntiAffinityRulesNotMatch));
  }
  if (!satisfyExistingPodsAntiAffinity(*s, nodeLabels)) {
    return fw::Status(fw::Code::Unschedulable,
                      std::string(kErrReasonExistingAntiAffinityRulesNotMatch));
  }
  return {};
}

}  // namespace plugins::interpodaffinity
