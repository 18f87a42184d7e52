#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/api/node.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/labels/selector.hpp"

// Scheduling-side views of pods and nodes, after pkg/scheduler/framework/types.go.
namespace scheduling::framework {

// A processed pod (anti-)affinity term (framework.AffinityTerm).
struct AffinityTerm {
  labels::Selector selector = labels::Selector::nothing();
  std::vector<std::string> namespaces;  // sorted, unique
  labels::Selector namespaceSelector = labels::Selector::nothing();
  std::string topologyKey;

  // True iff (pod's namespace is listed OR namespaceSelector matches nsLabels) AND the
  // selector matches the pod's labels. Pass empty labels where upstream passes nil.
  bool matches(const api::Pod& pod, const api::Labels& nsLabels) const;
  bool hasNamespace(std::string_view ns) const;
  bool operator==(const AffinityTerm&) const = default;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  std::int32_t weight = 0;
  bool operator==(const WeightedAffinityTerm&) const = default;
};

// A pod's four parsed affinity term lists, shared by the cached pods whose lists are equal
// (the replicas of one workload in one namespace; AffinityTermPool), and what failed to
// parse, kept with them because it is as rare as it is the same across replicas.
struct AffinityTermLists {
  std::vector<AffinityTerm> requiredAffinity;
  std::vector<AffinityTerm> requiredAntiAffinity;
  std::vector<WeightedAffinityTerm> preferredAffinity;
  std::vector<WeightedAffinityTerm> preferredAntiAffinity;
  std::string parseError;  // "" when every term parsed
  bool operator==(const AffinityTermLists&) const = default;
};

class AffinityTermPool;

// framework.PodInfo: the pod with its affinity terms parsed once.
class PodInfo {
 public:
  // framework.NewPodInfo. A term that fails to parse leaves its whole list empty and
  // records the error (aggregated as utilerrors.NewAggregate formats it); the pod is
  // still usable, as upstream's cache keeps such pods with the lists that did parse.
  explicit PodInfo(std::shared_ptr<const api::Pod> pod);
  // The PodInfo of a pod the cache keeps, built for memory (the cache holds 150k of them on
  // S3). Once its terms are parsed nothing reads the raw spec.affinity of a cached pod
  // again, and those selectors were a sixth of S3's heap (56 of 332 MiB), so this copy of
  // the pod goes without them: pod().spec.affinity is empty, the parsed terms and
  // hasPodAffinityOrAntiAffinity() are what to ask. Nor does it keep spec.schedulerName,
  // which only /bind reads, of the pod it fetches (a heap string per pod: "default-scheduler"
  // is past the small-string limit). Its term lists are shared through `pool` with the pods
  // whose lists are equal (another 40 MiB on S3).
  static std::shared_ptr<const PodInfo> forCache(api::Pod pod, AffinityTermPool& pool);

  const api::Pod& pod() const { return *pod_; }
  const std::shared_ptr<const api::Pod>& podPtr() const { return pod_; }
  // pod().priority(), and a hash of the pod's UID: what a NominatedPod copies, and what the
  // filter pass with nominated pods compares them with, computed once per pod.
  std::int32_t priority() const { return priority_; }
  std::uint64_t uidHash() const { return uidHash_; }
  const std::string& parseError() const { return terms_->parseError; }

  const std::vector<AffinityTerm>& requiredAffinityTerms() const {
    return terms_->requiredAffinity;
  }
  const std::vector<AffinityTerm>& requiredAntiAffinityTerms() const {
    return terms_->requiredAntiAffinity;
  }
  const std::vector<WeightedAffinityTerm>& preferredAffinityTerms() const {
    return terms_->preferredAffinity;
  }
  const std::vector<WeightedAffinityTerm>& preferredAntiAffinityTerms() const {
    return terms_->preferredAntiAffinity;
  }
  // Mutable access for the plugins that rewrite the incoming pod's namespaces
  // (mergeAffinityTermNamespacesIfNotEmpty) on their own copy: lists this PodInfo shares
  // with another (a copy of it, or the empty lists of pods without terms) are copied first.
  std::vector<AffinityTerm>& mutableRequiredAffinityTerms() { return ownTerms().requiredAffinity; }
  std::vector<AffinityTerm>& mutableRequiredAntiAffinityTerms() {
    return ownTerms().requiredAntiAffinity;
  }
  std::vector<WeightedAffinityTerm>& mutablePreferredAffinityTerms() {
    return ownTerms().preferredAffinity;
  }
  std::vector<WeightedAffinityTerm>& mutablePreferredAntiAffinityTerms() {
    return ownTerms().preferredAntiAffinity;
  }

  // spec.affinity.podAffinity or .podAntiAffinity is set (NodeInfo.PodsWithAffinity).
  bool hasPodAffinityOrAntiAffinity() const { return hasPodAffinity_; }

 private:
  std::shared_ptr<const api::Pod> pod_;
  std::int32_t priority_;
  std::uint64_t uidHash_;
  bool hasPodAffinity_ = false;
  // Never null. Shared when use_count() > 1: by copies of this PodInfo, by cached pods
  // through the pool, or the empty lists every pod without terms points to.
  std::shared_ptr<AffinityTermLists> terms_;

  AffinityTermLists& ownTerms();
};

using PodInfoPtr = std::shared_ptr<const PodInfo>;

// A pod nominated to a node, as listers hand it out: with the two things the filter pass
// with nominated pods asks of every such pod first (its priority, and whether it is the pod
// being scheduled) copied beside the pointer. Answering them from the PodInfo cost a cache
// miss per nominated pod, a fifth of a 10,000-node /filter.
struct NominatedPod {
  explicit NominatedPod(PodInfoPtr pod)
      : info(std::move(pod)), priority(info->priority()), uidHash(info->uidHash()) {}

  // PodInfo::sameUid, reading the PodInfo only when the hashes agree.
  bool sameUid(const PodInfo& other) const {
    return uidHash == other.uidHash() && info->pod().metadata.uid == other.pod().metadata.uid;
  }

  PodInfoPtr info;
  std::int32_t priority;
  std::uint64_t uidHash;
};

// A node's row in a snapshot's per-node tables (the Cache's slot number for it, stable for
// the node's life), kNoSlot for a NodeInfo that is no snapshot's.
using NodeSlot = std::uint32_t;
inline constexpr NodeSlot kNoSlot = std::numeric_limits<NodeSlot>::max();

// A NodeInfo's pods, or one of its sub-lists: the pods it borrows from the NodeInfo it was
// copied from, then its own. Iterates, sizes and indexes like the slice upstream.
class PodList {
 public:
  using Pods = std::span<const PodInfo* const>;

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = const PodInfo*;
    using difference_type = std::ptrdiff_t;
    using pointer = const PodInfo* const*;
    using reference = const PodInfo* const&;

    Iterator() = default;
    reference operator*() const {
      return i_ < first_.size() ? first_[i_] : second_[i_ - first_.size()];
    }
    Iterator& operator++() { return ++i_, *this; }
    Iterator operator++(int) { return {first_, second_, i_++}; }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.i_ == b.i_; }

   private:
    friend class PodList;
    Iterator(Pods first, Pods second, std::size_t i) : first_(first), second_(second), i_(i) {}
    Pods first_;
    Pods second_;
    std::size_t i_ = 0;
  };

  PodList(Pods borrowed, Pods own) : borrowed_(borrowed), own_(own) {}

  std::size_t size() const { return borrowed_.size() + own_.size(); }
  bool empty() const { return size() == 0; }
  const PodInfo* operator[](std::size_t i) const {
    return i < borrowed_.size() ? borrowed_[i] : own_[i - borrowed_.size()];
  }
  Iterator begin() const { return {borrowed_, own_, 0}; }
  Iterator end() const { return {borrowed_, own_, size()}; }

 private:
  Pods borrowed_;
  Pods own_;
};

// framework.NodeInfo, reduced to what the plugins here read: the node, its pods, and the
// sub-lists of pods with affinity and with required anti-affinity.
//
// The lists hold plain pointers, as upstream's slices do, and ownership is kept apart. A
// borrowing copy (the filter pass with nominated pods, /preempt's candidate node) views the
// lists of the NodeInfo it was made from and lists only the pods added to it: making one
// for each of the ~1,300 nodes with nominated pods of a 5,000-node request copied ~40 pod
// pointers each, and the reference counts they used to be were a third of /filter's time.
//
// Upstream's Generation is left out: the Cache shares unchanged NodeInfos between snapshots
// copy-on-write instead of comparing generations, and the process-wide counter every
// AddPod bumped was contended by the threads filtering a request's nominated pods.
class NodeInfo {
 public:
  NodeInfo() = default;
  explicit NodeInfo(std::shared_ptr<const api::Node> node)
      : node_(node.get()), nodeOwner_(std::move(node)) {}

  // A copy whose node and pods stay owned by this NodeInfo: valid while this one is alive
  // and unchanged, as the NodeInfos of a snapshot are for a whole cycle. Pods added to the
  // copy are owned by the copy.
  NodeInfo borrowingCopy() const;
  // Makes this NodeInfo a borrowing copy of `other`, reusing its own storage: the runtime
  // keeps one per thread for the nodes with nominated pods.
  void borrow(const NodeInfo& other);
  // The NodeInfo a borrowing copy was made from (itself when it is no such copy).
  const NodeInfo& origin() const { return origin_ != nullptr ? *origin_ : *this; }

  // Null for a "ghost" node known only through its pods (cache.go keeps those).
  const api::Node* node() const { return node_; }
  // Where the snapshot holding this NodeInfo keeps the node's labels as topology values
  // (SharedLister::topology()): a NodeInfo whose labels are not the snapshot's row has none.
  NodeSlot slot() const { return slot_; }
  const std::string& name() const;
  const api::Labels& labels() const;

  PodList pods() const { return list(&Lists::pods); }
  PodList podsWithAffinity() const { return list(&Lists::withAffinity); }
  PodList podsWithRequiredAntiAffinity() const { return list(&Lists::withRequiredAntiAffinity); }
  // Pods with a deletionTimestamp, counted as pods come and go so that PodState's Score
  // reads one number instead of walking the pods of every node it scores.
  std::int64_t numTerminatingPods() const { return numTerminatingPods_; }

  // A new Node object clears the slot, since the snapshot's row may not show its labels: the
  // lister that builds its rows from this node passes the slot along.
  void setNode(std::shared_ptr<const api::Node> node, NodeSlot slot = kNoSlot);
  void removeNode();
  void addPod(PodInfoPtr pod);
  // Removes by UID, swapping the last element into the hole as upstream does (order is
  // not stable). Returns false when no pod has that UID.
  bool removePod(std::string_view uid);

 private:
  struct Lists {
    std::vector<const PodInfo*> pods;
    std::vector<const PodInfo*> withAffinity;
    std::vector<const PodInfo*> withRequiredAntiAffinity;
  };
  PodList list(std::vector<const PodInfo*> Lists::*which) const {
    const std::span<const PodInfo* const> borrowed =
        borrowed_ != nullptr ? std::span<const PodInfo* const>(borrowed_->*which)
                             : std::span<const PodInfo* const>();
    return {borrowed, own_.*which};
  }
  // Turns a borrowing copy into one with lists of its own, before removing a pod.
  void ownLists();

  // What Filter and Score read of every node they see comes first, in 32 bytes: mostly one
  // cache line of a NodeInfo they touch once per request.
  const api::Node* node_ = nullptr;
  const NodeInfo* origin_ = nullptr;  // set in borrowing copies
  NodeSlot slot_ = kNoSlot;
  std::int64_t numTerminatingPods_ = 0;
  // Keeps node_ alive; null in a borrowing copy, whose node the origin owns.
  std::shared_ptr<const api::Node> nodeOwner_;
  const Lists* borrowed_ = nullptr;  // the origin's lists, listed before own_
  Lists own_;
  // Keeps own_'s pods alive; in a borrowing copy, only the pods added to it.
  std::vector<PodInfoPtr> owned_;
};

// Starts loading the first cache line of the NodeInfo four positions after `i` in a loop
// over `nodes`, wrapping around: the NodeInfos a request sends lie anywhere in a heap of a
// gigabyte at 50,000 nodes, and the loops of Filter and Score otherwise wait for each one's
// first read. The work on the three nodes between hides the miss.
inline void prefetchNodeAhead(std::span<const NodeInfo* const> nodes, std::size_t i) {
  constexpr std::size_t kAhead = 4;
  __builtin_prefetch(nodes[(i + kAhead) % nodes.size()]);
}

}  // namespace scheduling::framework
