#include "scheduling/cache/cache.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>
#include <vector>

#include "scheduling/api/labels_pool.hpp"
#include "scheduling/cache/existing_term_index.hpp"
#include "scheduling/cache/namespace_pod_index.hpp"
#include "scheduling/cache/node_tree.hpp"
#include "scheduling/cache/nominator.hpp"
#include "scheduling/framework/affinity_term_pool.hpp"
#include "scheduling/framework/runtime/parallelizer.hpp"

namespace scheduling::cache {

namespace {

// A NodeInfo as the Cache keeps it (nodeInfoListItem upstream). `slot` is a small number
// that stays with the item for its life, so indexes can name the node without pointing at a
// NodeInfo that copy-on-write may replace. A ghost holds pods of a node the Cache has no
// Node object for (cache.go keeps those too); ghosts never appear in snapshots.
//
//   (absent) ──upsertNode──────────────────▶ Real ──deleteNode, pods remain──▶ Ghost
//   (absent) ◀──deleteNode, no pods──────── Real ◀──upsertNode─────────────── Ghost
//   (absent) ──a pod names an unknown node──▶ Ghost ──its last pod leaves──▶ (absent)
struct NodeItem {
  std::shared_ptr<framework::NodeInfo> info;
  std::uint32_t slot = 0;
  // A published snapshot holds `info`: copy it before the next change (copy-on-write),
  // which is how unchanged NodeInfos are shared between snapshots (UpdateSnapshot's
  // generation check, without the copying).
  bool shared = false;
};

// Where a cached pod is; a pod that is neither assigned nor nominated is not kept.
//
//   (absent)  ──spec.nodeName set────────────────────▶ Assigned(node)
//   (absent)  ──unbound, status.nominatedNodeName────▶ Nominated(node)
//   Nominated ──bound (spec.nodeName set)────────────▶ Assigned(node), nomination dropped
//   Nominated ──other / no nominatedNodeName─────────▶ Nominated(other) / (absent)
//   Assigned  ──other spec.nodeName──────────────────▶ removed, then added on the new node
//   any       ──delete, or phase Succeeded / Failed──▶ (absent)
// An assumed pod (Cache's own diagram) is Assigned with `assumed` set.
enum class Placement { Assigned, Nominated };

struct PodRecord {
  framework::PodInfoPtr info;
  Placement placement = Placement::Assigned;
  // Assumed by a binding and not yet confirmed by the watch (when: State::assumedPods).
  bool assumed = false;
  // The pods relist current when the pod was last upserted; 0: never (only assumed).
  std::uint32_t listedIn = 0;
  // Assigned only:
  bool indexed = false;              // in NamespaceState::index, else in `added`
  std::uint32_t slot = 0;            // the node item's slot
  std::uint32_t namespaceIndex = 0;  // position in NamespaceState::pods
  std::uint32_t addedIndex = 0;      // position in NamespaceState::added

  // The node the pod counts on, or is nominated to, read from the cached pod itself (an
  // assumed pod's copy has spec.nodeName set, as upstream's assumed copy does): a copy here
  // was a second heap string per pod, 64 MB at a million pods.
  const std::string& node() const {
    const api::Pod& pod = info->pod();
    return placement == Placement::Assigned ? pod.spec.nodeName : pod.status.nominatedNodeName;
  }
};

// Cached pods by UID. The key views the UID inside the record's own pod, so a record is
// re-keyed whenever it gets a new pod (State::hold).
using PodRecords = std::unordered_map<std::string_view, PodRecord>;

// An assumed pod's times: since when, and when the API server created its binding.
struct Assumption {
  std::chrono::steady_clock::time_point assumedAt;
  std::optional<std::chrono::steady_clock::time_point> boundAt;
};

// The assigned pods of one namespace, the label index last built over them and the changes
// since. publish() rebuilds the index only once the changes outgrow an eighth of the
// namespace (within [kMinDelta, kMaxDelta]); until then snapshots get the index plus an
// overlay of the changes, so one pod changing in a namespace of 100k pods does not cost a
// rebuild.
struct NamespaceState {
  std::vector<PodRecord*> pods;
  std::shared_ptr<const NamespacePodIndex> index;
  std::uint64_t indexSerial = 0;  // index->serial(), kept here so publishing need not read it
  std::vector<PodRecord*> added;
  std::vector<const framework::PodInfo*> removed;
  std::shared_ptr<const NamespacePodDelta> publishedDelta;  // null when stale
  // Where the namespace is in the published namespaces (name order), and whether its pods
  // changed since the last publish.
  std::uint32_t position = 0;
  bool touched = false;
};

// Overlay sizes beyond which rebuilding is cheaper than every request walking the overlay.
constexpr std::size_t kMinDelta = 32;
constexpr std::size_t kMaxDelta = 1024;

// Fewer stale namespace indexes than this are rebuilt on the publishing thread alone.
constexpr std::size_t kParallelRebuilds = 64;

bool overlayTooLarge(const NamespaceState& ns) {
  const std::size_t delta = ns.added.size() + ns.removed.size();
  return delta > std::clamp(ns.index->size() / 8, kMinDelta, kMaxDelta);
}

}  // namespace

struct Cache::State {
  // Serialises writers and publish(). Readers never take it.
  std::mutex mu;
  std::unordered_map<std::string, NodeItem> nodes;
  std::uint32_t numSlots = 0;
  std::vector<std::uint32_t> freeSlots;
  NodeTree nodeTree;
  // The real nodes' slots in node-tree order as of the last publish, and each slot's
  // position in it; rebuilt only when the tree changed (a node added, deleted or moved to
  // another zone).
  std::shared_ptr<const std::vector<framework::NodeSlot>> publishedOrder;
  // The same slots as a set, rebuilt with the order.
  std::shared_ptr<const framework::SlotSet> publishedRealSlots;
  std::vector<std::uint32_t> positionBySlot;
  bool nodeOrderChanged = true;
  // The NodeInfos by slot as last published, and the items whose NodeInfo was copied since
  // (copy-on-write): what the next publish puts in their place, if the order stays.
  NodeInfosBySlot publishedNodes;
  std::vector<std::pair<framework::NodeSlot, NodeItem*>> copiedInfos;
  // Real nodes' names by slot, rebuilt with the order; published as is.
  std::shared_ptr<const NodeNameIndex> names;
  // Real nodes' labels by slot, kept up to date as they change; published as a copy when
  // `publishedTopology` is null.
  framework::TopologyIndex topology;
  std::shared_ptr<const framework::TopologyIndex> publishedTopology;
  // Assigned and nominated pods. Records are referenced by address from
  // assignedByNamespace; unordered_map never moves its elements, re-keying included.
  PodRecords pods;
  // The cached pods' parsed affinity term lists and their label sets, one copy of each.
  // Thread-safe on their own: preparePod uses them without `mu`.
  mutable framework::AffinityTermPool termPool;
  mutable api::LabelsPool labelsPool;
  std::map<std::string, NamespaceState, std::less<>> assignedByNamespace;
  // The namespaces' pods as last published, and the namespaces touched since: while no
  // namespace comes or goes, a publish revisits only those.
  ChunkedArray<Snapshot::NamespacePods> publishedNamespacePods;
  Snapshot::NamespaceColumns publishedNamespaceColumns;
  std::vector<std::pair<const std::string*, NamespaceState*>> touchedNamespaces;
  bool namespaceSetChanged = true;
  ExistingTermIndex existingTerms;

  Snapshot::NamespaceLabels namespaces;
  std::shared_ptr<const NamespaceDirectory> publishedNamespaces;
  // PodDisruptionBudgets by namespace and name, the namespaces whose budgets changed since the
  // last publish, and what it published.
  std::map<std::string, std::map<std::string, PodDisruptionBudgetInfo, std::less<>>, std::less<>>
      pdbs;
  std::set<std::string, std::less<>> touchedPdbNamespaces;
  std::shared_ptr<const PodDisruptionBudgets> publishedPdbs =
      std::make_shared<const PodDisruptionBudgets>();
  // What terms spanning every namespace may match where, kept across snapshots.
  std::shared_ptr<Snapshot::SpanningMemos> spanningSelectors =
      std::make_shared<Snapshot::SpanningMemos>();
  Nominator nominator;

  // The pods relist in progress or last done, numbered from 1.
  std::uint32_t relistGeneration = 1;
  // The assumed pods (cache.go's assumedPods), with their times: kept here rather than in
  // every PodRecord, as a handful of pods are assumed at any time.
  std::unordered_map<std::string, Assumption> assumedPods;
  PlacementObserver* observer = nullptr;
  framework::runtime::DurationObserver* publishTiming = nullptr;
  // Awaited pods that got a place, and that left, since the last publish.
  std::vector<std::string> placedAwaited;
  std::vector<std::string> removedAwaited;

  std::atomic<std::size_t> numNodes{0};
  std::atomic<std::size_t> numAssignedPods{0};
  std::atomic<std::size_t> numAssumedPods{0};

  // Held only to copy or swap the pointer.
  mutable std::mutex publishedMu;
  std::shared_ptr<const Snapshot> published;

  NodeItem& itemFor(const std::string& name) {
    auto [it, inserted] = nodes.try_emplace(name);
    if (inserted) {
      it->second.info = std::make_shared<framework::NodeInfo>();
      if (freeSlots.empty()) {
        it->second.slot = numSlots++;
      } else {
        it->second.slot = freeSlots.back();
        freeSlots.pop_back();
      }
    }
    return it->second;
  }

  void eraseItem(std::unordered_map<std::string, NodeItem>::iterator it) {
    freeSlots.push_back(it->second.slot);
    nodes.erase(it);
  }

  framework::NodeInfo& mutableInfo(NodeItem& item) {
    if (item.shared) {
      item.info = std::make_shared<framework::NodeInfo>(*item.info);
      item.shared = false;
      copiedInfos.emplace_back(item.slot, &item);
    }
    return *item.info;
  }

  void place(PodRecord& record) {
    if (record.placement == Placement::Nominated) {
      nominator.add(record.info, record.node());
      return;
    }
    NodeItem& item = itemFor(record.node());
    record.slot = item.slot;
    mutableInfo(item).addPod(record.info);
    existingTerms.addPod(*record.info, record.slot);
    auto [entry, inserted] = assignedByNamespace.try_emplace(record.info->pod().metadata.ns);
    if (inserted) namespaceSetChanged = true;
    NamespaceState& ns = entry->second;
    touch(entry->first, ns);
    record.namespaceIndex = static_cast<std::uint32_t>(ns.pods.size());
    ns.pods.push_back(&record);
    record.indexed = false;
    record.addedIndex = static_cast<std::uint32_t>(ns.added.size());
    ns.added.push_back(&record);
    ns.publishedDelta.reset();
    ++numAssignedPods;
  }

  void unplace(PodRecord& record) {
    if (record.placement == Placement::Nominated) {
      nominator.remove(record.info, record.node());
      return;
    }
    auto item = nodes.find(record.node());
    mutableInfo(item->second).removePod(record.info->pod().metadata.uid);
    if (item->second.info->node() == nullptr && item->second.info->pods().empty()) {
      eraseItem(item);
    }
    existingTerms.removePod(*record.info, record.slot);
    auto it = assignedByNamespace.find(record.info->pod().metadata.ns);
    NamespaceState& ns = it->second;
    swapRemove(ns.pods, record.namespaceIndex, &PodRecord::namespaceIndex);
    if (ns.pods.empty()) {
      assignedByNamespace.erase(it);
      namespaceSetChanged = true;
    } else {
      touch(it->first, ns);
      if (record.indexed) {
        ns.removed.push_back(record.info.get());
      } else {
        swapRemove(ns.added, record.addedIndex, &PodRecord::addedIndex);
      }
      ns.publishedDelta.reset();
    }
    --numAssignedPods;
  }

  void touch(const std::string& name, NamespaceState& ns) {
    if (ns.touched) return;
    ns.touched = true;
    touchedNamespaces.emplace_back(&name, &ns);
  }

  // Removes records[index], moving the last record into its place.
  static void swapRemove(std::vector<PodRecord*>& records, std::uint32_t index,
                         std::uint32_t PodRecord::*position) {
    PodRecord* last = records.back();
    records[index] = last;
    last->*position = index;
    records.pop_back();
  }

  static bool needsIndex(const NamespaceState& ns) { return !ns.index || overlayTooLarge(ns); }

  // Builds the namespace's index afresh from its records and drops its overlay. It touches
  // only this namespace's state, so namespaces may be rebuilt on several threads at once.
  static void rebuildIndex(const std::string& name, NamespaceState& ns) {
    std::vector<NamespacePodIndex::Entry> entries;
    entries.reserve(ns.pods.size());
    for (PodRecord* record : ns.pods) {
      entries.push_back({record->info, record->slot});
      record->indexed = true;
    }
    ns.index = std::make_shared<const NamespacePodIndex>(name, std::move(entries));
    ns.indexSerial = ns.index->serial();
    ns.added.clear();
    ns.removed.clear();
    ns.publishedDelta.reset();
  }

  // At start-up and after a relist every namespace's index is rebuilt: a tenth of loading's
  // CPU at S4, after everything else is done. With enough of them to pay for starting
  // threads, they are built on every CPU; publishNamespace then finds them fresh.
  static void rebuildStaleIndexes(
      std::span<const std::pair<const std::string*, NamespaceState*>> candidates) {
    std::vector<std::pair<const std::string*, NamespaceState*>> stale;
    for (const auto& [name, ns] : candidates) {
      if (needsIndex(*ns)) stale.emplace_back(name, ns);
    }
    if (stale.size() < kParallelRebuilds) return;
    framework::runtime::Parallelizer workers(static_cast<int>(stale.size()));
    workers.until(static_cast<int>(stale.size()), [&](int i) {
      rebuildIndex(*stale[static_cast<std::size_t>(i)].first,
                   *stale[static_cast<std::size_t>(i)].second);
    });
  }

  // Brings publishedNamespacePods and its columns up to date: every namespace again when
  // one came or went, else the touched ones in place.
  void publishNamespaces() {
    Snapshot::NamespaceColumns& columns = publishedNamespaceColumns;
    if (namespaceSetChanged) {
      std::vector<std::pair<const std::string*, NamespaceState*>> all;
      all.reserve(assignedByNamespace.size());
      for (auto& [name, ns] : assignedByNamespace) all.emplace_back(&name, &ns);
      rebuildStaleIndexes(all);
      std::vector<Snapshot::NamespacePods> entries;
      entries.reserve(all.size());
      columns = {};
      for (const auto& [name, ns] : all) {
        ns->position = static_cast<std::uint32_t>(entries.size());
        ns->touched = false;
        entries.push_back(publishNamespace(*name, *ns));
        columns.indexes.push_back(entries.back().index.get());
        columns.serials.push_back(entries.back().serial);
        const NamespacePodIndex& added = addedPodsOf(entries.back());
        columns.addedIndexes.push_back(&added);
        columns.addedSerials.push_back(added.serial());
      }
      publishedNamespacePods = ChunkedArray<Snapshot::NamespacePods>(std::move(entries));
      namespaceSetChanged = false;
    } else if (!touchedNamespaces.empty()) {
      rebuildStaleIndexes(touchedNamespaces);
      std::vector<std::pair<std::size_t, Snapshot::NamespacePods>> changes;
      changes.reserve(touchedNamespaces.size());
      for (const auto& [name, ns] : touchedNamespaces) {
        ns->touched = false;
        Snapshot::NamespacePods entry = publishNamespace(*name, *ns);
        columns.indexes[ns->position] = entry.index.get();
        columns.serials[ns->position] = entry.serial;
        const NamespacePodIndex& added = addedPodsOf(entry);
        columns.addedIndexes[ns->position] = &added;
        columns.addedSerials[ns->position] = added.serial();
        changes.emplace_back(ns->position, std::move(entry));
      }
      publishedNamespacePods = publishedNamespacePods.with(changes);
    }
    // With the set changed, entries may name namespaces gone since: all were visited above.
    touchedNamespaces.clear();
  }

  // The budgets as of now: the namespaces touched since the last publish get new lists, the
  // others keep theirs.
  void publishPodDisruptionBudgets() {
    if (touchedPdbNamespaces.empty()) return;
    PodDisruptionBudgets::ByNamespace byNamespace = publishedPdbs->byNamespace();
    for (const std::string& ns : touchedPdbNamespaces) {
      const auto budgets = pdbs.find(ns);
      if (budgets == pdbs.end()) {
        byNamespace.erase(ns);
        continue;
      }
      auto list = std::make_shared<PodDisruptionBudgets::Namespace>();
      list->reserve(budgets->second.size());
      for (const auto& [name, info] : budgets->second) list->push_back(info);
      byNamespace.insert_or_assign(ns, std::move(list));
    }
    touchedPdbNamespaces.clear();
    publishedPdbs = std::make_shared<const PodDisruptionBudgets>(std::move(byNamespace));
  }

  static const NamespacePodIndex& addedPodsOf(const Snapshot::NamespacePods& entry) {
    return entry.delta ? entry.delta->added : Snapshot::noAddedPods();
  }

  // The namespace's index and overlay as of now, rebuilding the index if it is missing or
  // the overlay has grown too large.
  Snapshot::NamespacePods publishNamespace(const std::string& name, NamespaceState& ns) {
    if (needsIndex(ns)) {
      rebuildIndex(name, ns);
      return {ns.index, nullptr, ns.indexSerial};
    }
    if (ns.added.empty() && ns.removed.empty()) return {ns.index, nullptr, ns.indexSerial};
    if (!ns.publishedDelta) {
      std::vector<NamespacePodIndex::Entry> added;
      added.reserve(ns.added.size());
      for (const PodRecord* record : ns.added) added.push_back({record->info, record->slot});
      std::vector<const framework::PodInfo*> removed = ns.removed;
      std::sort(removed.begin(), removed.end());
      ns.publishedDelta =
          std::make_shared<const NamespacePodDelta>(name, std::move(added), std::move(removed));
    }
    return {ns.index, ns.publishedDelta, ns.indexSerial};
  }

  void removePod(const std::string& uid) {
    auto it = pods.find(uid);
    if (it == pods.end()) return;
    if (it->second.assumed) unassume(uid, it->second);
    unplace(it->second);
    pods.erase(it);
    noteRemoved(uid);
  }

  void unassume(const std::string& uid, PodRecord& record) {
    record.assumed = false;
    assumedPods.erase(uid);
    --numAssumedPods;
  }

  // The record `at` (end(): a new one) now holds `info`, keyed by its UID.
  PodRecord& hold(PodRecords::iterator at, framework::PodInfoPtr info) {
    if (at == pods.end()) {
      const std::string_view uid = info->pod().metadata.uid;
      at = pods.try_emplace(uid).first;
      at->second.info = std::move(info);
      return at->second;
    }
    auto entry = pods.extract(at);
    entry.mapped().info = std::move(info);
    entry.key() = entry.mapped().info->pod().metadata.uid;
    return pods.insert(std::move(entry)).position->second;
  }

  // The pod got a place: an observer waiting for it hears of it after the publish.
  void notePlaced(const std::string& uid) {
    if (observer != nullptr && observer->awaits(uid)) placedAwaited.push_back(uid);
  }
  // The pod left: likewise.
  void noteRemoved(const std::string& uid) {
    if (observer != nullptr && observer->awaits(uid)) removedAwaited.push_back(uid);
  }
};

Cache::Cache() : state_(std::make_unique<State>()) { publish(); }

Cache::~Cache() = default;

void Cache::upsertNode(api::Node node) {
  std::lock_guard lock(state_->mu);
  auto object = std::make_shared<const api::Node>(std::move(node));
  NodeItem& item = state_->itemFor(object->name);
  const api::Node* old = item.info->node();
  if (old != nullptr) {
    if (getZoneKey(*old) != getZoneKey(*object)) state_->nodeOrderChanged = true;
    state_->nodeTree.updateNode(*old, *object);
  } else {
    state_->nodeTree.addNode(*object);
    state_->nodeOrderChanged = true;
    ++state_->numNodes;
  }
  // Most node updates are status heartbeats: the labels, hence the topology, stay as they were.
  if (old == nullptr || old->labels != object->labels) {
    state_->topology.setNode(item.slot, object->labels);
    state_->publishedTopology.reset();
  }
  state_->mutableInfo(item).setNode(std::move(object), item.slot);
}

void Cache::deleteNode(std::string_view name) {
  std::lock_guard lock(state_->mu);
  auto it = state_->nodes.find(std::string(name));
  if (it == state_->nodes.end() || it->second.info->node() == nullptr) return;
  state_->nodeTree.removeNode(*it->second.info->node());
  state_->nodeOrderChanged = true;
  state_->topology.removeNode(it->second.slot);
  state_->publishedTopology.reset();
  --state_->numNodes;
  // Pods may still arrive for deletion after their node (separate watches), so a node
  // with pods stays behind as a ghost (cache.go RemoveNode).
  if (it->second.info->pods().empty()) {
    state_->eraseItem(it);
  } else {
    state_->mutableInfo(it->second).removeNode();
  }
}

framework::PodInfoPtr Cache::preparePod(api::Pod pod) const {
  // Held by UID: a pod that came without one (a hand-written file) is held by its key.
  if (pod.metadata.uid.empty()) pod.metadata.uid = pod.cacheKey();
  state_->labelsPool.share(pod.metadata.labels);
  return framework::PodInfo::forCache(std::move(pod), state_->termPool);
}

bool Cache::upsertPod(framework::PodInfoPtr info) {
  std::lock_guard lock(state_->mu);
  State& s = *state_;
  const api::Pod& pod = info->pod();
  const std::string& uid = pod.metadata.uid;
  // The scheduler's pod informer filters out Succeeded/Failed pods, so turning terminal
  // arrives as a delete.
  if (pod.isTerminal()) {
    s.removePod(uid);
    return false;
  }
  const bool assigned = !pod.spec.nodeName.empty();
  auto it = s.pods.find(uid);
  if (it != s.pods.end()) it->second.listedIn = s.relistGeneration;
  const bool wasAssigned = it != s.pods.end() && it->second.placement == Placement::Assigned;
  if (it != s.pods.end() && it->second.assumed) {
    // An update from before the binding (the watch lags behind /bind): the assumption stands,
    // as upstream's cache never sees unassigned pods. A bound one confirms it, on the node
    // the API server has, which place() below moves it to if it differs.
    if (!assigned) return false;
    s.unassume(uid, it->second);
  }
  if (it != s.pods.end()) s.unplace(it->second);

  if (!assigned && pod.status.nominatedNodeName.empty()) {
    if (it != s.pods.end()) s.pods.erase(it);
    return false;
  }
  PodRecord& record = s.hold(it, std::move(info));
  record.listedIn = s.relistGeneration;
  record.placement = assigned ? Placement::Assigned : Placement::Nominated;
  s.place(record);
  const bool placed = assigned && !wasAssigned;
  if (placed) s.notePlaced(record.info->pod().metadata.uid);
  return placed;
}

void Cache::deletePod(std::string_view uid) {
  std::lock_guard lock(state_->mu);
  state_->removePod(std::string(uid));
}

AssumeResult Cache::assumePod(api::Pod pod, const std::string& node) {
  pod.spec.nodeName = node;
  framework::PodInfoPtr info = preparePod(std::move(pod));
  std::lock_guard lock(state_->mu);
  State& s = *state_;
  const std::string& uid = info->pod().metadata.uid;  // lives on in the record
  auto it = s.pods.find(uid);
  if (it != s.pods.end() && it->second.placement == Placement::Assigned) {
    return AssumeResult::AlreadyPlaced;
  }
  // A nominated pod: assuming it deletes its nomination (DeleteNominatedPodIfExists).
  if (it != s.pods.end()) s.unplace(it->second);
  PodRecord& record = s.hold(it, std::move(info));
  record.placement = Placement::Assigned;
  record.assumed = true;
  s.place(record);
  s.assumedPods.insert_or_assign(uid, Assumption{std::chrono::steady_clock::now(), std::nullopt});
  ++s.numAssumedPods;
  s.notePlaced(uid);
  return AssumeResult::Assumed;
}

void Cache::finishBinding(std::string_view uid, std::chrono::steady_clock::time_point boundAt) {
  std::lock_guard lock(state_->mu);
  auto it = state_->assumedPods.find(std::string(uid));
  if (it == state_->assumedPods.end()) return;  // confirmed meanwhile
  it->second.boundAt = boundAt;
}

void Cache::forgetPod(std::string_view uid) {
  std::lock_guard lock(state_->mu);
  const std::string key(uid);
  auto it = state_->pods.find(key);
  if (it == state_->pods.end() || !it->second.assumed) return;  // the watch has the truth
  state_->removePod(key);
}

void Cache::beginPodRelist() {
  std::lock_guard lock(state_->mu);
  ++state_->relistGeneration;
}

std::size_t Cache::endPodRelist(std::chrono::steady_clock::time_point listStarted) {
  std::lock_guard lock(state_->mu);
  State& s = *state_;
  std::vector<std::string> gone;
  for (const auto& [uid, record] : s.pods) {
    if (record.listedIn == s.relistGeneration) continue;
    // An assumption only /bind made stands unless its binding predates the list; a pod the
    // API server showed before is gone, assumed since or not, as the informer's store deletes
    // every key it held that the list lacks.
    const bool fromApiServer = record.listedIn != 0;
    bool boundBeforeList = false;
    if (record.assumed) {
      const auto& boundAt = s.assumedPods.at(std::string(uid)).boundAt;
      boundBeforeList = boundAt && *boundAt < listStarted;
    }
    if (fromApiServer || boundBeforeList) gone.emplace_back(uid);
  }
  for (const auto& uid : gone) s.removePod(uid);
  return gone.size();
}

std::optional<std::chrono::steady_clock::time_point> Cache::oldestAssumedPod() const {
  std::lock_guard lock(state_->mu);
  std::optional<std::chrono::steady_clock::time_point> oldest;
  for (const auto& [uid, assumption] : state_->assumedPods) {
    if (!oldest || assumption.assumedAt < *oldest) oldest = assumption.assumedAt;
  }
  return oldest;
}

std::optional<std::string> Cache::assignedNode(std::string_view uid) const {
  std::lock_guard lock(state_->mu);
  const auto it = state_->pods.find(std::string(uid));
  if (it == state_->pods.end() || it->second.placement != Placement::Assigned) return std::nullopt;
  return it->second.node();
}

void Cache::setPlacementObserver(PlacementObserver* observer) {
  std::lock_guard lock(state_->mu);
  state_->observer = observer;
}

void Cache::setPublishObserver(framework::runtime::DurationObserver* observer) {
  std::lock_guard lock(state_->mu);
  state_->publishTiming = observer;
}

void Cache::upsertNamespace(api::Namespace ns) {
  std::lock_guard lock(state_->mu);
  state_->namespaces.insert_or_assign(std::move(ns.name), std::move(ns.labels));
  state_->publishedNamespaces.reset();
}

void Cache::deleteNamespace(std::string_view name) {
  std::lock_guard lock(state_->mu);
  auto it = state_->namespaces.find(name);
  if (it == state_->namespaces.end()) return;
  state_->namespaces.erase(it);
  state_->publishedNamespaces.reset();
}

void Cache::upsertPodDisruptionBudget(const api::PodDisruptionBudget& pdb) {
  PodDisruptionBudgetInfo info(pdb);  // the selector parsed outside the lock
  std::lock_guard lock(state_->mu);
  state_->pdbs[pdb.metadata.ns].insert_or_assign(pdb.metadata.name, std::move(info));
  state_->touchedPdbNamespaces.insert(pdb.metadata.ns);
}

void Cache::deletePodDisruptionBudget(std::string_view key) {
  const std::size_t slash = key.find('/');
  const std::string_view ns = key.substr(0, slash);
  const std::string_view name = slash == std::string_view::npos ? "" : key.substr(slash + 1);
  std::lock_guard lock(state_->mu);
  const auto budgets = state_->pdbs.find(ns);
  if (budgets == state_->pdbs.end()) return;
  const auto it = budgets->second.find(name);
  if (it == budgets->second.end()) return;
  budgets->second.erase(it);
  state_->touchedPdbNamespaces.emplace(ns);
  if (budgets->second.empty()) state_->pdbs.erase(budgets);
}

void Cache::publish() {
  std::unique_lock lock(state_->mu);
  const auto began = std::chrono::steady_clock::now();
  State& s = *state_;

  if (s.nodeOrderChanged) {
    auto names = std::make_shared<NodeNameIndex>();
    auto order = std::make_shared<std::vector<framework::NodeSlot>>();
    std::vector<std::shared_ptr<const framework::NodeInfo>> bySlot(s.numSlots);
    s.positionBySlot.assign(s.numSlots, 0);
    for (const auto& name : s.nodeTree.list()) {
      NodeItem& item = s.nodes.at(name);
      item.shared = true;
      s.positionBySlot[item.slot] = static_cast<std::uint32_t>(order->size());
      order->push_back(item.slot);
      bySlot[item.slot] = item.info;
      names->add(name, item.slot);
    }
    s.names = std::move(names);
    s.publishedRealSlots = std::make_shared<const framework::SlotSet>(*order);
    s.publishedOrder = std::move(order);
    s.publishedNodes = NodeInfosBySlot(std::move(bySlot));
  } else if (!s.copiedInfos.empty()) {
    // Same real nodes at the same slots since the last publish: a slot published empty is a
    // ghost's (its item may be gone since), any other still has its item.
    std::vector<std::pair<std::size_t, std::shared_ptr<const framework::NodeInfo>>> copies;
    for (const auto& [slot, item] : s.copiedInfos) {
      if (nodeInfoAt(s.publishedNodes, slot) == nullptr) continue;
      item->shared = true;
      copies.emplace_back(slot, item->info);
    }
    s.publishedNodes = s.publishedNodes.with(copies);
  }
  s.copiedInfos.clear();
  if (!s.publishedTopology) {
    s.publishedTopology = std::make_shared<const framework::TopologyIndex>(s.topology);
  }
  Snapshot::Parts parts;
  parts.names = s.names;
  parts.topology = s.publishedTopology;
  parts.nodes = s.publishedNodes;
  parts.order = s.publishedOrder;
  parts.realSlots = s.publishedRealSlots;

  s.publishNamespaces();
  parts.namespacePods = s.publishedNamespacePods;
  parts.namespaceColumns = s.publishedNamespaceColumns;

  parts.existingTerms =
      s.existingTerms.materialize(s.publishedNodes, s.positionBySlot, s.nodeOrderChanged);
  s.nodeOrderChanged = false;

  if (!s.publishedNamespaces) {
    s.publishedNamespaces = std::make_shared<const NamespaceDirectory>(s.namespaces);
  }
  parts.namespaces = s.publishedNamespaces;
  s.publishPodDisruptionBudgets();
  parts.podDisruptionBudgets = s.publishedPdbs;
  parts.spanningSelectors = s.spanningSelectors;
  parts.nominated = s.nominator.publish(s.names, s.numSlots);

  std::shared_ptr<const Snapshot> snapshot(new Snapshot(std::move(parts)));
  {
    std::lock_guard publishedLock(s.publishedMu);
    s.published.swap(snapshot);
  }
  // The previous snapshot, if no request holds it any more, is freed here, outside the
  // pointer lock.
  snapshot.reset();

  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - began;
  framework::runtime::DurationObserver* timing = s.publishTiming;
  std::vector<std::string> placed;
  std::vector<std::string> removed;
  placed.swap(s.placedAwaited);
  removed.swap(s.removedAwaited);
  PlacementObserver* observer = s.observer;
  lock.unlock();
  if (timing != nullptr) timing->observe(took.count());
  if (!placed.empty()) observer->placementsPublished(placed);
  if (!removed.empty()) observer->removalsPublished(removed);
}

std::shared_ptr<const Snapshot> Cache::snapshot() const {
  std::lock_guard lock(state_->publishedMu);
  return state_->published;
}

std::size_t Cache::numNodes() const { return state_->numNodes.load(); }

std::size_t Cache::numAssignedPods() const { return state_->numAssignedPods.load(); }

std::size_t Cache::numAssumedPods() const { return state_->numAssumedPods.load(); }

}  // namespace scheduling::cache
