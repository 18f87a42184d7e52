#include "scheduling/cache/existing_term_index.hpp"

#include <algorithm>
#include <functional>
#include <string_view>

namespace scheduling::cache {

namespace {

using framework::AffinityTerm;
using framework::TermKind;

void combine(std::size_t& seed, std::size_t value) {
  // boost::hash_combine's mixing step.
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

void combine(std::size_t& seed, std::string_view s) {
  combine(seed, std::hash<std::string_view>{}(s));
}

void combine(std::size_t& seed, const labels::Selector& selector) {
  combine(seed, selector.isNothing() ? 0 : selector.isEverything() ? 1 : 2);
  for (const auto& r : selector.requirements()) {
    combine(seed, r.key);
    combine(seed, static_cast<std::size_t>(r.op));
    combine(seed, r.values.size());
    for (const auto& v : r.values) combine(seed, v);
  }
  combine(seed, selector.requirements().size());
}

// A hash of everything AffinityTerm::operator== compares, plus kind and weight: the
// canonical key of a group.
std::size_t hashTerm(TermKind kind, const AffinityTerm& term, std::int32_t weight) {
  std::size_t seed = static_cast<std::size_t>(kind);
  combine(seed, static_cast<std::size_t>(static_cast<std::uint32_t>(weight)));
  combine(seed, term.selector);
  combine(seed, term.namespaces.size());
  for (const auto& ns : term.namespaces) combine(seed, ns);
  combine(seed, term.namespaceSelector);
  combine(seed, term.topologyKey);
  return seed;
}

}  // namespace

void ExistingTermIndex::addPod(const framework::PodInfo& pod, std::uint32_t slot) {
  for (const auto& t : pod.requiredAffinityTerms()) {
    update(TermKind::RequiredAffinity, t, 0, slot, 1);
  }
  for (const auto& t : pod.requiredAntiAffinityTerms()) {
    update(TermKind::RequiredAntiAffinity, t, 0, slot, 1);
  }
  for (const auto& t : pod.preferredAffinityTerms()) {
    update(TermKind::PreferredAffinity, t.term, t.weight, slot, 1);
  }
  for (const auto& t : pod.preferredAntiAffinityTerms()) {
    update(TermKind::PreferredAntiAffinity, t.term, t.weight, slot, 1);
  }
}

void ExistingTermIndex::removePod(const framework::PodInfo& pod, std::uint32_t slot) {
  for (const auto& t : pod.requiredAffinityTerms()) {
    update(TermKind::RequiredAffinity, t, 0, slot, -1);
  }
  for (const auto& t : pod.requiredAntiAffinityTerms()) {
    update(TermKind::RequiredAntiAffinity, t, 0, slot, -1);
  }
  for (const auto& t : pod.preferredAffinityTerms()) {
    update(TermKind::PreferredAffinity, t.term, t.weight, slot, -1);
  }
  for (const auto& t : pod.preferredAntiAffinityTerms()) {
    update(TermKind::PreferredAntiAffinity, t.term, t.weight, slot, -1);
  }
}

void ExistingTermIndex::update(TermKind kind, const AffinityTerm& term, std::int32_t weight,
                               std::uint32_t slot, std::int64_t delta) {
  const std::size_t hash = hashTerm(kind, term, weight);
  Group* group = nullptr;
  auto [first, last] = byHash_.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    Group& candidate = *groups_[it->second];
    if (candidate.kind == kind && candidate.weight == weight && *candidate.term == term) {
      group = &candidate;
      break;
    }
  }
  if (group == nullptr) {
    // Removing a term that was never added would be a Cache bug; there is nothing to undo.
    if (delta < 0) return;
    std::uint32_t id;
    if (freeIds_.empty()) {
      id = static_cast<std::uint32_t>(groups_.size());
      groups_.emplace_back();
    } else {
      id = freeIds_.back();
      freeIds_.pop_back();
    }
    bySelector_[static_cast<std::size_t>(kind)].reset();  // its positions change
    groups_[id] = std::make_unique<Group>(
        Group{kind, weight, hash, std::make_shared<const AffinityTerm>(term), {}, true, {}, {}});
    group = groups_[id].get();
    byHash_.emplace(hash, id);
  }

  group->countsChanged = true;
  auto it = group->countBySlot.try_emplace(slot, 0).first;
  it->second += delta;
  if (it->second > 0) return;
  group->countBySlot.erase(it);
  if (!group->countBySlot.empty()) return;

  for (auto [pos, end] = byHash_.equal_range(hash); pos != end; ++pos) {
    if (groups_[pos->second].get() == group) {
      bySelector_[static_cast<std::size_t>(group->kind)].reset();
      freeIds_.push_back(pos->second);
      groups_[pos->second].reset();
      byHash_.erase(pos);
      return;
    }
  }
}

bool ExistingTermIndex::reusable(const Group& group,
                                 std::span<const framework::NodeInfo* const> nodeBySlot) {
  if (group.countsChanged || !group.nodes) return false;
  for (std::size_t i = 0; i < group.slots.size(); ++i) {
    if (nodeBySlot[group.slots[i]] != (*group.nodes)[i].node) return false;
  }
  return true;
}

ExistingTerms ExistingTermIndex::materialize(std::span<const framework::NodeInfo* const> nodeBySlot,
                                             std::span<const std::uint32_t> positionBySlot,
                                             bool nodeOrderChanged) {
  ExistingTerms out;
  struct Located {
    std::uint32_t position;
    std::uint32_t slot;
    std::int64_t count;
  };
  std::vector<Located> located;
  for (const auto& group : groups_) {
    if (!group) continue;
    if (nodeOrderChanged || !reusable(*group, nodeBySlot)) {
      located.clear();
      for (const auto& [slot, count] : group->countBySlot) {
        if (nodeBySlot[slot] != nullptr) located.push_back({positionBySlot[slot], slot, count});
      }
      std::sort(located.begin(), located.end(),
                [](const Located& a, const Located& b) { return a.position < b.position; });
      auto nodes = std::make_shared<std::vector<framework::NodeTermCount>>();
      nodes->reserve(located.size());
      group->slots.clear();
      for (const auto& l : located) {
        nodes->push_back({nodeBySlot[l.slot], l.count});
        group->slots.push_back(l.slot);
      }
      group->nodes = std::move(nodes);
      group->countsChanged = false;
    }
    out[static_cast<std::size_t>(group->kind)].groups.push_back(
        {group->term, group->weight, group->nodes});
  }
  // Positions are group-id order within a kind, which only changes with that kind's set of
  // groups: update() drops the kind's index then, and it is rebuilt here.
  std::vector<const AffinityTerm*> terms;
  for (std::size_t kind = 0; kind < kNumTermKinds; ++kind) {
    if (!bySelector_[kind]) {
      terms.clear();
      for (const auto& group : out[kind].groups) terms.push_back(group.term.get());
      bySelector_[kind] = std::make_shared<const TermSelectorIndex>(terms);
    }
    out[kind].bySelector = bySelector_[kind];
  }
  return out;
}

}  // namespace scheduling::cache
