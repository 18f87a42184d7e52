// PreScore, Score and NormalizeScore of InterPodAffinity, after upstream's
// pkg/scheduler/framework/plugins/interpodaffinity/scoring.go (newest: Skip when there is
// nothing to score, min–max normalisation from the observed minimum).

#include "plugins/interpodaffinity/scoring.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "plugins/interpodaffinity/plugin.hpp"

namespace plugins::interpodaffinity {

namespace fw = scheduling::framework;
namespace api = scheduling::api;

namespace {

// Score reads the sums at the scored nodes' domains only. Under a key each of whose values is
// one node's (kubernetes.io/hostname), those domains are the scored nodes themselves, and a
// pod on any other node changes no sum read: PreScore's walks skip it before reading its
// domain and adding to a sum, two misses on tables by slot that at 50,000 nodes are out of
// L2. A sampled request scores a few thousand nodes where a term may match pods on tens of
// thousands.
class ScoredNodes {
 public:
  explicit ScoredNodes(std::span<const fw::NodeInfo* const> nodes) : nodes_(nodes) {}

  // The slots whose pods may change a score read under `key`; nullptr: any slot's may.
  const fw::SlotSet* onlyAt(const fw::TopologyKey& key) {
    const fw::TopologyIndex::Column* column = key.column();
    // Scoring most of the cluster, the set would cost what the walks save.
    if (column == nullptr || !column->oneSlotPerValue() ||
        2 * nodes_.size() > column->nodesWithKey()) {
      return nullptr;
    }
    if (!built_) build();
    return slots_ ? &*slots_ : nullptr;
  }

 private:
  void build() {
    built_ = true;
    slots_.emplace();
    for (const fw::NodeInfo* node : nodes_) {
      // A request's node with labels of its own: its domains are read from its labels.
      if (node->slot() == fw::kNoSlot) {
        slots_.reset();
        return;
      }
      slots_->insert(node->slot());
    }
  }

  std::span<const fw::NodeInfo* const> nodes_;
  bool built_ = false;
  std::optional<fw::SlotSet> slots_;
};

fw::Status missingPreScoreState() {
  return fw::Status::error("failed to read \"" + std::string(kPreScoreStateKey) +
                           "\" from cycleState: not found");
}

// The pod spec has preferred (anti-)affinity terms. Counted on the spec, not on the parsed
// terms, as upstream: a pod whose preferred terms fail to parse still "has" them.
bool hasPreferredTerms(const api::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  if (!affinity) return false;
  const auto has = [](const std::optional<api::PodAffinity>& a) {
    return a && !a->preferredDuringSchedulingIgnoredDuringExecution.empty();
  };
  return has(affinity->podAffinity) || has(affinity->podAntiAffinity);
}

}  // namespace

// --- TopologyScore ---------------------------------------------------------------------------

TopologyScore::KeyScores& TopologyScore::scoresOf(const TopologyKey& key) {
  auto it =
      std::find_if(keys_.begin(), keys_.end(), [&](const KeyScores& k) { return k.key == key; });
  if (it == keys_.end()) {
    const std::size_t size = key.column() != nullptr ? key.column()->numValues() : 0;
    it = keys_.insert(it, KeyScores{key, std::vector<std::int64_t>(size, 0), {}});
  }
  return *it;
}

void TopologyScore::add(const TopologyKey& key, const fw::TopologyValue& value,
                        std::int64_t amount) {
  if (!value.present()) return;
  KeyScores& k = scoresOf(key);
  if (value.known()) {
    k.byValue[value.id] += amount;
    return;
  }
  auto unknown = std::find_if(k.unknown.begin(), k.unknown.end(),
                              [&](const auto& entry) { return entry.first == value.unknownText; });
  if (unknown == k.unknown.end()) {
    k.unknown.emplace_back(value.unknownText, amount);
  } else {
    unknown->second += amount;
  }
}

inline void TopologyScore::addAt(KeyScores*& k, const TopologyKey& key, fw::NodeSlot slot,
                                 std::int64_t amount) {
  // A slot's value is an id of the key's column or absent, never unknown text. The key's
  // scores are made at the first node that has the key, as add() would.
  const fw::TopologyValue value = key.valueAt(slot);
  if (!value.known()) return;
  if (k == nullptr) k = &scoresOf(key);
  k->byValue[value.id] += amount;
}

// Skipping a slot changes no score read, but the key must still be made at the first node
// that has it, as add() makes it: whether any key exists decides whether Score runs.
inline bool TopologyScore::skips(const KeyScores* k, const fw::SlotSet* onlyAt, fw::NodeSlot slot) {
  return onlyAt != nullptr && k != nullptr && !onlyAt->contains(slot);
}

void TopologyScore::addAtNodes(const TopologyKey& key, std::span<const fw::NodeSlot> slots,
                               std::int64_t amount, const fw::SlotSet* onlyAt) {
  KeyScores* k = nullptr;
  for (const fw::NodeSlot slot : slots) {
    if (!skips(k, onlyAt, slot)) addAt(k, key, slot, amount);
  }
}

void TopologyScore::addAtNodes(const TopologyKey& key, std::span<const fw::NodeTermCount> nodes,
                               std::int64_t amountPerPod, const fw::SlotSet* onlyAt) {
  KeyScores* k = nullptr;
  for (const auto& [slot, n] : nodes) {
    if (n != 0 && !skips(k, onlyAt, slot)) addAt(k, key, slot, amountPerPod * n);
  }
}

std::int64_t TopologyScore::scoreFor(const fw::NodeInfo& node) const {
  std::int64_t score = 0;
  for (const KeyScores& k : keys_) {
    const fw::TopologyValue value = k.key.valueOf(node);
    if (value.known()) {
      score += k.byValue[value.id];
    } else if (value.present()) {
      for (const auto& [text, amount] : k.unknown) {
        if (text == value.unknownText) score += amount;
      }
    }
  }
  return score;
}

std::map<std::string, std::map<std::string, std::int64_t>> TopologyScore::toMap() const {
  std::map<std::string, std::map<std::string, std::int64_t>> out;
  for (const KeyScores& k : keys_) {
    auto& values = out[std::string(k.key.name())];
    for (std::size_t id = 0; id < k.byValue.size(); ++id) {
      if (k.byValue[id] != 0) values[std::string(k.key.column()->value(id))] = k.byValue[id];
    }
    for (const auto& [text, amount] : k.unknown) {
      if (amount != 0) values[std::string(text)] += amount;
    }
  }
  return out;
}

// --- extension points ----------------------------------------------------------------------

// Upstream walks every node (only the nodes with pods with affinity when the incoming pod
// has no preferred terms) and, per existing pod P on node N:
//   a. + weight of each incoming preferred affinity term matching P,
//   b. − weight of each incoming preferred anti-affinity term matching P,
//   c. + hardPodAffinityWeight for each REQUIRED affinity term of P matching the incoming pod,
//   d. + weight of each preferred affinity term of P matching the incoming pod,
//   e. − weight of each preferred anti-affinity term of P matching the incoming pod,
// each at (key, N's value) when N has the key. (a, b) only involve pods an incoming term
// selects: forEachPodMatching. (c, d, e) only involve pods carrying such terms, all of which
// sit in PodsWithAffinity: forEachExistingTermSelecting (the terms whose selector may
// match the incoming pod, then checked in full), with a term shared by n pods on a node
// adding n times its weight. The sums are those of upstream's loops.
fw::Status InterPodAffinity::preScore(fw::CycleState& state, const fw::PodInfo& pod,
                                      std::span<const fw::NodeInfo* const> nodes) const {
  if (nodes.empty()) return fw::Status(fw::Code::Skip);  // no nodes to score
  const api::Pod& incoming = pod.pod();
  if (args_.ignorePreferredTermsOfExistingPods && !hasPreferredTerms(incoming)) {
    return fw::Status(fw::Code::Skip);
  }
  if (!pod.parseError().empty()) {
    // Normally caught by PreFilter already.
    return fw::Status::error("failed to parse pod: " + pod.parseError());
  }
  const fw::SharedLister& lister = state.snapshot();

  // Resolve the namespaceSelectors of the incoming preferred terms on a copy.
  std::vector<fw::WeightedAffinityTerm> preferredAffinity = pod.preferredAffinityTerms();
  std::vector<fw::WeightedAffinityTerm> preferredAntiAffinity = pod.preferredAntiAffinityTerms();
  for (auto& weighted : preferredAffinity) {
    mergeAffinityTermNamespacesIfNotEmpty(weighted.term, lister);
  }
  for (auto& weighted : preferredAntiAffinity) {
    mergeAffinityTermNamespacesIfNotEmpty(weighted.term, lister);
  }
  const api::Labels& nsLabels = lister.namespaceLabels(incoming.metadata.ns);

  auto out = std::make_unique<PreScoreState>();
  TopologyScore& scores = out->topologyScore;

  ScoredNodes scored(nodes);

  // (a) and (b): the incoming pod's preferred terms against existing pods.
  const auto processIncoming = [&](const fw::WeightedAffinityTerm& weighted,
                                   std::int64_t multiplier) {
    const std::int64_t amount = static_cast<std::int64_t>(weighted.weight) * multiplier;
    const fw::TopologyKey key(weighted.term.topologyKey, lister.topology());
    const fw::SlotSet* onlyAt = scored.onlyAt(key);
    lister.forEachNodeOfPodMatching(weighted.term, [&](std::span<const fw::NodeSlot> slots) {
      scores.addAtNodes(key, slots, amount, onlyAt);
    });
  };
  for (const auto& weighted : preferredAffinity) processIncoming(weighted, 1);
  for (const auto& weighted : preferredAntiAffinity) processIncoming(weighted, -1);

  // (c), (d) and (e): the existing pods' terms against the incoming pod.
  const auto processExisting = [&](fw::TermKind kind, std::int64_t multiplier,
                                   std::int64_t fixedWeight) {
    lister.forEachExistingTermSelecting(
        kind, incoming.metadata.ns, incoming.metadata.labels,
        [&](const fw::AffinityTerm& term, std::int32_t weight,
            std::span<const fw::NodeTermCount> termNodes) {
          if (!term.matches(incoming, nsLabels)) return;
          const std::int64_t perPod = (fixedWeight != 0 ? fixedWeight : weight) * multiplier;
          const fw::TopologyKey key(term.topologyKey, lister.topology());
          scores.addAtNodes(key, termNodes, perPod, scored.onlyAt(key));
        });
  };
  if (args_.hardPodAffinityWeight > 0) {
    processExisting(fw::TermKind::RequiredAffinity, 1, args_.hardPodAffinityWeight);
  }
  processExisting(fw::TermKind::PreferredAffinity, 1, 0);
  processExisting(fw::TermKind::PreferredAntiAffinity, -1, 0);

  if (scores.empty()) return fw::Status(fw::Code::Skip);
  state.write(kPreScoreStateKey, std::move(out));
  return {};
}

fw::Status InterPodAffinity::score(const fw::CycleState& state, const fw::PodInfo& /*pod*/,
                                   const fw::NodeInfo& node, std::int64_t& score) const {
  const auto* s = state.read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return missingPreScoreState();
  score = s->topologyScore.scoreFor(node);
  return {};
}

fw::Status InterPodAffinity::normalizeScore(const fw::CycleState& state, const fw::PodInfo& /*pod*/,
                                            std::span<fw::NodeScore> scores) const {
  const auto* s = state.read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return missingPreScoreState();
  // Nothing to normalise (and max − min of no scores would overflow).
  if (s->topologyScore.empty() || scores.empty()) return {};

  std::int64_t minCount = std::numeric_limits<std::int64_t>::max();
  std::int64_t maxCount = std::numeric_limits<std::int64_t>::min();
  for (const auto& ns : scores) {
    maxCount = std::max(maxCount, ns.score);
    minCount = std::min(minCount, ns.score);
  }
  const std::int64_t maxMinDiff = maxCount - minCount;
  for (auto& ns : scores) {
    double fScore = 0;
    if (maxMinDiff > 0) {
      // Divide in double first, then scale, then truncate: the exact upstream arithmetic.
      fScore = static_cast<double>(fw::kMaxNodeScore) *
               (static_cast<double>(ns.score - minCount) / static_cast<double>(maxMinDiff));
    }
    ns.score = static_cast<std::int64_t>(fScore);
  }
  return {};
}

}  // namespace plugins::interpodaffinity
