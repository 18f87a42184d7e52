#include "scheduling/cache/nominator.hpp"

#include <algorithm>
#include <utility>

namespace scheduling::cache {

namespace {

NominatedPodIndex::QueuePtr makeQueue(const std::vector<framework::PodInfoPtr>& pods) {
  return std::make_shared<NominatedPodIndex::Queue>(pods.begin(), pods.end());
}

}  // namespace

Nominator::Nominator()
    : termsByShard_(NominatedPodIndex::kNamespaceShards + 1),
      shardTouched_(NominatedPodIndex::kNamespaceShards + 1, false) {
  parts_.termShards = ChunkedArray(
      std::vector<std::shared_ptr<const NominatedPodIndex::TermShard>>(termsByShard_.size()));
}

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
      if (freeTermPositions_.empty()) {
        entry.position = static_cast<std::uint32_t>(termAt_.size());
        termAt_.push_back(&term);
        termPositionTouched_.push_back(false);
      } else {
        entry.position = freeTermPositions_.back();
        freeTermPositions_.pop_back();
        termAt_[entry.position] = &term;
      }
      fileTerm(term, entry.position, true);
    }
    touchTermPosition(entry.position);
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
    touchTermPosition(entry.position);
    if (entry.pods.empty()) {
      fileTerm(term, entry.position, false);
      termAt_[entry.position] = nullptr;
      freeTermPositions_.push_back(entry.position);
      byAntiAffinityTerm_.erase(it);
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
             touchedTermPositions_.empty()) {
    return published_;
  }
  touchedNodes_.clear();
  if (namespaceSetChanged_ || !touchedNamespaces_.empty() || !published_) publishNamespaces();
  if (!touchedTermPositions_.empty()) publishAntiAffinity();
  published_ = std::make_shared<const NominatedPodIndex>(parts_);
  return published_;
}

void Nominator::refileAll(const NodeNameIndex& names, std::size_t numSlots) {
  std::vector<NominatedPodIndex::SlotQueue> bySlot(numSlots);
  framework::SlotSet nominatedSlots;
  byUnknownName_.clear();
  for (const auto& [node, pods] : byNode_) {
    if (const framework::NodeSlot slot = names.find(node); slot != framework::kNoSlot) {
      bySlot[slot] = NominatedPodIndex::SlotQueue(makeQueue(pods));
      nominatedSlots.insert(slot);
    } else {
      byUnknownName_.emplace(node, makeQueue(pods));
    }
  }
  parts_.bySlot = ChunkedArray(std::move(bySlot));
  parts_.nominatedSlots = std::make_shared<const framework::SlotSet>(std::move(nominatedSlots));
  parts_.byUnknownName = std::make_shared<const NominatedPodIndex::QueuesByName>(byUnknownName_);
}

void Nominator::refileTouched(const NodeNameIndex& names) {
  std::vector<std::pair<std::size_t, NominatedPodIndex::SlotQueue>> changes;
  framework::SlotSet nominatedSlots = *parts_.nominatedSlots;  // published ones stay as they are
  bool unknownChanged = false;
  for (const std::string& node : touchedNodes_) {
    auto it = byNode_.find(node);
    NominatedPodIndex::QueuePtr queue = it == byNode_.end() ? nullptr : makeQueue(it->second);
    if (const framework::NodeSlot slot = names.find(node); slot != framework::kNoSlot) {
      if (queue) {
        nominatedSlots.insert(slot);
      } else {
        nominatedSlots.erase(slot);
      }
      changes.emplace_back(slot, queue ? NominatedPodIndex::SlotQueue(std::move(queue))
                                       : NominatedPodIndex::SlotQueue());
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
  if (!changes.empty()) {
    parts_.nominatedSlots = std::make_shared<const framework::SlotSet>(std::move(nominatedSlots));
  }
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

void Nominator::fileTerm(const framework::AffinityTerm& term, std::uint32_t position,
                         bool file) {
  const auto fileIn = [&](std::size_t shard) {
    auto& terms = termsByShard_[shard];
    if (file) {
      terms.emplace_back(position, &term);
    } else {
      std::erase(terms, std::pair(position, &term));
    }
    touchShard(shard);
  };
  if (!term.namespaceSelector.isNothing()) {
    fileIn(NominatedPodIndex::kAnyNamespaceShard);
    return;
  }
  // Namespaces of one term may share a shard: it is filed there once.
  std::vector<std::size_t> shards;
  for (const std::string& ns : term.namespaces) shards.push_back(NominatedPodIndex::shardOf(ns));
  std::sort(shards.begin(), shards.end());
  shards.erase(std::unique(shards.begin(), shards.end()), shards.end());
  for (const std::size_t shard : shards) fileIn(shard);
}

void Nominator::touchTermPosition(std::uint32_t position) {
  if (termPositionTouched_[position]) return;
  termPositionTouched_[position] = true;
  touchedTermPositions_.push_back(position);
}

void Nominator::touchShard(std::size_t shard) {
  if (shardTouched_[shard]) return;
  shardTouched_[shard] = true;
  touchedShards_.push_back(shard);
}

void Nominator::publishAntiAffinity() {
  if (parts_.antiAffinityTerms.size() < termAt_.size()) {
    // Room for twice the terms, so that growing is rare.
    parts_.antiAffinityTerms = parts_.antiAffinityTerms.grown(2 * termAt_.size());
  }
  std::vector<std::pair<std::size_t, NominatedPodIndex::AntiAffinityTerm>> terms;
  for (const std::uint32_t position : touchedTermPositions_) {
    termPositionTouched_[position] = false;
    NominatedPodIndex::AntiAffinityTerm entry;
    if (const framework::AffinityTerm* term = termAt_[position]) {
      entry.term = term;
      entry.pods =
          std::make_shared<const Pods>(byAntiAffinityTerm_.at(term).pods);
    }
    terms.emplace_back(position, std::move(entry));
  }
  parts_.antiAffinityTerms = parts_.antiAffinityTerms.with(terms);
  touchedTermPositions_.clear();

  std::vector<std::pair<std::size_t, std::shared_ptr<const NominatedPodIndex::TermShard>>> shards;
  for (const std::size_t shard : touchedShards_) {
    shardTouched_[shard] = false;
    const auto& filed = termsByShard_[shard];
    if (filed.empty()) {
      shards.emplace_back(shard, nullptr);
      continue;
    }
    std::vector<std::uint32_t> positions;
    std::vector<const framework::AffinityTerm*> shardTerms;
    for (const auto& [position, term] : filed) {
      positions.push_back(position);
      shardTerms.push_back(term);
    }
    shards.emplace_back(shard, std::make_shared<const NominatedPodIndex::TermShard>(
                                   std::move(positions), std::move(shardTerms)));
  }
  parts_.termShards = parts_.termShards.with(shards);
  touchedShards_.clear();
}

}  // namespace scheduling::cache
