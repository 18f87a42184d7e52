#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduling/cache/namespace_pod_index.hpp"
#include "scheduling/labels/selector.hpp"

namespace scheduling::cache {

// Which namespaces' pod indexes may hold a pod a label selector matches, remembered across
// snapshots for the terms that span every namespace (`namespaceSelector: {}`) or many
// listed ones (a namespaceSelector such as `team: shop`, resolved to the namespaces it
// selects).
//
// Such a term asks every namespace's index, and in most the label is absent: at 1,500
// namespaces that is 1,500 scattered probes (a cache miss or two each) on every request,
// a cost that grows with the cluster, not with the pods that match. A long list costs the
// same per namespace listed, plus finding each by name. The answer only changes
// where an index is rebuilt, so an entry keeps, per namespace, the serial of the index it
// probed and, where that index may match, its plan (NamespacePodIndex::Plan: which postings
// to walk); a later request compares serials (one sequential pass), plans again only in the
// namespaces whose index changed, and walks the kept plans of the others. Entries are
// checked against the snapshot that asks, never trusted: the memo is only a shortcut.
//
// Shared by every snapshot of one Cache; requests on any thread consult and refresh it.
class SpanningSelectorMemo {
 public:
  // Calls visit(position, plan, ranges) in ascending order for every position of `indexes`
  // (a snapshot's namespaces, sorted by name) whose index may hold a pod `selector` matches,
  // with the plan NamespacePodIndex::plan makes there (and the ranges it indexes): the
  // positions whose index has pods and a plan for `selector`. `serials[i]` is
  // indexes[i]->serial(). With `namespaces` (sorted, unique), only the positions of the
  // namespaces it names; null: every namespace.
  template <typename Visit>
  void forEachCandidate(const labels::Selector& selector,
                        const std::vector<std::string>* namespaces,
                        std::span<const NamespacePodIndex* const> indexes,
                        std::span<const std::uint64_t> serials, Visit&& visit);

  // Remembered selectors; a bounded number, so a stream of distinct selectors costs at most
  // that many entries.
  std::size_t size() const;
  static constexpr std::size_t kMaxEntries = 512;

 private:
  struct Candidate {
    std::uint32_t position;
    NamespacePodIndex::Plan plan;  // its ranges are in Entry::ranges
  };
  struct Entry {
    std::vector<std::uint64_t> serials;  // by position, as probed
    std::vector<Candidate> candidates;   // positions whose index may match, ascending
    std::vector<NamespacePodIndex::Range> ranges;
  };

  static std::string keyOf(const labels::Selector& selector,
                           const std::vector<std::string>* namespaces);
  std::shared_ptr<const Entry> find(const std::string& key) const;
  void store(std::string key, std::shared_ptr<const Entry> entry);
  static std::shared_ptr<const Entry> refresh(const Entry* previous,
                                              const labels::Selector& selector,
                                              const std::vector<std::string>* namespaces,
                                              std::span<const NamespacePodIndex* const> indexes,
                                              std::span<const std::uint64_t> serials);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Entry>> entries_;
};

template <typename Visit>
void SpanningSelectorMemo::forEachCandidate(const labels::Selector& selector,
                                            const std::vector<std::string>* namespaces,
                                            std::span<const NamespacePodIndex* const> indexes,
                                            std::span<const std::uint64_t> serials, Visit&& visit) {
  std::string key = keyOf(selector, namespaces);
  std::shared_ptr<const Entry> entry = find(key);
  if (!entry ||
      !std::equal(serials.begin(), serials.end(), entry->serials.begin(), entry->serials.end())) {
    entry = refresh(entry.get(), selector, namespaces, indexes, serials);
    store(std::move(key), entry);
  }
  for (const Candidate& c : entry->candidates) visit(c.position, c.plan, entry->ranges);
}

}  // namespace scheduling::cache
