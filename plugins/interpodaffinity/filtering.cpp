// PreFilter, AddPod/RemovePod and Filter of InterPodAffinity, after upstream's
// pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (default path, hostname fast
// path off).

#include "plugins/interpodaffinity/filtering.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <tuple>

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

void TopologyToMatchedTermCount::addToBase(const TopologyKey& key, const TopologyValue& value,
                                           std::int64_t n) {
  if (!value.present() || n == 0) return;
  // A domain the snapshot does not know cannot sit in the arrays: it goes with the deltas,
  // which every copy carries. PreFilter counts pods on the snapshot's own nodes, whose
  // domains are all known, so this does not happen there.
  if (!value.known()) return add(key, value, n);
  KeyCounts* k = nullptr;
  addKnownToBase(k, key, value, n);
}

TopologyToMatchedTermCount::KeyCounts& TopologyToMatchedTermCount::baseCountsOf(
    const TopologyKey& key) {
  if (!ownedBase_) {
    ownedBase_ = std::make_shared<Base>();
    base_ = ownedBase_.get();
  }
  auto it = std::find_if(ownedBase_->keys.begin(), ownedBase_->keys.end(),
                         [&](const KeyCounts& k) { return k.key == key; });
  if (it == ownedBase_->keys.end()) {
    it = ownedBase_->keys.insert(
        it, KeyCounts{key, std::vector<std::int64_t>(key.column()->numValues(), 0)});
  }
  return *it;
}

inline void TopologyToMatchedTermCount::addKnownToBase(KeyCounts*& k, const TopologyKey& key,
                                                       const TopologyValue& value, std::int64_t n) {
  if (k == nullptr) k = &baseCountsOf(key);
  std::int64_t& count = k->byValue[value.id];
  // PreFilter counts before any delta exists; the deltas are read only if there are some.
  const std::int64_t before = count + (deltas_.empty() ? 0 : deltaCount(key, value));
  count += n;
  if (before == 0) ++nonZero_;
  if (before + n == 0) --nonZero_;
}

void TopologyToMatchedTermCount::addToBaseAtNodes(const TopologyKey& key,
                                                  std::span<const fw::NodeTermCount> nodes) {
  // A slot's value is an id of the key's column or absent, never unknown text.
  KeyCounts* k = nullptr;
  for (const auto& [slot, n] : nodes) {
    const TopologyValue value = key.valueAt(slot);
    if (value.known() && n != 0) addKnownToBase(k, key, value, n);
  }
}

void TopologyToMatchedTermCount::addToBaseAtNodes(const TopologyKey& key,
                                                  std::span<const fw::NodeSlot> slots) {
  KeyCounts* k = nullptr;
  for (const fw::NodeSlot slot : slots) {
    const TopologyValue value = key.valueAt(slot);
    if (value.known()) addKnownToBase(k, key, value, 1);
  }
}

TopologyToMatchedTermCount TopologyToMatchedTermCount::borrowingCopy() const {
  TopologyToMatchedTermCount copy;
  copy.base_ = base_;
  copy.deltas_ = deltas_;
  copy.nonZero_ = nonZero_;
  return copy;
}

std::int64_t TopologyToMatchedTermCount::baseCount(const TopologyKey& key,
                                                   const TopologyValue& value) const {
  if (base_ == nullptr || !value.known()) return 0;
  for (const KeyCounts& k : base_->keys) {
    if (k.key == key) return k.byValue[value.id];
  }
  return 0;
}

std::int64_t TopologyToMatchedTermCount::deltaCount(const TopologyKey& key,
                                                    const TopologyValue& value) const {
  for (const Delta& d : deltas_) {
    if (d.value == value && d.key == key) return d.delta;
  }
  return 0;
}

std::int64_t TopologyToMatchedTermCount::count(const TopologyKey& key,
                                               const TopologyValue& value) const {
  return baseCount(key, value) + deltaCount(key, value);
}

void TopologyToMatchedTermCount::add(const TopologyKey& key, const TopologyValue& value,
                                     std::int64_t delta) {
  if (!value.present() || delta == 0) return;
  const std::int64_t before = count(key, value);
  if (before == 0) ++nonZero_;
  if (before + delta == 0) --nonZero_;
  auto it = std::find_if(deltas_.begin(), deltas_.end(),
                         [&](const Delta& d) { return d.value == value && d.key == key; });
  if (it == deltas_.end()) {
    deltas_.push_back({key, value, delta});
  } else if ((it->delta += delta) == 0) {
    // Back to the base value: nothing left to overlay.
    *it = deltas_.back();
    deltas_.pop_back();
  }
}

bool TopologyToMatchedTermCount::anyPositiveOn(const fw::NodeInfo& node) const {
  if (nonZero_ == 0) return false;
  if (base_ != nullptr) {
    for (const KeyCounts& k : base_->keys) {
      const TopologyValue value = k.key.valueOf(node);
      if (value.known() && k.byValue[value.id] + deltaCount(k.key, value) > 0) return true;
    }
  }
  for (const Delta& d : deltas_) {
    if (d.key.valueOf(node) == d.value && count(d.key, d.value) > 0) return true;
  }
  return false;
}

std::map<std::pair<std::string, std::string>, std::int64_t> TopologyToMatchedTermCount::toMap()
    const {
  std::map<std::pair<std::string, std::string>, std::int64_t> out;
  if (base_ != nullptr) {
    for (const KeyCounts& k : base_->keys) {
      for (std::size_t id = 0; id < k.byValue.size(); ++id) {
        if (k.byValue[id] == 0) continue;
        const TopologyValue value{static_cast<fw::TopologyValueId>(id), {}};
        out[{std::string(k.key.name()), std::string(k.key.text(value))}] += k.byValue[id];
      }
    }
  }
  for (const Delta& d : deltas_) {
    out[{std::string(d.key.name()), std::string(d.key.text(d.value))}] += d.delta;
  }
  std::erase_if(out, [](const auto& entry) { return entry.second == 0; });
  return out;
}

// --- preFilterState ------------------------------------------------------------------------

std::unique_ptr<fw::StateData> PreFilterState::clone() const {
  auto copy = std::make_unique<PreFilterState>();
  copy->existingAntiAffinityCounts = existingAntiAffinityCounts.borrowingCopy();
  copy->affinityCounts = affinityCounts.borrowingCopy();
  copy->antiAffinityCounts = antiAffinityCounts.borrowingCopy();
  copy->incoming = incoming;
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

template <typename Fn>
void PreFilterState::forEachCountOf(const fw::PodInfo& updated, Fn fn) const {
  const api::Pod& pod = incoming->podInfo.pod();
  // The updated pod's anti-affinity terms against the incoming pod (existing-pods check).
  for (const auto& term : updated.requiredAntiAffinityTerms()) {
    if (!term.matches(pod, incoming->namespaceLabels)) continue;
    if (!fn(&PreFilterState::existingAntiAffinityCounts,
            fw::TopologyKey(term.topologyKey, *incoming->topology)))
      return;
  }
  // The incoming pod's terms against the updated pod.
  const auto& affinityTerms = incoming->podInfo.requiredAffinityTerms();
  if (podMatchesAllAffinityTerms(affinityTerms, updated.pod())) {
    for (const fw::TopologyKey& key : incoming->affinityKeys) {
      if (!fn(&PreFilterState::affinityCounts, key)) return;
    }
  }
  const auto& antiAffinityTerms = incoming->podInfo.requiredAntiAffinityTerms();
  for (std::size_t i = 0; i < antiAffinityTerms.size(); ++i) {
    if (!antiAffinityTerms[i].matches(updated.pod(), kNoLabels)) continue;
    if (!fn(&PreFilterState::antiAffinityCounts, incoming->antiAffinityKeys[i])) return;
  }
}

void PreFilterState::updateWithPod(const fw::PodInfo& updated, const fw::NodeInfo& node,
                                   std::int64_t multiplier) {
  forEachCountOf(
      updated, [&](TopologyToMatchedTermCount PreFilterState::*counts, const fw::TopologyKey& key) {
        (this->*counts).add(key, key.valueOf(node), multiplier);
        return true;
      });
}

bool PreFilterState::updateChangesCounts(const fw::PodInfo& updated) const {
  bool changes = false;
  forEachCountOf(updated, [&](TopologyToMatchedTermCount PreFilterState::* /*counts*/,
                              const fw::TopologyKey& /*key*/) {
    changes = true;
    return false;
  });
  return changes;
}

bool PreFilterState::nominatedPodLeavesCountsUnchanged(const fw::PodInfo& nominated,
                                                       const fw::NodeInfo& node) const {
  const auto& changing = incoming->nominatedPodsChangingCounts;
  if (!std::binary_search(changing.begin(), changing.end(), &nominated, std::less<>())) {
    return true;
  }
  bool unchanged = true;
  forEachCountOf(nominated, [&](TopologyToMatchedTermCount PreFilterState::* /*counts*/,
                                const fw::TopologyKey& key) {
    // add() changes nothing at a node without the key.
    unchanged = !key.valueOf(node).present();
    return unchanged;
  });
  return unchanged;
}

// Only a pod some term selects can change a count: one whose required anti-affinity term
// selects the incoming pod, or one that the incoming pod's required terms select (the
// affinity terms all of them, so the first one in particular). The indexes hand over those
// candidates; each is then checked with the walk AddPod itself makes.
std::vector<const fw::PodInfo*> nominatedPodsChangingCounts(const PreFilterState& state,
                                                            const fw::SharedLister& lister) {
  std::vector<const fw::PodInfo*> found;
  const auto consider = [&](const fw::PodInfo& pod) {
    if (state.updateChangesCounts(pod)) found.push_back(&pod);
  };
  const fw::PodInfo& incoming = state.incoming->podInfo;
  lister.forEachNominatedPodWithRequiredAntiAffinitySelecting(
      incoming.pod().metadata.ns, incoming.pod().metadata.labels,
      [&](const fw::AffinityTerm& /*term*/, const fw::PodInfo& pod) { consider(pod); });
  if (!incoming.requiredAffinityTerms().empty()) {
    lister.forEachNominatedPodMatching(incoming.requiredAffinityTerms().front(), consider);
  }
  for (const auto& term : incoming.requiredAntiAffinityTerms()) {
    lister.forEachNominatedPodMatching(term, consider);
  }
  std::sort(found.begin(), found.end(), std::less<>());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

// --- PreFilter maps through the indexes ----------------------------------------------------

// Upstream walks every node in HavePodsWithRequiredAntiAffinityList and, for each pod there
// and each of its required anti-affinity terms matching the incoming pod, adds 1 at the
// node's pair. Pods sharing an identical term are grouped by the index, which hands over the
// per-node number of (pod, term) occurrences: adding that number is the same sum. Only the
// terms whose selector may match the pod's labels are visited (a term that cannot match adds
// nothing), so a pod nothing selects costs no walk over every workload's terms.
TopologyToMatchedTermCount existingAntiAffinityCounts(const api::Pod& pod,
                                                      const api::Labels& nsLabels,
                                                      const fw::SharedLister& lister) {
  TopologyToMatchedTermCount counts;
  lister.forEachExistingTermSelecting(
      fw::TermKind::RequiredAntiAffinity, pod.metadata.ns, pod.metadata.labels,
      [&](const fw::AffinityTerm& term, std::int32_t /*weight*/,
          std::span<const fw::NodeTermCount> nodes) {
        if (!term.matches(pod, nsLabels)) return;
        const fw::TopologyKey key(term.topologyKey, lister.topology());
        counts.addToBaseAtNodes(key, nodes);
      });
  return counts;
}

// Upstream walks every pod of every node: a pod matching ALL required affinity terms adds 1
// per term at the node's pair, and each required anti-affinity term it matches adds 1. Only
// pods selected by a term can contribute, so the index hands over exactly those: for
// affinity, the pods the first term selects (then checked against the other terms); for
// anti-affinity, the pods each term selects.
std::pair<TopologyToMatchedTermCount, TopologyToMatchedTermCount>
incomingAffinityAntiAffinityCounts(const fw::PodInfo& podInfo, const fw::SharedLister& lister) {
  TopologyToMatchedTermCount affinity;
  TopologyToMatchedTermCount antiAffinity;
  const auto& affinityTerms = podInfo.requiredAffinityTerms();
  if (!affinityTerms.empty()) {
    std::vector<fw::TopologyKey> keys;
    for (const auto& term : affinityTerms) keys.emplace_back(term.topologyKey, lister.topology());
    lister.forEachPodMatching(affinityTerms.front(),
                              [&](const fw::PodInfo& existing, fw::NodeSlot node) {
                                for (std::size_t i = 1; i < affinityTerms.size(); ++i) {
                                  if (!affinityTerms[i].matches(existing.pod(), kNoLabels)) return;
                                }
                                for (const fw::TopologyKey& key : keys)
                                  affinity.addToBase(key, key.valueAt(node), 1);
                              });
  }
  for (const auto& term : podInfo.requiredAntiAffinityTerms()) {
    const fw::TopologyKey key(term.topologyKey, lister.topology());
    lister.forEachNodeOfPodMatching(term, [&](std::span<const fw::NodeSlot> nodes) {
      antiAffinity.addToBaseAtNodes(key, nodes);
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
  auto incoming = std::make_shared<PreFilterState::Incoming>(PreFilterState::Incoming{
      pod, lister.namespaceLabels(pod.pod().metadata.ns), &lister.topology(), {}, {}, {}});
  fw::PodInfo& podInfo = incoming->podInfo;
  for (auto& term : podInfo.mutableRequiredAffinityTerms()) {
    mergeAffinityTermNamespacesIfNotEmpty(term, lister);
    incoming->affinityKeys.emplace_back(term.topologyKey, lister.topology());
  }
  for (auto& term : podInfo.mutableRequiredAntiAffinityTerms()) {
    mergeAffinityTermNamespacesIfNotEmpty(term, lister);
    incoming->antiAffinityKeys.emplace_back(term.topologyKey, lister.topology());
  }

  auto out = std::make_unique<PreFilterState>();
  out->existingAntiAffinityCounts =
      existingAntiAffinityCounts(podInfo.pod(), incoming->namespaceLabels, lister);
  const bool hasRequiredTerms =
      !podInfo.requiredAffinityTerms().empty() || !podInfo.requiredAntiAffinityTerms().empty();
  if (hasRequiredTerms) {
    std::tie(out->affinityCounts, out->antiAffinityCounts) =
        incomingAffinityAntiAffinityCounts(podInfo, lister);
  }
  // Nothing can reject the pod on any node (#114889): Filter and AddPod/RemovePod are
  // skipped for this cycle.
  if (out->existingAntiAffinityCounts.empty() && !hasRequiredTerms) {
    return fw::Status(fw::Code::Skip);
  }
  out->podMatchesAllOwnAffinityTerms =
      podMatchesAllAffinityTerms(podInfo.requiredAffinityTerms(), podInfo.pod());
  out->incoming = incoming.get();
  incoming->nominatedPodsChangingCounts = nominatedPodsChangingCounts(*out, lister);
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

bool InterPodAffinity::nominatedPodLeavesStateUnchanged(const fw::CycleState& state,
                                                        const fw::PodInfo& /*podToSchedule*/,
                                                        const fw::PodInfo& nominated,
                                                        const fw::NodeInfo& node) const {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  return s != nullptr && s->nominatedPodLeavesCountsUnchanged(nominated, node);
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

// satisfyPodAffinity: every term's domain must have a matching pod, and the node must carry
// every term's topology key. Without any matching pod anywhere, a pod that matches its own
// terms may start the group ("first pod of a group", #91168).
bool satisfyPodAffinity(const PreFilterState& s, const fw::NodeInfo& node) {
  bool podsExist = true;
  for (const fw::TopologyKey& key : s.incoming->affinityKeys) {
    const fw::TopologyValue value = key.valueOf(node);
    if (!value.present()) return false;  // all topology labels must exist on the node
    if (s.affinityCounts.count(key, value) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  return s.affinityCounts.empty() && s.podMatchesAllOwnAffinityTerms;
}

// satisfyPodAntiAffinity: no pod matching one of the incoming anti-affinity terms in the
// node's topology domain of that term.
bool satisfyPodAntiAffinity(const PreFilterState& s, const fw::NodeInfo& node) {
  if (s.antiAffinityCounts.empty()) return true;
  for (const fw::TopologyKey& key : s.incoming->antiAffinityKeys) {
    const fw::TopologyValue value = key.valueOf(node);
    if (value.present() && s.antiAffinityCounts.count(key, value) > 0) return false;
  }
  return true;
}

// satisfyExistingPodsAntiAffinity: no existing pod whose anti-affinity term matches the
// incoming pod in a topology domain the node belongs to.
bool satisfyExistingPodsAntiAffinity(const PreFilterState& s, const fw::NodeInfo& node) {
  return !s.existingAntiAffinityCounts.anyPositiveOn(node);
}

}  // namespace

fw::Status InterPodAffinity::filter(const fw::CycleState& state, const fw::PodInfo& /*pod*/,
                                    const fw::NodeInfo& node) const {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return missingPreFilterState();
  if (!satisfyPodAffinity(*s, node)) {
    return fw::Status(fw::Code::UnschedulableAndUnresolvable,
                      fw::StaticReason{kErrReasonAffinityRulesNotMatch});
  }
  if (!satisfyPodAntiAffinity(*s, node)) {
    return fw::Status(fw::Code::Unschedulable,
                      fw::StaticReason{kErrReasonAntiAffinityRulesNotMatch});
  }
  if (!satisfyExistingPodsAntiAffinity(*s, node)) {
    return fw::Status(fw::Code::Unschedulable,
                      fw::StaticReason{kErrReasonExistingAntiAffinityRulesNotMatch});
  }
  return {};
}

}  // namespace plugins::interpodaffinity
