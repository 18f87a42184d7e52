#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scheduling/cache/bounded_memo.hpp"
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
// An entry also keeps where the pods it found run: the node slot of every pod `selector`
// matches in each candidate's index, walked once when the index is probed. PreFilter and
// PreScore ask only that, and `tier: batch` across 1,500 namespaces is 4,649 pods at S5,
// scattered over as many index entries and a postings run per namespace: the kept slots
// are one 18 KB array. An index never changes, so neither do its slots. At most
// kMaxSlotsPerEntry are kept per entry (beyond, the entry keeps plans only), so the memo
// holds at most kMaxEntries times that.
//
// Shared by every snapshot of one Cache; requests on any thread consult and refresh it.
class SpanningSelectorMemo {
 public:
  // Calls visit(position, plan, ranges, slots) in ascending order for every position of
  // `indexes` (a snapshot's namespaces, sorted by name) whose index may hold a pod
  // `selector` matches, with the plan NamespacePodIndex::plan makes there (and the ranges it
  // indexes): the positions whose index has pods and a plan for `selector`. `slots`, unless
  // null, points at the node slots (NamespacePodIndex::Entry::slot) of the pods that plan
  // matches, in its order.
  // `serials[i]` is indexes[i]->serial(). With `namespaces` (sorted, unique), only the
  // positions of the namespaces it names; null: every namespace.
  template <typename Visit>
  void forEachCandidate(const labels::Selector& selector,
                        const std::vector<std::string>* namespaces,
                        std::span<const NamespacePodIndex* const> indexes,
                        std::span<const std::uint64_t> serials, Visit&& visit);

  // Remembered selectors; a bounded number, so a stream of distinct selectors costs at most
  // that many entries.
  std::size_t size() const;
  static constexpr std::size_t kMaxEntries = 512;
  static constexpr std::size_t kMaxSlotsPerEntry = 16384;  // 64 KB

 private:
  struct Candidate {
    std::uint32_t position;
    NamespacePodIndex::Plan plan;  // its ranges are in Entry::ranges
    std::uint32_t firstSlot = 0;   // its pods' slots: Entry::slots[firstSlot, endSlot)
    std::uint32_t endSlot = 0;
  };
  struct Entry {
    std::vector<std::uint64_t> serials;  // by position, as probed
    std::vector<Candidate> candidates;   // positions whose index may match, ascending
    std::vector<NamespacePodIndex::Range> ranges;
    bool slotsKept = true;  // false: more than kMaxSlotsPerEntry, slots is empty
    std::vector<std::uint32_t> slots;
  };

  static std::string keyOf(const labels::Selector& selector,
                           const std::vector<std::string>* namespaces);
  // Appends the candidate to the entry and, while the entry keeps slots, its pods' slots:
  // fill(slots) appends them.
  template <typename Fill>
  static void addCandidate(Entry& entry, Candidate candidate, Fill&& fill);
  static std::shared_ptr<const Entry> refresh(const Entry* previous,
                                              const labels::Selector& selector,
                                              const std::vector<std::string>* namespaces,
                                              std::span<const NamespacePodIndex* const> indexes,
                                              std::span<const std::uint64_t> serials);

  BoundedMemo<Entry> entries_{kMaxEntries};
};

template <typename Visit>
void SpanningSelectorMemo::forEachCandidate(const labels::Selector& selector,
                                            const std::vector<std::string>* namespaces,
                                            std::span<const NamespacePodIndex* const> indexes,
                                            std::span<const std::uint64_t> serials, Visit&& visit) {
  std::string key = keyOf(selector, namespaces);
  std::shared_ptr<const Entry> entry = entries_.find(key);
  if (!entry ||
      !std::equal(serials.begin(), serials.end(), entry->serials.begin(), entry->serials.end())) {
    entry = refresh(entry.get(), selector, namespaces, indexes, serials);
    entries_.store(std::move(key), entry);
  }
  for (const Candidate& c : entry->candidates) {
    const std::span<const std::uint32_t> slots =
        std::span(entry->slots).subspan(c.firstSlot, c.endSlot - c.firstSlot);
    visit(c.position, c.plan, entry->ranges, entry->slotsKept ? &slots : nullptr);
  }
}

}  // namespace scheduling::cache
