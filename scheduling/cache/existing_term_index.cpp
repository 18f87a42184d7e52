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
  auto found = byHash_.end();
  for (auto [it, last] = byHash_.equal_range(hash); it != last; ++it) {
    const Group& candidate = *groups_[it->second];
    if (candidate.kind == kind && candidate.weight == weight && *candidate.term == term) {
      found = it;
      break;
    }
  }
  const auto k = static_cast<std::size_t>(kind);
  if (found == byHash_.end()) {
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
    bySelector_[k].reset();  // its positions change
    groupsOfKind_[k].reset();
    groups_[id] = std::make_unique<Group>(
        Group{kind, weight, std::make_shared<const AffinityTerm>(term), {}, true, {}});
    changed_.push_back(id);
    found = byHash_.emplace(hash, id);
  }
  const std::uint32_t id = found->second;
  Group& group = *groups_[id];
  if (!group.countsChanged) {
    group.countsChanged = true;
    changed_.push_back(id);
  }

  auto it = group.countBySlot.try_emplace(slot, 0).first;
  it->second += delta;
  if (it->second > 0) return;
  group.countBySlot.erase(it);
  if (!group.countBySlot.empty()) return;

  bySelector_[k].reset();
  groupsOfKind_[k].reset();
  freeIds_.push_back(id);
  groups_[id].reset();
  byHash_.erase(found);
}

bool ExistingTermIndex::listNodes(Group& group, const NodeInfosBySlot& infos,
                                  std::span<const std::uint32_t> positionBySlot) {
  std::vector<framework::NodeTermCount> nodes;
  nodes.reserve(group.countBySlot.size());
  for (const auto& [slot, count] : group.countBySlot) {
    if (nodeInfoAt(infos, slot) != nullptr) nodes.push_back({slot, count});
  }
  std::sort(nodes.begin(), nodes.end(),
            [&](const framework::NodeTermCount& a, const framework::NodeTermCount& b) {
              return positionBySlot[a.slot] < positionBySlot[b.slot];
            });
  group.countsChanged = false;
  const auto same = [](const framework::NodeTermCount& a, const framework::NodeTermCount& b) {
    return a.slot == b.slot && a.count == b.count;
  };
  if (group.nodes &&
      std::equal(nodes.begin(), nodes.end(), group.nodes->begin(), group.nodes->end(), same)) {
    return false;
  }
  group.nodes = std::make_shared<const std::vector<framework::NodeTermCount>>(std::move(nodes));
  return true;
}

ExistingTerms ExistingTermIndex::materialize(const NodeInfosBySlot& nodes,
                                             std::span<const std::uint32_t> positionBySlot,
                                             bool nodeOrderChanged) {
  // The lists that changed, by kind, for kinds listed before whose set of groups stayed.
  std::array<std::vector<std::pair<std::size_t, ExistingTermGroup>>, kNumTermKinds> changes;
  const auto relist = [&](Group& group) {
    const auto kind = static_cast<std::size_t>(group.kind);
    if (listNodes(group, nodes, positionBySlot) && groupsOfKind_[kind]) {
      changes[kind].push_back({group.position, {group.term, group.weight, group.nodes}});
    }
  };
  if (nodeOrderChanged) {
    for (const auto& group : groups_) {
      if (group) relist(*group);
    }
  } else {
    for (std::uint32_t id : changed_) {
      if (groups_[id] && groups_[id]->countsChanged) relist(*groups_[id]);
    }
  }
  changed_.clear();

  for (std::size_t kind = 0; kind < kNumTermKinds; ++kind) {
    if (groupsOfKind_[kind] && !changes[kind].empty()) {
      groupsOfKind_[kind] =
          std::make_shared<const ExistingTermGroups>(groupsOfKind_[kind]->with(changes[kind]));
    }
  }
  // A kind whose set of groups changed is listed again, in group-id order: the positions
  // its index refers to.
  if (std::any_of(groupsOfKind_.begin(), groupsOfKind_.end(), [](const auto& g) { return !g; })) {
    std::array<std::vector<ExistingTermGroup>, kNumTermKinds> lists;
    for (const auto& group : groups_) {
      if (!group) continue;
      const auto kind = static_cast<std::size_t>(group->kind);
      if (groupsOfKind_[kind]) continue;
      group->position = lists[kind].size();
      lists[kind].push_back({group->term, group->weight, group->nodes});
    }
    for (std::size_t kind = 0; kind < kNumTermKinds; ++kind) {
      if (groupsOfKind_[kind]) continue;
      groupsOfKind_[kind] = std::make_shared<const ExistingTermGroups>(std::move(lists[kind]));
    }
  }

  ExistingTerms out;
  std::vector<const AffinityTerm*> terms;
  for (std::size_t kind = 0; kind < kNumTermKinds; ++kind) {
    if (!bySelector_[kind]) {
      terms.clear();
      groupsOfKind_[kind]->forEach(
          [&](const ExistingTermGroup& group) { terms.push_back(group.term.get()); });
      bySelector_[kind] = std::make_shared<const TermSelectorIndex>(terms);
    }
    out[kind] = {groupsOfKind_[kind], bySelector_[kind]};
  }
  return out;
}

}  // namespace scheduling::cache
