#include "scheduling/cache/snapshot.hpp"

#include <algorithm>
#include <array>
#include <type_traits>

namespace scheduling::cache {

namespace {

const api::Labels kNoLabels;

// What a walk over the nodes of matching pods takes: a pod's index entry, or the node slot
// alone where the spanning-selector memo kept its namespace's slots.
template <typename AddSlot>
struct SlotsOfMatches {
  const AddSlot& add;
  void operator()(const NamespacePodIndex::Entry& e) const { add(e.slot); }
  void operator()(framework::NodeSlot slot) const { add(slot); }
};

}  // namespace

Snapshot::Snapshot(Parts parts)
    : nodes_(std::move(parts.nodes)),
      order_(std::move(parts.order)),
      realSlots_(std::move(parts.realSlots)),
      names_(std::move(parts.names)),
      topology_(std::move(parts.topology)),
      namespacePods_(std::move(parts.namespacePods)),
      namespaceColumns_(std::move(parts.namespaceColumns)),
      spanningSelectors_(std::move(parts.spanningSelectors)),
      existingTerms_(std::move(parts.existingTerms)),
      namespaces_(std::move(parts.namespaces)),
      podDisruptionBudgets_(std::move(parts.podDisruptionBudgets)),
      nominated_(std::move(parts.nominated)) {}

const Snapshot::NodeLists& Snapshot::lists() const {
  std::call_once(listsMade_, [this] {
    lists_.all.reserve(order_->size());
    for (const framework::NodeSlot slot : *order_) {
      const framework::NodeInfo* info = nodeInfoAt(slot);
      lists_.all.push_back(info);
      if (!info->podsWithAffinity().empty()) lists_.withAffinity.push_back(info);
      if (!info->podsWithRequiredAntiAffinity().empty()) {
        lists_.withRequiredAntiAffinity.push_back(info);
      }
    }
  });
  return lists_;
}

const framework::NodeInfo* Snapshot::getNodeInfo(std::string_view name) const {
  return nodeInfoAt(names_->find(name));
}

void Snapshot::getNodeInfos(std::span<const std::string_view> names,
                            std::span<const framework::NodeInfo*> out) const {
  constexpr std::size_t kBlock = 256;
  std::array<framework::NodeSlot, kBlock> slots;
  NodeNameIndex::Cursor cursor(*names_);
  for (std::size_t begin = 0; begin < names.size(); begin += kBlock) {
    const std::size_t count = std::min(kBlock, names.size() - begin);
    cursor.findAll(names.subspan(begin, count), std::span(slots).first(count));
    // Table entries of nodes far apart in the Cache's slots: each starts loading a few ahead.
    constexpr std::size_t kAhead = 8;
    for (std::size_t i = 0; i < count; ++i) {
      if (i + kAhead < count && slots[i + kAhead] < nodes_.size()) {
        __builtin_prefetch(&nodes_[slots[i + kAhead]]);
      }
      out[begin + i] = nodeInfoAt(slots[i]);
    }
  }
}

const api::Labels& Snapshot::namespaceLabels(std::string_view ns) const {
  const api::Labels* labels = namespaces_->labelsOf(ns);
  return labels != nullptr ? *labels : kNoLabels;
}

void Snapshot::forEachNamespace(
    const std::function<void(const std::string& name, const api::Labels& labels)>& fn) const {
  for (const auto& [name, labels] : namespaces_->all()) fn(name, labels);
}

void Snapshot::forEachNamespaceMatching(
    const labels::Selector& selector,
    const std::function<void(const std::string& name)>& fn) const {
  namespaces_->forEachMatching(selector, fn);
}

std::span<const framework::NominatedPod> Snapshot::nominatedPodsForNode(
    std::string_view node) const {
  return nominated_->forNode(node);
}

std::span<const framework::NominatedPod> Snapshot::nominatedPodsFor(
    const framework::NodeInfo& node) const {
  // A request's copy of a node (other labels, or pods added) keeps the origin's slot.
  const framework::NodeSlot slot = node.origin().slot();
  return nominated_->forNode(slot, [&node]() -> std::string_view { return node.name(); });
}

void Snapshot::forEachNominatedPodMatching(
    const framework::AffinityTerm& term,
    const std::function<void(const framework::PodInfo& pod)>& fn) const {
  nominated_->forEachMatching(term, fn);
}

void Snapshot::forEachNominatedPodWithRequiredAntiAffinitySelecting(
    std::string_view podNamespace, const api::Labels& podLabels,
    const std::function<void(const framework::AffinityTerm& term, const framework::PodInfo& pod)>&
        fn) const {
  nominated_->forEachWithRequiredAntiAffinitySelecting(podNamespace, podLabels, fn);
}

const NamespacePodIndex& Snapshot::noAddedPods() {
  static const NamespacePodIndex kNone("", {});
  return kNone;
}

template <typename Emit>
void Snapshot::forEachEntryMatching(const framework::AffinityTerm& term, Emit&& emit) const {
  if (spanningSelectors_ && !term.selector.isNothing()) {
    if (term.namespaceSelector.matches(kNoLabels)) {
      forEachEntryMatchingThroughMemo(term, nullptr, emit);
      return;
    }
    if (term.namespaces.size() >= kListedNamespacesForMemo) {
      forEachEntryMatchingThroughMemo(term, &term.namespaces, emit);
      return;
    }
  }
  const std::span<const NamespacePodIndex* const> indexes = namespaceColumns_.indexes;
  std::vector<NamespacePodIndex::Range> ranges;
  forEachNamespaceSelectedBy(
      term, indexes,
      [](const NamespacePodIndex* index) -> const std::string& { return index->ns(); },
      [&](const NamespacePodIndex* const& index) {
        ranges.clear();
        const auto plan = index->plan(term.selector, ranges);
        const NamespacePods& pods =
            namespacePods_[static_cast<std::size_t>(&index - indexes.data())];
        forEachIndexedEntryMatching(pods, term, plan ? &*plan : nullptr, ranges, emit);
        if (pods.delta) pods.delta->added.forEachMatching(term.selector, emit);
      });
}

template <typename Emit>
void Snapshot::forEachEntryMatchingThroughMemo(const framework::AffinityTerm& term,
                                               const std::vector<std::string>* namespaces,
                                               Emit&& emit) const {
  // The overlays' added pods that match, by namespace position, from the memo of the
  // overlays; then the indexes' matches from theirs, the two merged so that namespaces are
  // visited in name order, each once, its index before its added pods.
  std::vector<std::pair<std::uint32_t, const NamespacePodIndex::Entry*>> added;
  spanningSelectors_->added.forEachCandidate(
      term.selector, namespaces, namespaceColumns_.addedIndexes, namespaceColumns_.addedSerials,
      [&](std::uint32_t position, const NamespacePodIndex::Plan& plan,
          std::span<const NamespacePodIndex::Range> ranges,
          const std::span<const std::uint32_t>* /*slots*/) {
        namespaceColumns_.addedIndexes[position]->forEachMatching(
            plan, ranges, term.selector,
            [&](const NamespacePodIndex::Entry& e) { added.emplace_back(position, &e); });
      });
  auto next = added.begin();
  const auto emitAddedBefore = [&](std::uint32_t position) {
    for (; next != added.end() && next->first < position; ++next) emit(*next->second);
  };
  spanningSelectors_->indexes.forEachCandidate(
      term.selector, namespaces, namespaceColumns_.indexes, namespaceColumns_.serials,
      [&](std::uint32_t position, const NamespacePodIndex::Plan& plan,
          std::span<const NamespacePodIndex::Range> ranges,
          const std::span<const std::uint32_t>* slots) {
        emitAddedBefore(position);
        const NamespacePods& pods = namespacePods_[position];
        bool walked = false;
        if constexpr (std::is_invocable_v<Emit&, framework::NodeSlot>) {
          // A walk that asks only where matching pods run takes the slots the memo kept,
          // which are the index's own unless an overlay removed some of its pods.
          if (slots != nullptr && (!pods.delta || pods.delta->removed.empty())) {
            for (const framework::NodeSlot slot : *slots) emit(slot);
            walked = true;
          }
        }
        if (!walked) forEachIndexedEntryMatching(pods, term, &plan, ranges, emit);
        emitAddedBefore(position + 1);
      });
  emitAddedBefore(static_cast<std::uint32_t>(namespacePods_.size()));
}

template <typename Emit>
void Snapshot::forEachIndexedEntryMatching(const NamespacePods& pods,
                                           const framework::AffinityTerm& term,
                                           const NamespacePodIndex::Plan* plan,
                                           std::span<const NamespacePodIndex::Range> ranges,
                                           Emit&& emit) const {
  // The namespace is one the term selects (forEachNamespaceSelectedBy): what is left of
  // term.matches(pod, {}) is its label selector.
  if (plan == nullptr) return;
  if (!pods.delta || pods.delta->removed.empty()) {
    pods.index->forEachMatching(*plan, ranges, term.selector, emit);
    return;
  }
  const auto& removed = pods.delta->removed;
  pods.index->forEachMatching(*plan, ranges, term.selector, [&](const NamespacePodIndex::Entry& e) {
    if (!std::binary_search(removed.begin(), removed.end(), e.pod.get())) emit(e);
  });
}

void Snapshot::forEachPodMatching(
    const framework::AffinityTerm& term,
    const std::function<void(const framework::PodInfo& pod, framework::NodeSlot node)>& fn) const {
  forEachEntryMatching(term, [&](const NamespacePodIndex::Entry& e) {
    // Pods on ghost nodes are not in the snapshot.
    if (realSlots_->contains(e.slot)) fn(*e.pod, e.slot);
  });
}

void Snapshot::forEachNodeOfPodMatching(
    const framework::AffinityTerm& term,
    const std::function<void(std::span<const framework::NodeSlot> slots)>& fn) const {
  // A few kilobytes: long enough that a batch's misses overlap, short enough to stay in L1.
  std::array<framework::NodeSlot, 512> batch;
  std::size_t size = 0;
  const auto add = [&](framework::NodeSlot slot) {
    if (!realSlots_->contains(slot)) return;  // a ghost's pod is not in the snapshot
    batch[size++] = slot;
    if (size == batch.size()) {
      fn(batch);
      size = 0;
    }
  };
  forEachEntryMatching(term, SlotsOfMatches<decltype(add)>{add});
  if (size != 0) fn(std::span(batch).first(size));
}

void Snapshot::forEachExistingTerm(
    framework::TermKind kind,
    const std::function<void(const framework::AffinityTerm& term, std::int32_t weight,
                             std::span<const framework::NodeTermCount> nodes)>& fn) const {
  existingTerms_[static_cast<std::size_t>(kind)].groups->forEach(
      [&](const ExistingTermGroup& group) {
        if (!group.nodes->empty()) fn(*group.term, group.weight, *group.nodes);
      });
}

void Snapshot::forEachExistingTermSelecting(
    framework::TermKind kind, std::string_view podNamespace, const api::Labels& podLabels,
    const std::function<void(const framework::AffinityTerm& term, std::int32_t weight,
                             std::span<const framework::NodeTermCount> nodes)>& fn) const {
  const ExistingTermsOfKind& terms = existingTerms_[static_cast<std::size_t>(kind)];
  terms.bySelector->forEachCandidate(podNamespace, podLabels, [&](std::uint32_t position) {
    const ExistingTermGroup& group = (*terms.groups)[position];
    if (!group.nodes->empty()) fn(*group.term, group.weight, *group.nodes);
  });
}

}  // namespace scheduling::cache
