#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduling/cache/namespace_pod_index.hpp"
#include "scheduling/cache/term_selector_index.hpp"
#include "scheduling/framework/string_table.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::cache {

// Node name → the pods nominated to it, in nomination order: the Cache's nominator
// (nominator.go), hashed by name as the node name index is.
struct NodeNameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view name) const noexcept {
    return std::hash<std::string_view>{}(name);
  }
};
using NominatedPodsByNode = std::unordered_map<std::string, std::vector<framework::PodInfoPtr>,
                                               NodeNameHash, std::equal_to<>>;

// The nominated pods as snapshots hand them out: per node, and indexed for the two questions
// InterPodAffinity asks about them once per cycle, so that the filter pass with nominated
// pods can tell which of them change its counts without reading the others at all:
//  - forEachMatching: which nominated pods a term of the incoming pod selects;
//  - forEachWithRequiredAntiAffinitySelecting: which nominated pods carry a required
//    anti-affinity term that may select the incoming pod.
// These are the questions SharedLister's forEachPodMatching and forEachExistingTermSelecting
// answer for assigned pods, over the same kinds of index.
//
// Built by the Cache when the nominations change and shared by the snapshots in between. The
// label indexes are the Cache's, one per namespace, rebuilt only for a namespace whose
// nominated pods changed: a nomination then costs a walk over the nominated pods, not a sort
// of their labels.
class NominatedPodIndex {
 public:
  // `byNamespace`: the label indexes of the same pods, one per namespace, sorted by name.
  NominatedPodIndex(const NominatedPodsByNode& byNode,
                    std::vector<std::shared_ptr<const NamespacePodIndex>> byNamespace);
  NominatedPodIndex(const NominatedPodIndex&) = delete;
  NominatedPodIndex& operator=(const NominatedPodIndex&) = delete;

  // The pods nominated to `node`, in nomination order.
  std::span<const framework::NominatedPod> forNode(std::string_view node) const;
  // fn(node name, its nominated pods) for every node with some.
  template <typename Fn>
  void forEachNode(Fn&& fn) const {
    for (std::uint32_t id = 0; id < rangeByNode_.size(); ++id) {
      fn(nodeNames_.at(id), pods(rangeByNode_[id]));
    }
  }

  // Calls fn(const PodInfo&) for every nominated pod `term` matches with empty namespace
  // labels (term.matches(pod, {})), each once.
  void forEachMatching(const framework::AffinityTerm& term,
                       const std::function<void(const framework::PodInfo& pod)>& fn) const;

  // Calls fn(term, pod) for every required anti-affinity term of a nominated pod that may
  // select a pod of `podNamespace` with `podLabels` (a superset: the caller checks the term),
  // each pair once.
  void forEachWithRequiredAntiAffinitySelecting(
      std::string_view podNamespace, const api::Labels& podLabels,
      const std::function<void(const framework::AffinityTerm& term, const framework::PodInfo& pod)>&
          fn) const;

 private:
  struct Range {
    std::uint32_t begin;
    std::uint32_t end;
  };
  std::span<const framework::NominatedPod> pods(Range r) const {
    return std::span(pods_).subspan(r.begin, r.end - r.begin);
  }

  std::vector<framework::NominatedPod> pods_;  // grouped by node
  framework::StringTable nodeNames_;           // the nodes with nominated pods, numbered
  std::vector<Range> rangeByNode_;             // by node number
  // Sorted by namespace name; slots are not used.
  std::vector<std::shared_ptr<const NamespacePodIndex>> byNamespace_;
  // The distinct required anti-affinity terms of the nominated pods (pods of one workload
  // share theirs), the pods carrying each, and the terms filed by selector (built last, from
  // the terms).
  std::vector<const framework::AffinityTerm*> antiAffinityTerms_;
  std::vector<std::vector<const framework::PodInfo*>> podsByAntiAffinityTerm_;
  std::optional<TermSelectorIndex> antiAffinityBySelector_;
};

}  // namespace scheduling::cache
