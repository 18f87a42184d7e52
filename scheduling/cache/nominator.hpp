#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "scheduling/cache/nominated_pod_index.hpp"

namespace scheduling::cache {

// The Cache's nominator (the scheduling queue's nominator.go): node → the pods nominated to
// it, in nomination order, plus what the snapshots' NominatedPodIndex needs to be rebuilt
// piecewise. Not thread-safe: the Cache calls it under its lock.
//
// A change marks what it touched (the node's queue, the namespace's label index, the pod's
// anti-affinity terms); publish() remakes only those and shares the rest with the previous
// index, so a nomination at 50,000 nodes and 10,000 nominated pods costs what one at 100
// nodes does.
class Nominator {
 public:
  Nominator();

  // `pod` nominated to `node`, after the pods nominated there before it.
  void add(const framework::PodInfoPtr& pod, const std::string& node);
  // Undoes add(pod, node) for the same PodInfoPtr.
  void remove(const framework::PodInfoPtr& pod, const std::string& node);

  // The index as of now, the previous one when nothing changed. `names` are the real nodes'
  // slots in the snapshot being published, below `numSlots`; when they are not the previous
  // call's (nodes came, went or moved), every queue is refiled.
  std::shared_ptr<const NominatedPodIndex> publish(
      const std::shared_ptr<const NodeNameIndex>& names, std::size_t numSlots);

 private:
  using Pods = std::vector<framework::PodInfoPtr>;

  struct Namespace {
    Pods pods;
    std::shared_ptr<const NamespacePodIndex> index;  // null once `pods` changed
    std::uint32_t position = 0;  // in the published indexes, when not new
    bool touched = false;
  };
  struct TermPods {
    Pods pods;
    std::uint32_t position = 0;  // in the term table, for the term's life
  };

  void refileAll(const NodeNameIndex& names, std::size_t numSlots);
  void refileTouched(const NodeNameIndex& names);
  void publishNamespaces();
  const std::shared_ptr<const NamespacePodIndex>& indexOf(const std::string& name, Namespace& ns);
  void publishAntiAffinity();
  void fileTerm(const framework::AffinityTerm& term, std::uint32_t position, bool file);
  void touchTermPosition(std::uint32_t position);
  void touchShard(std::size_t shard);

  std::unordered_map<std::string, Pods, NodeNameHash, std::equal_to<>> byNode_;
  std::unordered_set<std::string> touchedNodes_;
  std::map<std::string, Namespace, std::less<>> byNamespace_;
  // Entries of byNamespace_; not read once the set of namespaces changed (one may be gone).
  std::vector<std::pair<const std::string, Namespace>*> touchedNamespaces_;
  bool namespaceSetChanged_ = false;
  std::unordered_map<const framework::AffinityTerm*, TermPods> byAntiAffinityTerm_;
  // The term table: the term at each position (null: free), the free positions, and the
  // positions and shards whose published entries are stale.
  std::vector<const framework::AffinityTerm*> termAt_;
  std::vector<std::uint32_t> freeTermPositions_;
  std::vector<bool> termPositionTouched_;
  std::vector<std::uint32_t> touchedTermPositions_;
  // Each shard's terms, as (position, term).
  std::vector<std::vector<std::pair<std::uint32_t, const framework::AffinityTerm*>>>
      termsByShard_;
  std::vector<bool> shardTouched_;
  std::vector<std::size_t> touchedShards_;

  // As last published.
  NominatedPodIndex::Parts parts_;
  NominatedPodIndex::QueuesByName byUnknownName_;
  std::shared_ptr<const NominatedPodIndex> published_;
};

}  // namespace scheduling::cache
