#include "scheduling/cache/nominator.hpp"

#include <algorithm>
#include <utility>

namespace scheduling::cache {

namespace {

NominatedPodIndex::QueuePtr makeQueue(const std::vector<framework::PodInfoPtr>& pods) {
  return std::make_shared<NominatedPodIndex::Queue>(pods.begin(), pods.end());
}

}  // namespace

void Nominator::add(const framework::PodInfoPtr& pod, const std::string& node) {
  byNode_[node].push_back(pod);
  touchedNodes_.insert(node);

  auto [named, inserted] = byNamespace_.try_emplace(pod->pod().metadata.ns);
  Namespace& ns = named->second;
  ns.pods.push_back(pod);
  ns.index.reset();
  if (inserted) {
    namespaceSetChanged_ = true;
  } else if (!ns.touched) {
    ns.touched = true;
    touchedNamespaces_.push_back(&*named);
  }

  for (const framework::AffinityTerm& term : pod->requiredAntiAffinityTerms()) {
    auto [it, added] = byAntiAffinityTerm_.try_emplace(&term);
    TermPods& entry = it->second;
    entry.pods.push_back(pod);
    if (added) {
      termSetChanged_ = true;
    } else if (!entry.touched) {
      entry.touched = true;
      touchedTerms_.push_back(&term);
    }
  }
}

void Nominator::remove(const framework::PodInfoPtr& pod, const std::string& node) {
  auto queue = byNode_.find(node);
  queue->second.erase(std::find(queue->second.begin(), queue->second.end(), pod));
  if (queue->second.empty()) byNode_.erase(queue);
  touchedNodes_.insert(node);

  auto named = byNamespace_.find(pod->pod().metadata.ns);
  Namespace& ns = named->second;
  std::erase(ns.pods, pod);
  ns.index.reset();
  if (ns.pods.empty()) {
    byNamespace_.erase(named);
    namespaceSetChanged_ = true;
  } else if (!ns.touched) {
    ns.touched = true;
    touchedNamespaces_.push_back(&*named);
  }

  for (const framework::AffinityTerm& term : pod->requiredAntiAffinityTerms()) {
    auto it = byAntiAffinityTerm_.find(&term);
    TermPods& entry = it->second;
    std::erase(entry.pods, pod);
    if (entry.pods.empty()) {
      byAntiAffinityTerm_.erase(it);
      termSetChanged_ = true;
    } else if (!entry.touched) {
      entry.touched = true;
      touchedTerms_.push_back(&term);
    }
  }
}

std::shared_ptr<const NominatedPodIndex> Nominator::publish(
    const std::shared_ptr<const NodeNameIndex>& names, std::size_t numSlots) {
  if (names != parts_.names) {
    refileAll(*names, numSlots);
    parts_.names = names;
  } else if (!touchedNodes_.empty()) {
    refileTouched(*names);
  } else if (published_ && !namespaceSetChanged_ && touchedNamespaces_.empty() &&
             !termSetChanged_ && touchedTerms_.empty()) {
    return published_;
  }
  touchedNodes_.clear();
  if (namespaceSetChanged_ || !touchedNamespaces_.empty() || !published_) publishNamespaces();
  if (termSetChanged_ || !touchedTerms_.empty() || !published_) {
    publishAntiAffinity();
  }
  published_ = std::make_shared<const NominatedPodIndex>(parts_);
  return published_;
}

void Nominator::refileAll(const NodeNameIndex& names, std::size_t numSlots) {
  std::vector<NominatedPodIndex::QueuePtr> bySlot(numSlots);
  byUnknownName_.clear();
  for (const auto& [node, pods] : byNode_) {
    if (const framework::NodeSlot slot = names.find(node); slot != framework::kNoSlot) {
      bySlot[slot] = makeQueue(pods);
    } else {
      byUnknownName_.emplace(node, makeQueue(pods));
    }
  }
  parts_.bySlot = ChunkedArray<NominatedPodIndex::QueuePtr>(std::move(bySlot));
  parts_.byUnknownName = std::make_shared<const NominatedPodIndex::QueuesByName>(byUnknownName_);
}

void Nominator::refileTouched(const NodeNameIndex& names) {
  std::vector<std::pair<std::size_t, NominatedPodIndex::QueuePtr>> changes;
  bool unknownChanged = false;
  for (const std::string& node : touchedNodes_) {
    auto it = byNode_.find(node);
    NominatedPodIndex::QueuePtr queue = it == byNode_.end() ? nullptr : makeQueue(it->second);
    if (const framework::NodeSlot slot = names.find(node); slot != framework::kNoSlot) {
      changes.emplace_back(slot, std::move(queue));
      continue;
    }
    if (queue) {
      byUnknownName_.insert_or_assign(node, std::move(queue));
    } else {
      byUnknownName_.erase(node);
    }
    unknownChanged = true;
  }
  parts_.bySlot = parts_.bySlot.with(changes);
  if (unknownChanged) {
    parts_.byUnknownName =
        std::make_shared<const NominatedPodIndex::QueuesByName>(byUnknownName_);
  }
}

const std::shared_ptr<const NamespacePodIndex>& Nominator::indexOf(const std::string& name,
                                                                   Namespace& ns) {
  if (!ns.index) {
    std::vector<NamespacePodIndex::Entry> entries;
    entries.reserve(ns.pods.size());
    for (const auto& pod : ns.pods) entries.push_back({pod, framework::kNoSlot});
    ns.index = std::make_shared<const NamespacePodIndex>(name, std::move(entries));
  }
  return ns.index;
}

void Nominator::publishNamespaces() {
  if (namespaceSetChanged_ || !published_) {
    // Positions change: refile every namespace, reusing the indexes of the untouched ones.
    std::vector<std::shared_ptr<const NamespacePodIndex>> indexes;
    indexes.reserve(byNamespace_.size());
    parts_.byNamespace.clear();
    for (auto& [name, ns] : byNamespace_) {
      ns.position = static_cast<std::uint32_t>(indexes.size());
      ns.touched = false;
      indexes.push_back(indexOf(name, ns));
      parts_.byNamespace.push_back(indexes.back().get());
    }
    parts_.namespaceIndexes = ChunkedArray(std::move(indexes));
  } else {
    // Same namespaces at the same positions: only the touched ones' indexes are new.
    std::vector<std::pair<std::size_t, std::shared_ptr<const NamespacePodIndex>>> changes;
    for (auto* entry : touchedNamespaces_) {
      Namespace& ns = entry->second;
      changes.emplace_back(ns.position, indexOf(entry->first, ns));
      parts_.byNamespace[ns.position] = ns.index.get();
      ns.touched = false;
    }
    parts_.namespaceIndexes = parts_.namespaceIndexes.with(changes);
  }
  touchedNamespaces_.clear();
  namespaceSetChanged_ = false;
}

void Nominator::publishAntiAffinity() {
  const auto podsOf = [](const TermPods& entry) {
    return std::make_shared<const std::vector<framework::PodInfoPtr>>(entry.pods);
  };
  if (termSetChanged_ || !published_) {
    // Positions change: refile every term, reusing the pod lists of the untouched ones.
    std::vector<const framework::AffinityTerm*> terms;
    std::vector<NominatedPodIndex::PodsOfTerm> lists;
    terms.reserve(byAntiAffinityTerm_.size());
    lists.reserve(byAntiAffinityTerm_.size());
    for (auto& [term, entry] : byAntiAffinityTerm_) {
      lists.push_back(entry.touched ? podsOf(entry) : parts_.podsByAntiAffinityTerm[entry.position]);
      entry.position = static_cast<std::uint32_t>(terms.size());
      entry.touched = false;
      terms.push_back(term);
    }
    parts_.antiAffinityTerms =
        std::make_shared<const NominatedPodIndex::AntiAffinityTerms>(std::move(terms));
    parts_.podsByAntiAffinityTerm = ChunkedArray(std::move(lists));
  } else {
    // Same terms at the same positions: only the touched ones' pod lists are new.
    std::vector<std::pair<std::size_t, NominatedPodIndex::PodsOfTerm>> changes;
    for (const framework::AffinityTerm* term : touchedTerms_) {
      TermPods& entry = byAntiAffinityTerm_.at(term);
      changes.emplace_back(entry.position, podsOf(entry));
      entry.touched = false;
    }
    parts_.podsByAntiAffinityTerm = parts_.podsByAntiAffinityTerm.with(changes);
  }
  touchedTerms_.clear();
  termSetChanged_ = false;
}

}  // namespace scheduling::cache
