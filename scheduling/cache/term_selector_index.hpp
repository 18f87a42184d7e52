#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduling/api/labels.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::cache {

// The distinct affinity terms of one kind that assigned pods carry, filed by what their label
// selector requires, so that an incoming pod's labels lead to the terms that may select it
// without visiting the others. InterPodAffinity asks "which existing terms match this pod?"
// in PreFilter and PreScore; without this, every request paid for every workload's terms.
//
// A term is filed under one of its requirements (they are ANDed, so any one of them must
// hold): an `In` (under each of its values; a pod has one value per key, so it is found at
// most once), else an `Exists` (under its key). A term with neither (Everything, or only
// NotIn / DoesNotExist) may select a pod without any given label, and is always a candidate;
// a Nothing selector selects no pod and is not filed at all.
//
// Terms are filed by namespace first. Most list only their own pod's namespace and have no
// namespaceSelector: they can only select a pod of a namespace they list, and are filed under
// each of those. The others (a namespaceSelector, which may admit any namespace by its
// labels) are filed once for every namespace. Without this, a pod labelled `tier: backend`
// visited the `tier` terms of every namespace of the cluster, to find its own among them.
class TermSelectorIndex {
 public:
  // `terms[i]` is the term at position i of the snapshot's list; views into the terms are
  // kept, so they must outlive the index.
  explicit TermSelectorIndex(std::span<const framework::AffinityTerm* const> terms);

  // Calls fn(position) for a superset of the terms that may select a pod of namespace `ns`
  // with `labels`, each position at most once. The caller still checks the term.
  template <typename Fn>
  void forEachCandidate(std::string_view ns, const api::Labels& labels, Fn&& fn) const {
    anyNamespace_.forEachCandidate(labels, fn);
    auto it = byNamespace_.find(ns);
    if (it != byNamespace_.end()) it->second.forEachCandidate(labels, fn);
  }

 private:
  struct Key {
    std::vector<std::uint32_t> exists;
    std::unordered_map<std::string_view, std::vector<std::uint32_t>> values;
  };
  // Terms filed by their label selector alone.
  struct Filed {
    std::unordered_map<std::string_view, Key> keys;
    std::vector<std::uint32_t> always;

    void add(std::uint32_t position, const labels::Selector& selector);
    template <typename Fn>
    void forEachCandidate(const api::Labels& labels, Fn&& fn) const {
      for (std::uint32_t position : always) fn(position);
      if (keys.empty()) return;
      for (const auto& [key, value] : labels) {
        auto k = keys.find(std::string_view(key));
        if (k == keys.end()) continue;
        for (std::uint32_t position : k->second.exists) fn(position);
        auto v = k->second.values.find(std::string_view(value));
        if (v == k->second.values.end()) continue;
        for (std::uint32_t position : v->second) fn(position);
      }
    }
  };
  Filed anyNamespace_;
  std::unordered_map<std::string_view, Filed> byNamespace_;
};

}  // namespace scheduling::cache
