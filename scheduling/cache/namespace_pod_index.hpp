#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/framework/types.hpp"
#include "scheduling/labels/selector.hpp"

namespace scheduling::cache {

// The assigned pods of one namespace with an inverted index over their labels, so that a
// label selector only visits the pods that can match it: key → value → pods for `In`,
// key → pods for `Exists`. Immutable once built; snapshots share it for as long as the
// namespace's pods do not change.
//
// The index is flat (sorted runs over one postings array, found by binary search) rather
// than maps of vectors: labels with a value per pod (pod names, hashes) would otherwise
// cost an allocation per pod, and building dominates publishing a snapshot. Runs are ordered
// by their label's hash, so that a search compares numbers held in the runs rather than
// label bytes held in the pods: a term that spans every namespace searches each one.
class NamespacePodIndex {
 public:
  struct Entry {
    framework::PodInfoPtr pod;
    std::uint32_t slot;  // the Cache's slot of the pod's node
  };

  NamespacePodIndex(std::string ns, std::vector<Entry> pods);
  NamespacePodIndex(const NamespacePodIndex&) = delete;
  NamespacePodIndex& operator=(const NamespacePodIndex&) = delete;

  const std::string& ns() const { return ns_; }
  std::size_t size() const { return pods_.size(); }
  // Unique to this index among all built in the process: what SpanningSelectorMemo tells
  // indexes apart by, where an address could be reused.
  std::uint64_t serial() const { return serial_; }

  // postings_[begin, end): the pods of one label key or of one (key, value).
  struct Range {
    std::uint32_t begin;
    std::uint32_t end;
  };
  // Where the pods a selector matches lie: none for Nothing; else the postings of the most
  // selective `In` or `Exists` requirement (requirements are ANDed, so any one of them
  // bounds the result); else every pod. The candidates are checked against the selector
  // unless that requirement is its only one: then the postings are the answer (the common
  // `matchLabels: {app: x}`), and checking each pod's labels again was most of a walk over a
  // workload's replicas.
  //
  // A plan holds no pointer into the selector, and its ranges index this index's postings:
  // a caller may keep it for as long as it holds this index. SpanningSelectorMemo does, for
  // the terms that span every namespace and would otherwise plan in each of hundreds of
  // namespaces (hashes, a probe, binary searches over label bytes) on every request.
  struct Plan {
    bool all = false;     // every pod
    bool checked = true;  // each candidate is checked against the selector
    // The ranges of the postings to walk when !all: [firstRange, endRange) of the vector
    // plan() appended them to.
    std::uint32_t firstRange = 0;
    std::uint32_t endRange = 0;
  };
  // nullopt when no pod here can match `selector` (sure); else its plan, with the ranges
  // appended to `ranges`.
  std::optional<Plan> plan(const labels::Selector& selector, std::vector<Range>& ranges) const;

  // Calls fn(const Entry&) for every pod `selector` matches, each once.
  template <typename Fn>
  void forEachMatching(const labels::Selector& selector, Fn&& fn) const {
    std::vector<Range> ranges;
    if (const auto p = plan(selector, ranges)) forEachMatching(*p, ranges, selector, fn);
  }
  // The same, along a plan made here for `selector` (or an equal one) into `ranges`.
  template <typename Fn>
  void forEachMatching(const Plan& plan, std::span<const Range> ranges,
                       const labels::Selector& selector, Fn&& fn) const;

 private:
  // postings_[begin, end) are the pods of one key (in its values' order) or of one value.
  struct Run {
    std::string_view label;  // the key or the value
    std::uint64_t hash;      // framework::hashString(label)
    std::uint32_t begin;
    std::uint32_t end;
    std::uint32_t size() const { return end - begin; }
  };
  struct KeyRuns {
    Run key;
    // valueRuns_[firstValue, lastValue), sorted by (hash, value).
    std::uint32_t firstValue;
    std::uint32_t lastValue;
  };

  // Whether some pod may have the key (keyFingerprint) or the key with the value
  // (pairFingerprint): false is sure, true is checked against the runs. A term that spans
  // every namespace asks each of them, and in most the label is absent: this answers that in
  // one probe of one small array, where the runs' binary searches cost a cache miss a step.
  bool mayHave(std::uint32_t fingerprint) const;
  static std::uint32_t keyFingerprint(std::uint64_t keyHash);
  static std::uint32_t pairFingerprint(std::uint64_t keyHash, std::uint64_t valueHash);
  void addFingerprint(std::uint32_t fingerprint);

  // keyHash is framework::hashString(key), which plan() has already computed.
  const KeyRuns* findKey(std::string_view key, std::uint64_t keyHash) const;
  const Run* findValue(const KeyRuns& key, std::string_view value) const;

  void forEachIn(std::uint32_t begin, std::uint32_t end, auto&& fn) const {
    for (std::uint32_t i = begin; i < end; ++i) fn(pods_[postings_[i]]);
  }

  std::string ns_;
  std::uint64_t serial_;
  std::vector<Entry> pods_;
  // The keys' bytes, back to back (keys_ views them); values are views into the label strings
  // of the pods held by pods_.
  std::string keyText_;
  std::vector<KeyRuns> keys_;  // sorted by (hash, key)
  std::vector<Run> valueRuns_;
  std::vector<std::uint32_t> postings_;  // indexes into pods_
  // The fingerprints of every key and (key, value) pair: open addressing, linear probing,
  // at most half full, 0 for an empty slot; a power of two in size.
  std::vector<std::uint32_t> fingerprints_;
};

// What changed in a namespace since its index was built: the Cache serves small changes as
// this overlay instead of rebuilding the index of a large namespace on every publish.
struct NamespacePodDelta {
  NamespacePodDelta(std::string ns, std::vector<NamespacePodIndex::Entry> addedPods,
                    std::vector<const framework::PodInfo*> removedPods)
      : added(std::move(ns), std::move(addedPods)), removed(std::move(removedPods)) {}

  // The pods added since, indexed in their turn. Under sustained churn most namespaces have
  // an overlay, and a term that spans them all finds the few added pods it matches through
  // SpanningSelectorMemo, as it does in the indexes, instead of checking every added pod of
  // every overlay on every request.
  NamespacePodIndex added;
  // Pods of the index that are gone (or were replaced by an update), sorted. The index
  // holds them, so the addresses stay unique for as long as it lives.
  std::vector<const framework::PodInfo*> removed;
};

// The namespaces of `sorted` (ordered by nameOf) whose pods `term` may select when matched
// with empty namespace labels, as the incoming pod's terms are once their namespaceSelector
// is resolved: every one when that selector admits empty labels (Everything, or only
// negative requirements), else those the term lists. fn(element) for each; none for a
// Nothing selector. In those namespaces, term.matches(pod, {}) is term.selector's verdict.
template <typename T, typename NameOf, typename Fn>
void forEachNamespaceSelectedBy(const framework::AffinityTerm& term, std::span<const T> sorted,
                                NameOf nameOf, Fn&& fn) {
  static const api::Labels kNoLabels;
  if (term.selector.isNothing()) return;
  if (term.namespaceSelector.matches(kNoLabels)) {
    for (const T& e : sorted) fn(e);
    return;
  }
  for (const std::string& ns : term.namespaces) {
    auto it = std::lower_bound(
        sorted.begin(), sorted.end(), ns,
        [&](const T& e, const std::string& n) { return std::string_view(nameOf(e)) < n; });
    if (it != sorted.end() && std::string_view(nameOf(*it)) == ns) fn(*it);
  }
}

template <typename Fn>
void NamespacePodIndex::forEachMatching(const Plan& plan, std::span<const Range> ranges,
                                        const labels::Selector& selector, Fn&& fn) const {
  const auto visit = [&](const Entry& e) {
    if (!plan.checked || selector.matches(e.pod->pod().metadata.labels)) fn(e);
  };
  if (plan.all) {
    for (const Entry& e : pods_) visit(e);
    return;
  }
  for (std::uint32_t r = plan.firstRange; r < plan.endRange; ++r) {
    forEachIn(ranges[r].begin, ranges[r].end, visit);
  }
}

}  // namespace scheduling::cache
